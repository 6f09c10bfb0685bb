/**
 * `wa-gateway campaign report <id>`: a campaign's report from the Redis that `RedisCampaignStore` writes to; and
 * `campaign status|pause|resume|cancel|resend|drop`: a `CampaignQueue`'s campaign, seen and steered.
 */
import { parseArgs } from 'node:util';
import { checkReason } from '../campaigns/suppressions.js';
import type { CampaignReport } from '../campaigns/tracker.js';
import { raceSignal } from '../core/abort.js';
import {
  type CampaignQueue,
  type CampaignSource,
  clusterAdvice,
  openCampaigns,
  openQueue,
  REDIS_TIMEOUT_MS,
  unanswered,
  unreachable,
  warnPasswordInFlag,
} from './campaign-store.js';
import { csvField } from './csv-field.js';
import { asUsage, type CliIo, EXIT, interruption, UsageError } from './io.js';
import { printable } from './printable.js';
import { secondsFlag } from './seconds-flag.js';

export const usage = `Usage: wa-gateway campaign report <id> [--redis-url <url> [--cluster]] [--prefix <prefix>]
                                     [--retryable-codes <codes>] [--json | --csv <list>]
       wa-gateway campaign list [--redis-url <url> [--cluster]] [--prefix <prefix>]
       wa-gateway campaign status <id> [--json] [...]
       wa-gateway campaign message <id> <key> [--json] [...]
       wa-gateway campaign pause <id> [--reason <text>] [...]
       wa-gateway campaign resume <id> [...]
       wa-gateway campaign cancel <id> [--reason <text>] [...]
       wa-gateway campaign resend <id> <key> [...]
       wa-gateway campaign drop <id> <key> [...]

report prints a campaign's report (the funnel, failures and refusals by code, billable deliveries, event times
and how many recipients to retry) from the Redis your senders and webhook receivers share through
RedisCampaignStore. The other actions are a CampaignQueue's (wa-gateway-sdk/redis): status prints where the
campaign stands (queued, in flight, accepted, not sent, in doubt, paused and why) and every message in doubt;
message prints what became of one message, by its key (the recipient unless enqueued with keys): queued, in
flight, accepted with its wamid and latest status, not sent with its code, in doubt and why, or dropped (for a
sendMany campaign, give the message's wamid as its key); pause, resume and cancel act for every worker; resend
and drop decide a message in doubt, by its key, once you have checked whether it reached the customer. Exit 0
when done, 1 when the campaign (or message) is unknown, the action is refused or Redis cannot be read. Give a URL
with a password in REDIS_URL, not on the command line.

  --redis-url <url>          the Redis, e.g. redis://127.0.0.1:6379 (default: the REDIS_URL environment variable)
  --cluster                  the URL is a node of a Redis Cluster (the stores then place keys by hash tags)
  --prefix <prefix>          the key prefix the store was built with (default wa:)
  --retryable-codes <codes>  upstream error codes of failed messages worth retrying, comma-separated
                             (e.g. 131026,131049): their recipients join the retry list (default: none)
  --timeout <seconds>        how long Redis may take to connect and to answer each command before the command
                             fails with exit 1 (default ${REDIS_TIMEOUT_MS / 1000})
  --reason <text>            why you pause or cancel, kept for status (default: paused / cancelled by a person)
  --json                     print the report as JSON, with the retry list (status, message: as JSON)
  --csv <list>               print one list as CSV: retries (to,reason,code,index,wamid,key), refused
                             (index,to,code,not_sent,description,key) or failures (code,count,example_wamid);
                             index is the message's position from 0 (in sendMany's input, or a queue
                             campaign's enqueue order), key a queue campaign's message key (empty for sendMany)`;

export const options = {
  'redis-url': { type: 'string' },
  cluster: { type: 'boolean' },
  prefix: { type: 'string' },
  'retryable-codes': { type: 'string' },
  json: { type: 'boolean' },
  csv: { type: 'string' },
  reason: { type: 'string' },
  timeout: { type: 'string' },
} as const;

/** The queue's actions, and the positionals each takes after the campaign id. */
const QUEUE_ACTIONS = { status: 0, message: 1, pause: 0, resume: 0, cancel: 0, resend: 1, drop: 1 } as const;
type QueueAction = keyof typeof QUEUE_ACTIONS;

const LISTS = ['retries', 'refused', 'failures'] as const;

