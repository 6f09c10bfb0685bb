import { parseArgs } from 'node:util';
import { raceSignal } from '../core/abort.js';
import { attemptAnswer } from '../testing/attempt-answer.js';
import { requireWebhookUrl } from '../testing/deliver.js';
import { startSandbox } from '../testing/sandbox/sandbox.js';
import { shownUrl } from '../testing/shown-url.js';
import {
  type CampaignSource,
  clusterAdvice,
  notClusterAdvice,
  openQueue,
  type QueueReader,
  REDIS_TIMEOUT_MS,
  warnPasswordInFlag,
} from './campaign-store.js';
import { deliveryAdvice } from './delivery-advice.js';
import { asUsage, type CliIo, EXIT, Interrupted, interruption, UsageError } from './io.js';
import { printable } from './printable.js';
import { readSecret } from './secret-input.js';

export const usage = `Usage: wa-gateway sandbox [--port <n>] [--webhook-url <url>] [--webhook-secret-file <path>] [--api-key <key>] [--no-inbox] [--campaigns [<redis url>]]

Runs a local gateway on 127.0.0.1: POST /v1/wa/message and GET /v1/wa/media/{id} with the gateway's checks
and error codes. After each send it delivers sent, delivered and read status events to --webhook-url with the
gateway's retry rules. Point GatewayClient at the printed URL. Ctrl-C stops it.
It also serves a web inbox at that address: the conversations, answering as the customer, faults to inject,
the webhook log, and a template preview at /templates; and the conversation platform at /platform (log in as
agent@example.com / secret-password).

  --port                 port to listen on (default 4010; 0 picks a free one)
  --webhook-url          your webhook endpoint
  --webhook-secret-file  a file holding the secret sent as Authorization: Bearer <secret> (default: the
                         secret in $WEBHOOK_SECRET). A secret is never taken as a flag's value
                         (--webhook-secret is refused): arguments show in ps and shell history
  --api-key              the key the sandbox accepts (default: the key in $SANDBOX_API_KEY, else sk_test_sandbox);
                         a key of your own is never printed. Prefer $SANDBOX_API_KEY: arguments show in ps
  --no-inbox             do not serve the web inbox

Campaign funnels in the inbox, read from the Redis your app's RedisCampaignStore records campaigns in:
  --campaigns [<url>]       redis:// or rediss://; each campaign is drawn as a funnel that follows its statuses.
                            Alone, it reads $REDIS_URL: a URL with a password belongs there (arguments show in ps)
  --campaigns-prefix <p>    the key prefix that store was built with (default wa:)
  --campaigns-cluster       the URL is a node of a Redis Cluster

Write to your bot from another terminal with wa-gateway say <text>.`;

/** The key the sandbox accepts unless told otherwise: a well-known test key, safe to print. */
const DEFAULT_API_KEY = 'sk_test_sandbox';

export const options = {
  port: { type: 'string' },
  'webhook-url': { type: 'string' },
  'webhook-secret-file': { type: 'string' },
  // Refused with a reason (secret-input.ts), not unknown: a user who types it learns what to use instead.
  'webhook-secret': { type: 'string' },
  'api-key': { type: 'string' },
  'no-inbox': { type: 'boolean' },
  campaigns: { type: 'string' },
  'campaigns-prefix': { type: 'string' },
  'campaigns-cluster': { type: 'boolean' },
} as const;

