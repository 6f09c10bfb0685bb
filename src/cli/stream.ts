import { once } from 'node:events';
import { createWriteStream, type WriteStream } from 'node:fs';
import { open, rename, rm, stat } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { PlatformClient, type PlatformClientOptions } from '../platform/client.js';
import type { StreamRangeQuery } from '../platform/stream-range.js';
import { cliLogger } from './cli-logger.js';
import { asUsage, type CliIo, EXIT, UsageError } from './io.js';
import { parseIsoTime } from './iso-time.js';
import { printable } from './printable.js';

export const usage = `Usage: wa-gateway stream --from <iso date-time> [--to <iso date-time>] --out <file.ndjson> [--resume] [filters]

Exports every platform message of a date range to an NDJSON file, one record a line, in created_at order.
Ranges longer than the stream's one-week limit, and windows over its 100,000-message cap, are requested
piece by piece with no gap and no duplicate. Writes <file>.part and renames it when complete; prints progress
on stderr. Exit 0 when complete, 1 on a failure (it prints the command that resumes), 2 on a usage error.

  --from            start, inclusive (ISO 8601, e.g. 2024-01-01T00:00:00Z)
  --to              end, inclusive (default: now)
  --out             the file to write
  --resume          continue <file>.part after its last complete record, with no record twice (give the
                    same range and filters as the run that stopped)
  --channel         only this channel UUID
  --conversation    only this conversation UUID
  --type            text | media | location
  --sender          agent | customer

Credentials come from the environment: PLATFORM_URL, STREAM_URL, and PLATFORM_USERNAME with
PLATFORM_PASSWORD, or PLATFORM_TOKEN.`;

export const options = {
  from: { type: 'string' },
  to: { type: 'string' },
  out: { type: 'string' },
  resume: { type: 'boolean' },
  channel: { type: 'string' },
  conversation: { type: 'string' },
  type: { type: 'string' },
  sender: { type: 'string' },
} as const;

/** Where a `.part` file stops: its last complete record's instant and the ids written at that millisecond. */
interface PartTail {
  lastCreatedAt: string;
  lastMs: number;
  ids: Set<unknown>;
}

/**
 * Reads the end of a `.part` file, cuts a last line left incomplete by the failure, and returns where it
 * stops. Reads backwards in growing chunks: a multi-gigabyte export is not loaded to resume it.
 */
async function readPartTail(path: string): Promise<PartTail | undefined> {
  const handle = await open(path, 'r+');
  try {
    const { size } = await handle.stat();
    let window = 64 * 1024;
    for (;;) {
      const start = Math.max(0, size - window);
      const buffer = Buffer.alloc(size - start);
      await handle.read(buffer, 0, buffer.length, start);
      const text = buffer.toString('utf8');
      const end = text.lastIndexOf('\n');
      if (end === -1 && start === 0) {
        await handle.truncate(0);
        return undefined;
      }
      if (end !== -1) {
        // Lines in the window: the first may be cut by the window's start, unless the window is the whole file.
        const lines = text.slice(0, end).split('\n');
        if (start > 0) lines.shift();
        const records = lines.filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as PartRecord);
        const last = records.at(-1);
        if (last) {
          const lastMs = Date.parse(last.created_at);
          const sameInstant = records.filter((r) => Date.parse(r.created_at) === lastMs);
          if (sameInstant.length < records.length || start === 0) {
            await handle.truncate(start + Buffer.byteLength(text.slice(0, end + 1)));
            return { lastCreatedAt: last.created_at, lastMs, ids: new Set(sameInstant.map((r) => r.id)) };
          }
        }
      }
      if (start === 0) return undefined;
      window *= 4;
    }
  } finally {
    await handle.close();
  }
}

interface PartRecord {
  id: unknown;
  created_at: string;
}

/** Error messages end with their own period; the CLI's sentences add theirs. */
const sentence = (text: string) => text.replace(/[.\s]+$/, '');

