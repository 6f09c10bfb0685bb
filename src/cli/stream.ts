import { createWriteStream } from 'node:fs';
import { rename } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { parseArgs } from 'node:util';
import { PlatformClient } from '../platform/client.js';
import type { StreamRangeQuery } from '../platform/stream-range.js';
import { type CliIo, EXIT, UsageError } from './io.js';

export const usage = `Usage: wa-gateway stream --from <iso date-time> [--to <iso date-time>] --out <file.ndjson> [filters]

Exports every platform message of a date range to an NDJSON file, one record a line, in created_at order.
Ranges longer than the stream's one-week limit, and windows over its 100,000-message cap, are requested
piece by piece with no gap and no duplicate. Writes <file>.part and renames it when complete; prints progress
on stderr. Exit 0 when complete, 1 on a failure (it says how to resume), 2 on a usage error.

  --from            start, inclusive (ISO 8601, e.g. 2024-01-01T00:00:00Z)
  --to              end, inclusive (default: now)
  --out             the file to write
  --channel         only this channel UUID
  --conversation    only this conversation UUID
  --type            text | media | location
  --sender          agent | customer

Credentials come from the environment: PLATFORM_URL, STREAM_URL, and PLATFORM_USERNAME with
PLATFORM_PASSWORD, or PLATFORM_TOKEN.`;

export async function streamCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: {
      from: { type: 'string' },
      to: { type: 'string' },
      out: { type: 'string' },
      channel: { type: 'string' },
      conversation: { type: 'string' },
      type: { type: 'string' },
      sender: { type: 'string' },
    },
    allowPositionals: true,
  });
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
  const username = env['PLATFORM_USERNAME'];
  const password = env['PLATFORM_PASSWORD'];
  const token = env['PLATFORM_TOKEN'];
  if (!token && !(username && password))
    missing.push('PLATFORM_USERNAME and PLATFORM_PASSWORD (or PLATFORM_TOKEN)');
  if (missing.length > 0) throw new UsageError(`missing from the environment: ${missing.join(', ')}.`);

  const platform = new PlatformClient({
    platformUrl: env['PLATFORM_URL']!,
    streamUrl: env['STREAM_URL']!,
    ...(token ? { token } : { username: username!, password: password! }),
  });
  const query: StreamRangeQuery = {
    from: values.from,
    to: values.to ?? new Date(),
    ...(values.channel ? { channel: values.channel } : {}),
    ...(values.conversation ? { conversation_uuid: values.conversation } : {}),
    ...(values.type ? { type: values.type as StreamRangeQuery['type'] } : {}),
    ...(values.sender ? { sender: values.sender as StreamRangeQuery['sender'] } : {}),
  };

  const stop = new AbortController();
  void io.interrupted.then(() => stop.abort(new Error('interrupted')));
  const partial = `${values.out}.part`;
  let count = 0;
  let last: string | undefined;
  let shownAt = 0;
  const show = (final = false) => {
    const now = performance.now();
    if (!final && now - shownAt < 250) return;
    shownAt = now;
    io.stderr(
      `\r${count.toLocaleString('en-US')} messages${last ? `, up to ${last}` : ''}${final ? '\n' : ''}`,
    );
  };
  // The argument checks of streamRange throw at the call: a bad filter is a usage error, not a failure.
  let records: AsyncGenerator<{ created_at: string }>;
  try {
    records = platform.messages.streamRange(query, { signal: stop.signal });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  async function* lines(): AsyncGenerator<string> {
    for await (const record of records) {
      count++;
      last = record.created_at;
      show();
      yield `${JSON.stringify(record)}\n`;
    }
  }
  try {
    await pipeline(lines, createWriteStream(partial));
    await rename(partial, values.out);
    show(true);
    io.stdout(`wrote ${count} messages to ${values.out}\n`);
    return EXIT.ok;
  } catch (error) {
    show(true);
    const why = error instanceof Error ? error.message : String(error);
    const resume = last ? ` Resume with --from ${last} (records at that instant may repeat).` : '';
    io.stderr(
      `stream stopped after ${count} messages: ${why}.${resume} The records so far are in ${partial}.\n`,
    );
    return EXIT.failed;
  }
}