export async function campaignCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({ args, options, allowPositionals: true });
  const [action, id, ...rest] = positionals;
  if (action !== undefined && Object.hasOwn(QUEUE_ACTIONS, action)) {
    return queueCommand(action as QueueAction, id, rest, values, io);
  }
  if (action !== 'report' && action !== 'list') {
    throw new UsageError(
      `campaign needs 'report <id>', 'list', or one of ${Object.keys(QUEUE_ACTIONS).join(', ')}${action ? `, not '${action}'` : ''}.`,
    );
  }
  if (values.reason !== undefined) throw new UsageError('--reason goes with campaign pause or cancel.');
  if (action === 'report' && !id) throw new UsageError('campaign report needs the campaign <id>.');
  if (rest.length > 0 || (action === 'list' && id)) throw new UsageError(`unexpected '${rest[0] ?? id}'.`);
  if (values.json && values.csv) throw new UsageError('--json and --csv cannot be used together.');
  if (values.csv !== undefined && !(LISTS as readonly string[]).includes(values.csv)) {
    throw new UsageError(`--csv takes one of ${LISTS.join(', ')}; got '${values.csv}'.`);
  }
  const retryableFailureCodes = codesOf(values['retryable-codes']);
  if (action === 'list' && retryableFailureCodes.length > 0)
    throw new UsageError('--retryable-codes goes with campaign report.');
  const source = { ...sourceOf(values, io, 'campaign'), retryableFailureCodes };
  // A report reads a CampaignQueue's campaign through its queue: one with nothing recorded yet (scheduled, or
  // enqueued with no messages) has a report of zeros, and its messages their keys.
  const { tracker, queue, close, outage } =
    action === 'list' ? { ...openCampaigns(source), queue: undefined } : openQueue(source);
  const work = async () => {
    if (action === 'list') {
      for (const c of await tracker.campaigns()) io.stdout(`${printable(c)}\n`);
      return EXIT.ok;
    }
    const report = (await queue?.report(id!)) ?? (await tracker.report(id!));
    if (!report) {
      io.stderr(`wa-gateway campaign: no campaign '${id}' under prefix '${values.prefix ?? 'wa:'}'.\n`);
      return EXIT.failed;
    }
    if (values.csv) await printCsv(report, values.csv as (typeof LISTS)[number], io);
    else if (values.json) io.stdout(`${JSON.stringify(await asJson(report), null, 2)}\n`);
    else await printTable(report, retryableFailureCodes.length > 0, io);
    return EXIT.ok;
  };
  try {
    // Ctrl-C stops the reads where they are: the connection is closed below, failing what was still waiting.
    return await raceSignal(work(), interruption(io));
  } catch (error) {
    throw (
      clusterAdvice(error, source) ??
      unreachable(error, source, outage()) ??
      unanswered(error, source) ??
      error
    );
  } finally {
    await close();
  }
}

type Values = ReturnType<typeof parseArgs<{ args: string[]; options: typeof options }>>['values'];

/** `campaign status|message|pause|resume|cancel|resend|drop`: a `CampaignQueue`'s campaign. */
async function queueCommand(
  action: QueueAction,
  id: string | undefined,
  rest: string[],
  values: Values,
  io: CliIo,
): Promise<number> {
  if (!id) throw new UsageError(`campaign ${action} needs the campaign <id>.`);
  const key = rest[0];
  if (QUEUE_ACTIONS[action] === 1 && !key) throw new UsageError(`campaign ${action} needs <id> <key>.`);
  const extra = rest[QUEUE_ACTIONS[action]];
  if (extra !== undefined) throw new UsageError(`unexpected '${extra}'.`);
  if (values.csv !== undefined || values['retryable-codes'] !== undefined) {
    throw new UsageError('--csv and --retryable-codes go with campaign report.');
  }
  if (values.json && action !== 'status' && action !== 'message') {
    throw new UsageError('--json goes with campaign status, message or report.');
  }
  if (values.reason !== undefined && action !== 'pause' && action !== 'cancel') {
    throw new UsageError('--reason goes with campaign pause or cancel.');
  }
  // The queue's own rule, checked before Redis is opened: a bad flag is a usage error (exit 2), not a refusal.
  if (values.reason !== undefined) asUsage(() => checkReason(values.reason, '--reason'));
  const source = sourceOf(values, io, `campaign ${action}`);
  const { queue, close, outage } = openQueue(source);
  try {
    // Ctrl-C stops the reads where they are: the connection is closed below, failing what was still waiting.
    return await raceSignal(queueAction(queue, action, id, key, values, io), interruption(io));
  } catch (error) {
    if (error instanceof Error && error.name === 'CampaignQueueError') {
      io.stderr(`wa-gateway campaign: ${printable(error.message, '\n')}\n`);
      return EXIT.failed;
    }
    throw (
      clusterAdvice(error, source) ??
      unreachable(error, source, outage()) ??
      unanswered(error, source) ??
      error
    );
  } finally {
    await close();
  }
}

