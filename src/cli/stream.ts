import { once } from 'node:events';
import { createWriteStream, type WriteStream } from 'node:fs';
import { open, rename, rm, stat } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { PlatformClient } from '../platform/client.js';
import type { StreamRangeQuery } from '../platform/stream-range.js';
import { type CliIo, EXIT, UsageError } from './io.js';

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

export async function streamCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({ args, options, allowPositionals: true });
  if (positionals.length > 0)
    throw new UsageError(`stream takes no positional arguments; got '${positionals[0]}'.`);
  if (!values.from)
    throw new UsageError('--from is required: the start of the range, e.g. 2024-01-01T00:00:00Z.');
  if (!values.out) throw new UsageError('--out is required: the NDJSON file to write.');
  for (const flag of ['from', 'to'] as const) {
    const value = values[flag];
    if (value !== undefined && Number.isNaN(Date.parse(value))) {
      throw new UsageError(`--${flag} is not an ISO 8601 date-time: '${value}'.`);
    }
  }
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

  const out = values.out;
  const partial = `${out}.part`;
  let tail: PartTail | undefined;
  if (values.resume) {
    const exists = await stat(partial).then(
      () => true,
      () => false,
    );
    if (!exists) throw new UsageError(`--resume: there is no ${partial} to continue.`);
    try {
      tail = await readPartTail(partial);
    } catch (error) {
      throw new UsageError(
        `--resume: ${partial} cannot be read as NDJSON records (${sentence(String(error))}).`,
      );
    }
  }
  // Fixed once, so that the resume command printed on a failure asks for exactly the same range.
  const to = values.to ?? new Date().toISOString();
  const from = tail && tail.lastMs > Date.parse(values.from) ? tail.lastCreatedAt : values.from;

  const platform = new PlatformClient({
    platformUrl: env['PLATFORM_URL']!,
    streamUrl: env['STREAM_URL']!,
    ...(token ? { token } : { username: username!, password: password! }),
  });
  const query: StreamRangeQuery = {
    from,
    to,
    ...(values.channel ? { channel: values.channel } : {}),
    ...(values.conversation ? { conversation_uuid: values.conversation } : {}),
    ...(values.type ? { type: values.type as StreamRangeQuery['type'] } : {}),
    ...(values.sender ? { sender: values.sender as StreamRangeQuery['sender'] } : {}),
  };

  const stop = new AbortController();
  void io.interrupted.then(() => stop.abort(new Error('interrupted')));
  let count = 0;
  let last: string | undefined;
  let shownAt = 0;
  // A terminal gets one line rewritten in place; a CI log or a pipe gets plain lines, less often.
  const tty = io.stderrIsTTY === true;
  const show = (final = false) => {
    const now = performance.now();
    if (!final && now - shownAt < (tty ? 250 : 5000)) return;
    shownAt = now;
    const line = `${count.toLocaleString('en-US')} messages${last ? `, up to ${last}` : ''}`;
    io.stderr(tty ? `\r${line}${final ? '\n' : ''}` : `${line}\n`);
  };
  if (tail) io.stderr(`resuming ${partial} after ${tail.lastCreatedAt}\n`);
  // The argument checks of streamRange throw at the call: a bad filter is a usage error, not a failure.
  let records: AsyncGenerator<{ id: unknown; created_at: string }>;
  try {
    // The SDK's own progress callback drives the progress line (called once the loop below wrote the record);
    // `count` stays the loop's, which leaves out the records a resume skips.
    records = platform.messages.streamRange(query, {
      signal: stop.signal,
      onProgress: (p) => {
        last = p.lastCreatedAt ?? last;
        show();
      },
    });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }

  // The file is opened at the first record: a failed login leaves no empty .part behind.
  let file: WriteStream | undefined;
  let opened = false;
  const openFile = async (): Promise<WriteStream> => {
    const stream = createWriteStream(partial, { flags: tail ? 'a' : 'w' });
    file = stream;
    await once(stream, 'open');
    opened = true;
    return stream;
  };
  try {
    for await (const record of records) {
      // Resuming from the last record's instant sends that millisecond's records again: skip those written.
      if (tail && Date.parse(record.created_at) === tail.lastMs && tail.ids.has(record.id)) continue;
      const target = file ?? (await openFile());
      count++;
      if (!target.write(`${JSON.stringify(record)}\n`)) await once(target, 'drain');
    }
    const target = file ?? (await openFile());
    await new Promise<void>((resolve, reject) =>
      target.end((error?: Error | null) => (error ? reject(error) : resolve())),
    );
    await rename(partial, out);
    show(true);
    io.stdout(`wrote ${count} ${tail ? 'more ' : ''}messages to ${out}\n`);
    return EXIT.ok;
  } catch (error) {
    show(true);
    if (file) await new Promise<void>((resolve) => file!.end(() => resolve()));
    const why = sentence(error instanceof Error ? error.message : String(error));
    if (!opened) {
      // Either nothing arrived or the file could not be created: no record is anywhere, say so.
      if (file) await rm(partial, { force: true }).catch(() => undefined);
      const kept = tail ? ` ${partial} is as it was.` : ' No file was written.';
      io.stderr(`stream stopped after ${count} messages: ${why}.${kept}\n`);
      return EXIT.failed;
    }
    const again = [
      'wa-gateway stream --resume',
      `--from ${values.from}`,
      `--to ${to}`,
      `--out ${out}`,
      ...(['channel', 'conversation', 'type', 'sender'] as const)
        .filter((f) => values[f])
        .map((f) => `--${f} ${values[f]}`),
    ].join(' ');
    io.stderr(
      `stream stopped after ${count} messages: ${why}. The records so far are in ${partial}.\n` +
        `Resume with: ${again}\n`,
    );
    return EXIT.failed;
  }
}