export async function sandboxCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    // `--campaigns` with no URL after it reads $REDIS_URL: given as an empty value, which no URL is.
    args: args.map((arg, i) => (arg === '--campaigns' && !isValue(args[i + 1]) ? '--campaigns=' : arg)),
    options,
    allowPositionals: true,
  });
  if (positionals.length > 0)
    throw new UsageError(`sandbox takes no positional arguments; got '${positionals[0]}'.`);
  // Digits only: Number('') is 0 (a random port) and Number('0x10') is 16.
  const port = values.port === undefined ? 4010 : /^\d{1,5}$/.test(values.port) ? Number(values.port) : -1;
  if (port < 0 || port > 65535) throw new UsageError(`--port must be 0 to 65535; got '${values.port}'.`);
  const webhookUrl =
    values['webhook-url'] === undefined
      ? undefined
      : asUsage(() => requireWebhookUrl(values['webhook-url'], '--webhook-url'));
  const { secret, from: secretFrom } = await readSecret(
    {
      flag: '--webhook-secret',
      given: values['webhook-secret'],
      fileFlag: '--webhook-secret-file',
      file: values['webhook-secret-file'],
      env: 'WEBHOOK_SECRET',
    },
    io.env,
  );
  // The key from the environment keeps it out of `ps` and shell history; the flag is for a throwaway test key.
  const apiKey = values['api-key'] ?? (io.env['SANDBOX_API_KEY'] || DEFAULT_API_KEY);
  const keyFrom = values['api-key'] !== undefined ? '--api-key' : '$SANDBOX_API_KEY';
  if (webhookUrl && !secret) {
    io.stderr(
      'warning: no $WEBHOOK_SECRET and no --webhook-secret-file: webhooks go out without an Authorization ' +
        'header, which a receiver checking the secret answers 401 (every delivery then fails).\n',
    );
  }
  for (const flag of ['campaigns-prefix', 'campaigns-cluster'] as const)
    if (values[flag] !== undefined && values.campaigns === undefined)
      throw new UsageError(`--${flag} goes with --campaigns [<redis url>].`);
  const campaignsFrom = values.campaigns === undefined ? undefined : campaignsUrl(values.campaigns, io);
  const campaigns =
    campaignsFrom === undefined
      ? undefined
      : await readCampaigns(
          { ...campaignsFrom, prefix: values['campaigns-prefix'], cluster: values['campaigns-cluster'] },
          io,
        );
  const flags = { urlFlag: '--webhook-url', secretFileFlag: '--webhook-secret-file', secretFrom };
  // The advice last printed, not repeated for each event it applies to (a wrong path loses them all) until an
  // event is delivered or the advice changes.
  let advised: string | undefined;
  const sandbox = await startSandbox({
    ...(campaigns ? { campaigns: campaigns.queue } : {}),
    port,
    apiKeys: [apiKey],
    inbox: !values['no-inbox'],
    ...(webhookUrl ? { webhookUrl } : {}),
    ...(secret ? { webhookSecret: secret } : {}),
    // A send's lines quote what the app sent (its type, its recipient) and the gateway's refusal: escaped.
    onSend: (s) =>
      io.stdout(
        `${printable(
          s.accepted
            ? `send accepted: ${s.accepted.type} to ${s.accepted.to} → ${s.accepted.wamid}${s.accepted.isFake ? ' (is_fake: no status events)' : ''}`
            : `send refused: HTTP ${s.status} ${s.error?.code ?? ''} ${s.error?.description ?? ''}`,
        )}\n`,
      ),
    // Each line names the message the event is about: with several sends, which message's status was lost.
    onDelivery: (a) => {
      const about = a.wamid === undefined ? '' : ` ${a.wamid}`;
      io.stdout(
        `${printable(`webhook ${a.label}${about} attempt ${a.attempt}: ${attemptAnswer(a)} → ${a.outcome}`)}\n`,
      );
      if (a.outcome === 'delivered') advised = undefined;
      const advice = deliveryAdvice(a, flags);
      if (advice === undefined || advice === advised) return;
      advised = advice;
      io.stdout(`  ${printable(advice)}\n`);
    },
  }).catch((error: unknown) => {
    campaigns?.close();
    throw portInUse(error, port) ?? error;
  });
  io.stdout(`sandbox gateway listening at ${sandbox.url}\n`);
  // Only the well-known default is printed: a key of the user's own never reaches a terminal or a CI log.
  const shownKey = apiKey === DEFAULT_API_KEY ? `'${apiKey}'` : `'<the key in ${keyFrom}>'`;
  io.stdout(`  new GatewayClient({ apiKey: ${shownKey}, baseUrl: '${sandbox.url}' })\n`);
  if (sandbox.inboxUrl)
    io.stdout(`  web inbox: ${sandbox.inboxUrl} (template preview: ${sandbox.url}/templates)\n`);
  if (sandbox.platform) {
    const { platformUrl, streamUrl } = sandbox.platform;
    io.stdout(
      `  platform: new PlatformClient({ platformUrl: '${platformUrl}', streamUrl: '${streamUrl}', ` +
        `username: 'agent@example.com', password: 'secret-password' })\n`,
    );
  }
  // Origin and path only: a receiver may take a token in the query, and this line ends up in terminals and CI logs.
  io.stdout(
    webhookUrl
      ? `  delivering webhooks to ${shownUrl(webhookUrl)}\n  write to your bot: wa-gateway say "hello"${port === 4010 ? '' : ` --sandbox ${sandbox.url}`}\n`
      : '  no --webhook-url: status events are not delivered\n',
  );
  if (campaigns && campaignsFrom) io.stdout(`  campaign funnels from ${shownUrl(campaignsFrom.url)}\n`);
  await io.interrupted;
  await sandbox.close();
  campaigns?.close();
  io.stdout(
    `stopped after ${sandbox.simulator.sent.length} sends and ${sandbox.deliveries.length} webhook attempts\n`,
  );
  return EXIT.ok;
}