/** A queue's action, done: what `campaign status|pause|resume|cancel|resend|drop` prints, and its exit code. */
async function queueAction(
  queue: CampaignQueue,
  action: QueueAction,
  id: string,
  key: string | undefined,
  values: Values,
  io: CliIo,
): Promise<number> {
  {
    if (action === 'message') return await printMessage(queue, id, key!, values, io);
    const status = await queue.status(id);
    if (!status) {
      io.stderr(
        `wa-gateway campaign: no campaign '${id}' in the queue under prefix '${values.prefix ?? 'wa:'}'.\n`,
      );
      return EXIT.failed;
    }
    if (action === 'status') return await printStatus(queue, id, values.json === true, io);
    if (action === 'pause') {
      if (!(await queue.pause(id, values.reason))) {
        io.stdout(`${id} was paused already: nothing to do (its first reason is kept)\n`);
        return EXIT.ok;
      }
    } else if (action === 'resume') {
      if (!(await queue.resume(id))) {
        io.stdout(`${id} was not paused (${status.state}): nothing to resume\n`);
        return EXIT.ok;
      }
    } else if (action === 'cancel') {
      const cancelled = await queue.cancel(id, values.reason);
      io.stdout(
        `cancelled ${id}: ${cancelled} message${cancelled === 1 ? '' : 's'} that never started recorded not sent\n`,
      );
      return EXIT.ok;
    } else if (action === 'resend') await queue.resend(id, key!);
    else await queue.drop(id, key!);
    io.stdout(`${PAST[action]} ${id}${key ? ` ${key}` : ''}\n`);
    return EXIT.ok;
  }
}

/**
 * `campaign message <id> <key>`: one message of a queue campaign, by its key; of a `sendMany` campaign (one the
 * queue does not know), by its wamid. Prints what `campaign status` and `report` print of a message: its key,
 * recipient, position, state, wamid, code and times, never its content.
 */
async function printMessage(
  queue: CampaignQueue,
  id: string,
  key: string,
  values: Values,
  io: CliIo,
): Promise<number> {
  const inQueue = (await queue.status(id)) !== undefined;
  const message = inQueue ? await queue.message(id, key) : await queue.tracker.message(id, key);
  if (!message) {
    const where = `under prefix '${values.prefix ?? 'wa:'}'`;
    io.stderr(
      printable(
        inQueue
          ? `wa-gateway campaign: no message with key '${key}' in campaign '${id}' ${where} (a key is the recipient unless the campaign was enqueued with keys).`
          : `wa-gateway campaign: no message '${key}' in a campaign '${id}' ${where}: a queue campaign's message is found by its key, a sendMany campaign's by its wamid.`,
        '\n',
      ) + '\n',
    );
    return EXIT.failed;
  }
  if (values.json) {
    io.stdout(`${JSON.stringify(message, null, 2)}\n`);
    return EXIT.ok;
  }
  const rows: [string, string][] = [];
  let advice: string | undefined;
  if ('key' in message) {
    rows.push(['to', message.to], ['position', String(message.position)]);
    if (message.state === 'accepted') {
      rows.push(['state', 'accepted'], ['wamid', message.wamid]);
      rows.push([
        'status',
        message.status === null ? 'unknown (not in the report)' : statusWords(message.status),
      ]);
    } else if (message.state === 'not_sent') rows.push(['state', 'not sent'], ['code', message.code]);
    else if (message.state === 'in_doubt') {
      rows.push(['state', `in doubt: ${message.why === 'died' ? 'its worker died' : 'cut in flight'}`]);
      advice = `check whether it reached the customer, then: campaign resend|drop ${id} ${key}`;
    } else if (message.state === 'dropped') {
      rows.push(['state', 'dropped (it was in doubt: it may have been sent)']);
    } else if (message.state === 'queued' && message.waitsBehind !== undefined) {
      // A message in doubt holds its recipient in every campaign: nothing starts to them until it is decided.
      const behind = message.waitsBehind;
      rows.push([
        'state',
        `queued, behind a message in doubt to the same recipient (campaign ${behind.campaign}` +
          `${behind.key === null ? '' : `, key ${behind.key}`})`,
      ]);
      advice =
        behind.key === null
          ? "that campaign has expired: the hold ends when the recipient's record does (the queue's retentionMs)"
          : `check whether that message reached the customer, then: campaign resend|drop ${behind.campaign} ${behind.key}`;
    } else rows.push(['state', message.state === 'sending' ? 'in flight' : 'queued']);
    rows.push(['started', message.startedAt ?? '-']);
  } else {
    rows.push(['to', message.to], ['state', 'accepted'], ['status', statusWords(message.status)]);
    rows.push(['billable', message.billable ? 'yes' : 'no']);
  }
  io.stdout(`${printable(`campaign ${id}, message ${key}`)}\n`);
  for (const [label, value] of rows) io.stdout(`${printable(`  ${label.padEnd(12)}${value}`)}\n`);
  if (advice) io.stdout(`\n${printable(advice)}\n`);
  return EXIT.ok;
}

