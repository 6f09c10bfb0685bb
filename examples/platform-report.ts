/**
 * A weekly activity report from the conversation platform, printed as small tables.
 *
 * Shows: an explicit `auth.login()` (a wrong password fails at once with the server's reasons, rather than on the
 * first report), `reports.get({ date_range: 'last_7', ... })` for two sections in parallel on one login, and
 * `stats.get()` turned into account and per-agent response times by `summarizeStats`.
 *
 * Run:  PLATFORM_URL=https://platform.example.com STREAM_URL=https://stream.example.com \
 *       PLATFORM_USERNAME=... PLATFORM_PASSWORD=... npx tsx examples/platform-report.ts
 *
 * In your app, import from 'wa-gateway-sdk' instead of '../src/platform/index.js'.
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  LoginFailedError,
  type PeriodAverages,
  PlatformClient,
  type PlatformClientOptions,
  STATS_PERIODS,
  summarizeStats,
} from '../src/index.js';

/** Left-aligned first column, right-aligned numbers. */
function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

/** Response times are in seconds; `null` means nobody was answered in that period, which is not 0 s. */
function duration(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined) return '-';
  const s = Math.round(seconds);
  return s < 60 ? `${s}s` : `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, '0')}s`;
}

const at = (averages: PeriodAverages, period: keyof PeriodAverages) => duration(averages[period]);

export async function main(options: { client: PlatformClientOptions }): Promise<string> {
  const platform = new PlatformClient(options.client);
  const out: string[] = [];

  if (options.client.username !== undefined) {
    // The result holds the token too (redacted in console.log and JSON): nothing here needs it.
    const { accountUuid, otp, expiresAt } = await platform.auth.login();
    out.push(
      `logged in: account ${accountUuid ?? '?'}, token valid until ${new Date(expiresAt).toISOString()}`,
    );
    if (otp) out.push('warning: this account has one-time passwords enabled; calls may be refused');
  }

  // One login serves both: concurrent calls share it.
  const [messages, responseTimes] = await Promise.all([
    platform.reports.get({ date_range: 'last_7', trunc: 'day', data: 'messages' }),
    platform.reports.get({ date_range: 'last_7', trunc: 'day', data: 'response_times' }),
  ]);
  const frtByDate = new Map((responseTimes.response_times ?? []).map((r) => [r.date, r]));
  out.push(
    '',
    'Last 7 days',
    table(
      ['date', 'incoming', 'outgoing', 'total', 'first response', 'avg response'],
      (messages.messages ?? []).map((d) => [
        d.date,
        String(d.incoming_messages),
        String(d.outgoing_messages),
        String(d.total_messages),
        duration(frtByDate.get(d.date)?.first_response_time),
        duration(frtByDate.get(d.date)?.avg_response_time),
      ]),
    ),
  );

  // summarizeStats sums `sum` and `count` over channels before dividing: averaging each channel's average would
  // weigh a quiet channel like a busy one.
  const stats = summarizeStats(await platform.stats.get());
  out.push(
    '',
    'All channels',
    table(
      ['period', 'received', 'sent', 'first response', 'avg response'],
      STATS_PERIODS.map((p) => [
        p,
        String(stats.messages.received[p]),
        String(stats.messages.sent[p]),
        at(stats.frt, p),
        at(stats.art, p),
      ]),
    ),
    '',
    'Agents, today',
    table(
      ['agent', 'joined', 'sent', 'first response', 'avg response'],
      stats.agents.map((a) => [
        a.name ?? a.uuid,
        String(a.joined.today),
        String(a.sent.today),
        at(a.frt, 'today'),
        at(a.art, 'today'),
      ]),
    ),
  );
  return out.join('\n');
}

function isMain(moduleUrl: string): boolean {
  const script = process.argv[1];
  return script !== undefined && pathToFileURL(resolve(script)).href === moduleUrl;
}

if (isMain(import.meta.url)) {
  const env = (name: string): string | undefined => process.env[name] || undefined;
  const platformUrl = env('PLATFORM_URL');
  const streamUrl = env('STREAM_URL');
  const username = env('PLATFORM_USERNAME');
  const password = env('PLATFORM_PASSWORD');
  const token = env('PLATFORM_TOKEN');
  if (!platformUrl || !streamUrl || !(token || (username && password))) {
    console.error(
      'Set PLATFORM_URL, STREAM_URL and PLATFORM_USERNAME + PLATFORM_PASSWORD (or PLATFORM_TOKEN).',
    );
    process.exit(2);
  }
  try {
    console.log(
      await main({ client: { platformUrl, streamUrl, ...(token ? { token } : { username, password }) } }),
    );
  } catch (error) {
    // The server's own reasons (`non_field_errors`), scrubbed of credentials by the SDK.
    if (error instanceof LoginFailedError) console.error(`login refused: ${error.reasons.join(' ')}`);
    else throw error;
    process.exitCode = 1;
  }
}
