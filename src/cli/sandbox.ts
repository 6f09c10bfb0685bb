import { parseArgs } from 'node:util';
import { startSandbox } from '../testing/sandbox/sandbox.js';
import { type CliIo, EXIT, UsageError } from './io.js';

export const usage = `Usage: wa-gateway sandbox [--port <n>] [--webhook-url <url>] [--webhook-secret <secret>] [--api-key <key>] [--no-inbox]

Runs a local gateway on 127.0.0.1: POST /v1/wa/message and GET /v1/wa/media/{id} with the gateway's checks
and error codes. After each send it delivers sent, delivered and read status events to --webhook-url with the
gateway's retry rules. Point GatewayClient at the printed URL. Ctrl-C stops it.
It also serves a web inbox at that address: the conversations, answering as the customer, faults to inject,
the webhook log, and a template preview at /templates; and the conversation platform at /platform (log in as
agent@example.com / secret-password).

  --port             port to listen on (default 4010; 0 picks a free one)
  --webhook-url      your webhook endpoint
  --webhook-secret   sent as Authorization: Bearer <secret> (default: $WEBHOOK_SECRET)
  --api-key          the key the sandbox accepts (default: sk_test_sandbox)
  --no-inbox         do not serve the web inbox`;

export const options = {
  port: { type: 'string' },
  'webhook-url': { type: 'string' },
  'webhook-secret': { type: 'string' },
  'api-key': { type: 'string' },
  'no-inbox': { type: 'boolean' },
} as const;

export async function sandboxCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options,
    allowPositionals: true,
  });
  if (positionals.length > 0)
    throw new UsageError(`sandbox takes no positional arguments; got '${positionals[0]}'.`);
  const port = values.port === undefined ? 4010 : Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new UsageError(`--port must be 0 to 65535; got '${values.port}'.`);
  const webhookUrl = values['webhook-url'];
  if (webhookUrl !== undefined && !/^https?:\/\//.test(webhookUrl)) {
    throw new UsageError(`--webhook-url must be an http(s) URL; got '${webhookUrl}'.`);
  }
  const secret = values['webhook-secret'] ?? io.env['WEBHOOK_SECRET'];
  const apiKey = values['api-key'] ?? 'sk_test_sandbox';
  if (webhookUrl && !secret) {
    io.stderr(
      'warning: no --webhook-secret and no $WEBHOOK_SECRET: webhooks go out without an Authorization header, ' +
        'which a receiver checking the secret answers 401 (every delivery then fails).\n',
    );
  }
  const sandbox = await startSandbox({
    port,
    apiKeys: [apiKey],
    inbox: !values['no-inbox'],
    ...(webhookUrl ? { webhookUrl } : {}),
    ...(secret ? { webhookSecret: secret } : {}),
    onSend: (s) =>
      io.stdout(
        s.accepted
          ? `send accepted: ${s.accepted.type} to ${s.accepted.to} → ${s.accepted.wamid}${s.accepted.isFake ? ' (is_fake: no status events)' : ''}\n`
          : `send refused: HTTP ${s.status} ${s.error?.code ?? ''} ${s.error?.description ?? ''}\n`,
      ),
    onDelivery: (a) =>
      io.stdout(
        `webhook ${a.label} attempt ${a.attempt}: ${a.status !== undefined ? `HTTP ${a.status}` : a.error} → ${a.outcome}\n`,
      ),
  }).catch((error: unknown) => {
    throw portInUse(error, port) ?? error;
  });
  io.stdout(`sandbox gateway listening at ${sandbox.url}\n`);
  io.stdout(`  new GatewayClient({ apiKey: '${apiKey}', baseUrl: '${sandbox.url}' })\n`);
  if (sandbox.inboxUrl)
    io.stdout(`  web inbox: ${sandbox.inboxUrl} (template preview: ${sandbox.url}/templates)\n`);
  if (sandbox.platform) {
    const { platformUrl, streamUrl } = sandbox.platform;
    io.stdout(
      `  platform: new PlatformClient({ platformUrl: '${platformUrl}', streamUrl: '${streamUrl}', ` +
        `username: 'agent@example.com', password: 'secret-password' })\n`,
    );
  }
  io.stdout(
    webhookUrl
      ? `  delivering webhooks to ${webhookUrl}\n`
      : '  no --webhook-url: status events are not delivered\n',
  );
  await io.interrupted;
  await sandbox.close();
  io.stdout(
    `stopped after ${sandbox.simulator.sent.length} sends and ${sandbox.deliveries.length} webhook attempts\n`,
  );
  return EXIT.ok;
}

/** A listen error as what to do, when it is the port being taken; `undefined` for any other error. */
function portInUse(error: unknown, port: number): Error | undefined {
  if ((error as { code?: unknown } | null)?.code !== 'EADDRINUSE') return undefined;
  return new Error(
    `port ${port} on 127.0.0.1 is already in use (another sandbox still running?). Stop that process, choose ` +
      'another port with --port <n>, or pass --port 0 to take a free one (the URL to use is printed).',
  );
}
