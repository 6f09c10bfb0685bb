/** `wa-gateway campaign report <id>`: a campaign's report from the Redis that `RedisCampaignStore` writes to. */
import { parseArgs } from 'node:util';
import type { CampaignReport } from '../campaigns/tracker.js';
import { type CampaignSource, clusterAdvice, openCampaigns } from './campaign-store.js';
import { csvField } from './csv-field.js';
import { type CliIo, EXIT, UsageError } from './io.js';

export const usage = `Usage: wa-gateway campaign report <id> [--redis-url <url> [--cluster]] [--prefix <prefix>]
                                     [--retryable-codes <codes>] [--json | --csv <list>]
       wa-gateway campaign list [--redis-url <url> [--cluster]] [--prefix <prefix>]

Prints a campaign's report (the funnel, failures and refusals by code, billable deliveries, event times and
how many recipients to retry) from the Redis your senders and webhook receivers share through
RedisCampaignStore. Exit 0 when printed, 1 when the campaign is unknown or Redis cannot be read.

  --redis-url <url>          the Redis, e.g. redis://127.0.0.1:6379 (default: the REDIS_URL environment variable)
  --cluster                  the URL is a node of a Redis Cluster (the stores then place keys by hash tags)
  --prefix <prefix>          the key prefix the store was built with (default wa:)
  --retryable-codes <codes>  upstream error codes of failed messages worth retrying, comma-separated
                             (e.g. 131026,131049): their recipients join the retry list (default: none)
  --json                     print the report as JSON, with the retry list
  --csv <list>               print one list as CSV: retries (to,reason,code,index,wamid), refused
                             (index,to,code,not_sent,description) or failures (code,count,example_wamid)`;

export const options = {
  'redis-url': { type: 'string' },
  cluster: { type: 'boolean' },
  prefix: { type: 'string' },
  'retryable-codes': { type: 'string' },
  json: { type: 'boolean' },
  csv: { type: 'string' },
} as const;

const LISTS = ['retries', 'refused', 'failures'] as const;

export async function campaignCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({ args, options, allowPositionals: true });
  const [action, id, ...rest] = positionals;
  if (action !== 'report' && action !== 'list') {
    throw new UsageError(`campaign needs 'report <id>' or 'list'${action ? `, not '${action}'` : ''}.`);
  }
  if (action === 'report' && !id) throw new UsageError('campaign report needs the campaign <id>.');
  if (rest.length > 0 || (action === 'list' && id)) throw new UsageError(`unexpected '${rest[0] ?? id}'.`);
  if (values.json && values.csv) throw new UsageError('--json and --csv cannot be used together.');
  if (values.csv !== undefined && !(LISTS as readonly string[]).includes(values.csv)) {
    throw new UsageError(`--csv takes one of ${LISTS.join(', ')}; got '${values.csv}'.`);
  }
  const retryableFailureCodes = codesOf(values['retryable-codes']);
  if (action === 'list' && retryableFailureCodes.length > 0)
    throw new UsageError('--retryable-codes goes with campaign report.');
  const url = values['redis-url'] ?? io.env['REDIS_URL'];
  if (!url) throw new UsageError('campaign needs the Redis: pass --redis-url <url> or set REDIS_URL.');
  // One attempt per command, no endless reconnecting: a CLI should fail fast when Redis is not there.
  const source: CampaignSource = {
    url,
    prefix: values.prefix,
    cluster: values.cluster,
    flag: '--redis-url',
    clusterFlag: '--cluster',
    command: 'wa-gateway campaign',
    once: true,
    retryableFailureCodes,
  };
  const { tracker, close } = openCampaigns(source);
  try {
    if (action === 'list') {
      for (const c of await tracker.campaigns()) io.stdout(`${c}\n`);
      return EXIT.ok;
    }
    const report = await tracker.report(id!);
    if (!report) {
      io.stderr(`wa-gateway campaign: no campaign '${id}' under prefix '${values.prefix ?? 'wa:'}'.\n`);
      return EXIT.failed;
    }
    if (values.csv) await printCsv(report, values.csv as (typeof LISTS)[number], io);
    else if (values.json) io.stdout(`${JSON.stringify(await asJson(report), null, 2)}\n`);
    else await printTable(report, retryableFailureCodes.length > 0, io);
    return EXIT.ok;
  } catch (error) {
    throw clusterAdvice(error, source) ?? error;
  } finally {
    close();
  }
}

/** `--retryable-codes 131026,131049`: upstream codes, as the tracker's `retryableFailureCodes`. */
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
  const { retries, refused, ...rest } = report;
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
  io.stdout(`campaign ${report.campaign}\n`);
  for (const [label, value, share] of rows) {
    io.stdout(`  ${label.padEnd(12)}${value.padStart(10)}${share ?? ''}\n`);
  }
  if (report.failures.length > 0) {
    io.stdout('\nfailures by code\n');
    for (const x of report.failures)
      io.stdout(`  ${x.code.padEnd(12)}${String(x.count).padStart(10)}  e.g. ${x.exampleWamid}\n`);
  }
  if (report.refusals.length > 0) {
    io.stdout('\nrefusals by code\n');
    for (const x of report.refusals) {
      io.stdout(
        `  ${x.code.padEnd(24)}${String(x.count).padStart(8)}  (${x.notSent} not sent)  e.g. ${x.exampleTo}\n`,
      );
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
    line(['index', 'to', 'code', 'not_sent', 'description']);
    for await (const r of report.refused()) line([r.index, r.to, r.code, r.notSent, r.description]);
  } else {
    line(['to', 'reason', 'code', 'index', 'wamid']);
    for await (const r of report.retries()) line([r.to, r.reason, r.code, r.index, r.wamid]);
  }
}