/** `wa-gateway stream`: exports a date range of platform messages to NDJSON (see `usage`). */
export async function streamCommand(args: string[], io: CliIo): Promise<number> {
  const values = parseStreamArgs(args);
  const config = platformConfig(io);
  const partial = `${values.out}.part`;
  const tail = values.resume ? await resumePoint(partial) : undefined;
  // Fixed once, so that the resume command printed on a failure asks for exactly the same range.
  const to = values.to ?? new Date().toISOString();
  const from = tail && tail.lastMs > Date.parse(values.from) ? tail.lastCreatedAt : values.from;

  // A PLATFORM_URL or STREAM_URL the client refuses is a mistake in how the command was called, as a missing one is.
  const platform = asUsage(() => new PlatformClient(config), {
    platformUrl: '$PLATFORM_URL',
    streamUrl: '$STREAM_URL',
  });
  const query = rangeQuery(values, from, to);
  const stop = new AbortController();
  void io.interrupted.then(() => stop.abort(new Error('interrupted')));
  const progress = new ProgressLine(io);
  if (tail) io.stderr(`resuming ${partial} after ${tail.lastCreatedAt}\n`);
  const records = startRange(platform, query, stop.signal, progress);
  const part = new PartFile(partial, tail !== undefined);
  try {
    await writeRecords(records, tail, part, progress);
    await rename(partial, values.out);
    progress.show(true);
    io.stdout(`wrote ${progress.count} ${tail ? 'more ' : ''}messages to ${values.out}\n`);
    return EXIT.ok;
  } catch (error) {
    return stopped(error, { values, to, tail, part, progress, io });
  }
}

type StreamValues = ReturnType<typeof parseStreamArgs>;

/** The command's flags, with the usage errors a mistake in them makes. */
function parseStreamArgs(args: string[]) {
  const { values, positionals } = parseArgs({ args, options, allowPositionals: true });
  if (positionals.length > 0)
    throw new UsageError(`stream takes no positional arguments; got '${positionals[0]}'.`);
  if (!values.from)
    throw new UsageError('--from is required: the start of the range, e.g. 2024-01-01T00:00:00Z.');
  if (!values.out) throw new UsageError('--out is required: the NDJSON file to write.');
  for (const flag of ['from', 'to'] as const) {
    const value = values[flag];
    if (value !== undefined && Number.isNaN(parseIsoTime(value))) {
      throw new UsageError(
        `--${flag} takes an ISO 8601 date or date-time, e.g. 2024-01-01T00:00:00Z or 2024-01-01; got '${value}'.`,
      );
    }
  }
  return { ...values, from: values.from, out: values.out };
}

/** The platform's addresses and credentials from the environment; a usage error names all that is missing. */
function platformConfig(io: CliIo): PlatformClientOptions {
  const env = io.env;
  const missing = ['PLATFORM_URL', 'STREAM_URL'].filter((name) => !env[name]);
  let username = env['PLATFORM_USERNAME'];
  if (!username && env['PLATFORM_USER']) {
    io.stderr('warning: PLATFORM_USER is deprecated; name it PLATFORM_USERNAME.\n');
    username = env['PLATFORM_USER'];
  }
  const password = env['PLATFORM_PASSWORD'];
  const token = env['PLATFORM_TOKEN'];
  if (!token && !(username && password))
    missing.push('PLATFORM_USERNAME and PLATFORM_PASSWORD (or PLATFORM_TOKEN)');
  if (missing.length > 0) throw new UsageError(`missing from the environment: ${missing.join(', ')}.`);
  return {
    platformUrl: env['PLATFORM_URL']!,
    streamUrl: env['STREAM_URL']!,
    ...(token ? { token } : { username: username!, password: password! }),
    logger: cliLogger(io, 'stream'),
  };
}

/** Where `--resume` continues the `.part` file (which it cuts after its last complete record). */
async function resumePoint(partial: string): Promise<PartTail | undefined> {
  const exists = await stat(partial).then(
    () => true,
    () => false,
  );
  if (!exists) throw new UsageError(`--resume: there is no ${partial} to continue.`);
  try {
    return await readPartTail(partial);
  } catch (error) {
    throw new UsageError(
      `--resume: ${partial} cannot be read as NDJSON records (${sentence(String(error))}).`,
    );
  }
}

function rangeQuery(values: StreamValues, from: string, to: string): StreamRangeQuery {
  return {
    from,
    to,
    ...(values.channel ? { channel: values.channel } : {}),
    ...(values.conversation ? { conversation_uuid: values.conversation } : {}),
    ...(values.type ? { type: values.type as StreamRangeQuery['type'] } : {}),
    ...(values.sender ? { sender: values.sender as StreamRangeQuery['sender'] } : {}),
  };
}

/**
 * The progress line on stderr. A terminal gets one line rewritten in place; a CI log or a pipe gets plain
 * lines, less often.
 */
class ProgressLine {
  /** Records this run wrote: the records a resume skips are left out. */
  count = 0;
  /** `created_at` of the last record delivered. */
  last: string | undefined = undefined;
  private shownAt = 0;
  private readonly io: CliIo;
  private readonly tty: boolean;

  constructor(io: CliIo) {
    this.io = io;
    this.tty = io.stderrIsTTY === true;
  }