/** A message's latest status, for a person: `accepted` is "no status yet". */
function statusWords(status: string): string {
  return status === 'accepted' ? 'none yet (accepted, no status event since)' : status;
}

const PAST = { pause: 'paused', resume: 'resumed', resend: 'queued again', drop: 'dropped' } as const;

/** What a running campaign's wait means, for the person reading `campaign status`. */
const WAITS = {
  rate_limit: "the gateway's rate limit (RATE_001): every worker waits out its retry_after",
  replicas:
    'too few Redis replicas held the ledger in time (one down or lagging?): messages go back to the queue and are tried again',
} as const;

async function printStatus(queue: CampaignQueue, id: string, json: boolean, io: CliIo): Promise<number> {
  const status = (await queue.status(id))!;
  const inDoubt = await queue.inDoubt(id);
  if (json) {
    io.stdout(`${JSON.stringify({ ...status, inDoubtMessages: inDoubt }, null, 2)}\n`);
    return EXIT.ok;
  }
  io.stdout(`${printable(`campaign ${id}: ${status.state}`)}\n`);
  if (status.state === 'scheduled' && status.startAt !== null)
    io.stdout(`${printable(`  starts at ${status.startAt}`)}\n`);
  if (status.waiting)
    io.stdout(`${printable(`  waiting until ${status.waiting.until}: ${WAITS[status.waiting.reason]}`)}\n`);
  if (status.hold) {
    io.stdout(
      printable(
        `  ${status.state === 'cancelled' ? 'cancelled' : 'paused'} by ${status.hold.by} at ${status.hold.at}: ${status.hold.code} ${status.hold.description}`,
      ) + '\n',
    );
  }
  const rows: [string, number][] = [
    ['total', status.total],
    ['queued', status.queued],
    ['in flight', status.inFlight],
    ['accepted', status.accepted],
    // Of the accepted, those a status resolved while in doubt: a reply to the recipient meanwhile can pass for one.
    ['resolved', status.resolved],
    ['not sent', status.notSent],
    ['suppressed', status.suppressed],
    ['cancelled', status.cancelled],
    ['in doubt', status.inDoubt],
    ['dropped', status.dropped],
  ];
  for (const [label, n] of rows) io.stdout(`  ${label.padEnd(12)}${String(n).padStart(10)}\n`);
  if (inDoubt.length > 0) {
    io.stdout('\nin doubt (check whether it reached the customer, then: campaign resend|drop <id> <key>)\n');
    for (const m of inDoubt) {
      const why = m.why === 'died' ? 'its worker died' : 'cut in flight';
      io.stdout(`${printable(`  ${m.key}  to ${m.to}  ${why} at ${m.attemptedAt}`)}\n`);
    }
  }
  return EXIT.ok;
}

/** `--retryable-codes 131026,131049`: upstream codes, as the tracker's `retryableFailureCodes`. */
/** The Redis a campaign command reads, from --redis-url or REDIS_URL; `what` names the command in the error. */
function sourceOf(values: Values, io: CliIo, what: string): CampaignSource {
  const fromFlag = values['redis-url'] !== undefined;
  const url = values['redis-url'] ?? io.env['REDIS_URL'];
  if (!url) throw new UsageError(`${what} needs the Redis: pass --redis-url <url> or set REDIS_URL.`);
  if (fromFlag) warnPasswordInFlag(io, '--redis-url', url, 'put the URL in $REDIS_URL instead');
  const timeoutMs = secondsFlag('--timeout', values.timeout, REDIS_TIMEOUT_MS / 1000);
  // One attempt per command, no endless reconnecting: a CLI should fail fast when Redis is not there.
  return {
    url,
    prefix: values.prefix,
    cluster: values.cluster,
    // Named as the user gave it: a bad $REDIS_URL is not blamed on a flag they never passed.
    flag: fromFlag ? '--redis-url' : '$REDIS_URL',
    clusterFlag: '--cluster',
    command: 'wa-gateway campaign',
    once: true,
    timeoutMs,
  };
}