/** Whether `arg` is a flag's value rather than the next flag (or nothing). */
function isValue(arg: string | undefined): boolean {
  return arg !== undefined && !arg.startsWith('-');
}

/**
 * The campaigns' Redis: `--campaigns <url>`, or `$REDIS_URL` for `--campaigns` alone, which keeps a password out
 * of `ps` and shell history (a URL with one in the flag is taken, with a warning that says so).
 */
function campaignsUrl(given: string, io: CliIo): Pick<CampaignSource, 'url' | 'flag'> {
  if (given === '') {
    const url = io.env['REDIS_URL'];
    if (!url) throw new UsageError('--campaigns without a URL reads $REDIS_URL, which is not set.');
    return { url, flag: '$REDIS_URL' };
  }
  warnPasswordInFlag(io, '--campaigns', given, 'put the URL in $REDIS_URL and pass --campaigns alone');
  return { url: given, flag: '--campaigns' };
}

/** The campaigns at `url`, read once before the sandbox starts: a Redis out of reach is said now, not never. */
async function readCampaigns(
  given: Pick<CampaignSource, 'url' | 'flag' | 'prefix' | 'cluster'>,
  io: CliIo,
): Promise<QueueReader> {
  // The store's own warnings (Redis lost, back) go to the terminal once the sandbox runs; at start this check says it.
  let started = false;
  const line = (message: string) => {
    if (started) io.stderr(`${message}\n`);
  };
  const source: CampaignSource = {
    ...given,
    clusterFlag: '--campaigns-cluster',
    command: 'wa-gateway sandbox',
    once: false,
    logger: { warn: line, error: line },
  };
  // A campaign queue's view: the funnels of every campaign the store recorded, and the queue of those it sends.
  const opened = openQueue(source);
  const reader = {
    queue: opened.queue,
    tracker: opened.queue.tracker,
    close: () => void opened.close(),
    outage: opened.outage,
  };
  // A cluster client's reads wait in its queue, with no time limit, until it reaches a node. The check at start ends
  // at the client's first error that says it never will (one Redis given --campaigns-cluster: the store has noted
  // the reason by then), else after the client's own wait, saying why if it knows.
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopListening = () => {};
  const stuck = new Promise<never>((_, reject) => {
    stopListening = opened.onError(() => {
      const advice = notClusterAdvice(source, opened.outage());
      if (advice) reject(advice);
    });
    timer = setTimeout(
      () =>
        reject(
          new Error(`no answer within ${REDIS_TIMEOUT_MS / 1000} s: ${opened.outage() ?? 'no reason given'}`),
        ),
      REDIS_TIMEOUT_MS,
    );
  });
  try {
    // Ctrl-C while a stuck Redis is read stops the command (exit 130), with no sandbox started.
    await raceSignal(Promise.race([reader.tracker.campaigns(), stuck]), interruption(io));
    started = true;
    return reader;
  } catch (error) {
    reader.close();
    if (error instanceof Interrupted) throw error;
    const notCluster = notClusterAdvice(source, opened.outage());
    if (notCluster) throw notCluster;
    throw (
      clusterAdvice(error, source) ??
      new Error(
        `cannot read campaigns from the Redis at ${source.flag} ${shownUrl(source.url)} (${(error as Error).message}). ` +
          "Is it running, and is it the one your app's RedisCampaignStore writes to?",
      )
    );
  } finally {
    clearTimeout(timer);
    stopListening();
  }
}

/** A listen error as what to do, when it is the port being taken; `undefined` for any other error. */
function portInUse(error: unknown, port: number): Error | undefined {
  if ((error as { code?: unknown } | null)?.code !== 'EADDRINUSE') return undefined;
  return new Error(
    `port ${port} on 127.0.0.1 is already in use (another sandbox still running?). Stop that process, choose ` +
      'another port with --port <n>, or pass --port 0 to take a free one (the URL to use is printed).',
  );
}