  show(final = false): void {
    const now = performance.now();
    if (!final && now - this.shownAt < (this.tty ? 250 : 5000)) return;
    this.shownAt = now;
    const line = `${this.count.toLocaleString('en-US')} messages${this.last ? `, up to ${this.last}` : ''}`;
    this.io.stderr(this.tty ? `\r${line}${final ? '\n' : ''}` : `${line}\n`);
  }
}

/** Starts the range. Its argument checks throw at the call: a bad filter is a usage error, not a failure. */
function startRange(
  platform: PlatformClient,
  query: StreamRangeQuery,
  signal: AbortSignal,
  progress: ProgressLine,
): AsyncGenerator<PartRecord> {
  try {
    // The SDK's own progress callback drives the progress line (called once writeRecords wrote the record);
    // `count` stays writeRecords', which leaves out the records a resume skips.
    return platform.messages.streamRange(query, {
      signal,
      onProgress: (p) => {
        progress.last = p.lastCreatedAt ?? progress.last;
        progress.show();
      },
    });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}

/** The `.part` file, opened at the first record: a failed login leaves no empty `.part` behind. */
class PartFile {
  readonly path: string;
  file: WriteStream | undefined = undefined;
  /** Whether the file was created (or, on a resume, opened). */
  opened = false;
  private readonly append: boolean;

  constructor(path: string, append: boolean) {
    this.path = path;
    this.append = append;
  }

  async open(): Promise<WriteStream> {
    const stream = createWriteStream(this.path, { flags: this.append ? 'a' : 'w' });
    this.file = stream;
    await once(stream, 'open');
    this.opened = true;
    return stream;
  }
}

/** Writes each record as a line with back pressure, then closes the file. */
async function writeRecords(
  records: AsyncGenerator<PartRecord>,
  tail: PartTail | undefined,
  part: PartFile,
  progress: ProgressLine,
): Promise<void> {
  for await (const record of records) {
    // Resuming from the last record's instant sends that millisecond's records again: skip those written.
    if (tail && Date.parse(record.created_at) === tail.lastMs && tail.ids.has(record.id)) continue;
    const target = part.file ?? (await part.open());
    progress.count++;
    if (!target.write(`${JSON.stringify(record)}\n`)) await once(target, 'drain');
  }
  const target = part.file ?? (await part.open());
  await new Promise<void>((resolve, reject) =>
    target.end((error?: Error | null) => (error ? reject(error) : resolve())),
  );
}

/** An export that stopped, as the failure message needs it. */
interface Stopped {
  values: StreamValues;
  to: string;
  tail: PartTail | undefined;
  part: PartFile;
  progress: ProgressLine;
  io: CliIo;
}

/** Closes the file, says why the export stopped and, if records were kept, the command that resumes. */
async function stopped(error: unknown, { values, to, tail, part, progress, io }: Stopped): Promise<number> {
  progress.show(true);
  const { file, path } = part;
  if (file) await new Promise<void>((resolve) => file.end(() => resolve()));
  // The platform's words may be in the message: escaped, as every line quoting a server is.
  const why = printable(sentence(error instanceof Error ? error.message : String(error)));
  if (!part.opened) {
    // Either nothing arrived or the file could not be opened: no new record is anywhere, say so. On a resume the
    // file holds the earlier records, so it is never removed here.
    if (file && !tail) await rm(path, { force: true }).catch(() => undefined);
    const kept = tail ? ` ${path} is as it was.` : ' No file was written.';
    io.stderr(`stream stopped after ${progress.count} messages: ${why}.${kept}\n`);
    return EXIT.failed;
  }
  io.stderr(
    `stream stopped after ${progress.count} messages: ${why}. The records so far are in ${path}.\n` +
      `Resume with: ${resumeCommand(values, to)}\n`,
  );
  return EXIT.failed;
}

/** The command that continues a stopped export: the same range and filters, with `--resume`. */
function resumeCommand(values: StreamValues, to: string): string {
  return [
    'wa-gateway stream --resume',
    `--from ${shellQuoted(values.from)}`,
    `--to ${shellQuoted(to)}`,
    `--out ${shellQuoted(values.out)}`,
    ...(['channel', 'conversation', 'type', 'sender'] as const)
      .filter((f) => values[f])
      .map((f) => `--${f} ${shellQuoted(values[f]!)}`),
  ].join(' ');
}

/**
 * A value as a POSIX shell reads it back whole: as it is when it holds only characters no shell treats specially,
 * else in single quotes, an embedded `'` written `'\''`. A pasted resume command then opens the same path, even
 * one with a space or a `;`.
 */
export function shellQuoted(value: string): string {
  return /^[A-Za-z0-9_./:+=@%,-]+$/.test(value) ? value : `'${value.replaceAll("'", "'\\''")}'`;
}