function codesOf(flag: string | undefined): string[] {
  if (flag === undefined) return [];
  const codes = flag.split(',').map((c) => c.trim());
  const bad = codes.find((c) => !/^[A-Za-z0-9_.-]{1,40}$/.test(c));
  if (bad !== undefined) {
    throw new UsageError(
      `--retryable-codes takes upstream error codes separated by commas, e.g. 131026,131049; got '${bad.slice(0, 40)}'.`,
    );
  }
  return codes;
}

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

async function asJson(report: CampaignReport) {
  // A queue's report also holds its status and messages in doubt: `campaign status` prints those.
  const { retries, refused, queue, inDoubt, ...rest } = report as CampaignReport & {
    queue?: unknown;
    inDoubt?: unknown;
  };
  return { ...rest, retries: await collect(report.retries()) };
}

function pct(n: number, of: number): string {
  return of === 0 ? '' : `${((100 * n) / of).toFixed(1).padStart(6)}%`;
}

async function printTable(report: CampaignReport, retryable: boolean, io: CliIo): Promise<void> {
  const f = report.funnel;
  let retries = 0;
  for await (const _ of report.retries()) retries++;
  const rows: [string, string, string?][] = [
    ['accepted', String(f.accepted)],
    // Accepted, and no status event since: a lost receipt (or one still on its way) is here.
    ['no status', String(report.latest.accepted), pct(report.latest.accepted, f.accepted)],
    ['sent', String(f.sent), pct(f.sent, f.accepted)],
    ['delivered', String(f.delivered), pct(f.delivered, f.accepted)],
    ['read', String(f.read), pct(f.read, f.accepted)],
    ['failed', String(f.failed), pct(f.failed, f.accepted)],
    ['not sent', String(f.notSent)],
    ['maybe sent', String(f.maybeSent)],
    ['billable', String(report.billable)],
    ['first event', report.firstEventAt ?? '-'],
    ['last event', report.lastEventAt ?? '-'],
    ['to retry', String(retries)],
  ];
  io.stdout(`campaign ${printable(report.campaign)}\n`);
  for (const [label, value, share] of rows) {
    io.stdout(`${printable(`  ${label.padEnd(12)}${value.padStart(10)}${share ?? ''}`)}\n`);
  }
  if (report.failures.length > 0) {
    io.stdout('\nfailures by code\n');
    for (const x of report.failures)
      io.stdout(
        `${printable(`  ${x.code.padEnd(12)}${String(x.count).padStart(10)}  e.g. ${x.exampleWamid}`)}\n`,
      );
  }
  if (report.refusals.length > 0) {
    io.stdout('\nrefusals by code\n');
    for (const x of report.refusals) {
      const line = `  ${x.code.padEnd(24)}${String(x.count).padStart(8)}  (${x.notSent} not sent)  e.g. ${x.exampleTo}`;
      io.stdout(`${printable(line)}\n`);
    }
  }
  if (retries > 0) {
    io.stdout(`\n${retries} recipient${retries === 1 ? '' : 's'} to retry: --csv retries lists them\n`);
  }
  if (f.failed > 0 && !retryable) {
    io.stdout('\nfailed messages join the retry list when their code is given: --retryable-codes <codes>\n');
  }
}

async function printCsv(report: CampaignReport, list: (typeof LISTS)[number], io: CliIo): Promise<void> {
  const line = (fields: (string | number | boolean | undefined)[]) =>
    io.stdout(`${fields.map(csvField).join(',')}\n`);
  if (list === 'failures') {
    line(['code', 'count', 'example_wamid']);
    for (const x of report.failures) line([x.code, x.count, x.exampleWamid]);
  } else if (list === 'refused') {
    // `key` last, for both kinds of campaign: a CampaignQueue's message key, empty for sendMany's.
    line(['index', 'to', 'code', 'not_sent', 'description', 'key']);
    for await (const r of report.refused()) line([r.index, r.to, r.code, r.notSent, r.description, r.key]);
  } else {
    line(['to', 'reason', 'code', 'index', 'wamid', 'key']);
    for await (const r of report.retries()) line([r.to, r.reason, r.code, r.index, r.wamid, r.key]);
  }
}
