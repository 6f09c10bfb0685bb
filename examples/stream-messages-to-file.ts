/**
 * Exporting every message of a date range from the conversation platform to an NDJSON file.
 *
 * Shows: `messages.streamRange`, which lifts the stream's per-request limits (one week, 100,000 messages) by
 * requesting week-long windows one after another without gaps or duplicates at their edges; back pressure from
 * the disk to the socket; a progress line; a partial file that never looks complete.
 *
 * Run:  PLATFORM_URL=https://platform.example.com STREAM_URL=https://stream.example.com \
 *       PLATFORM_USERNAME=... PLATFORM_PASSWORD=... \
 *         npx tsx examples/stream-messages-to-file.ts --from 2024-01-01T00:00:00Z [--to <iso>] [--out messages.ndjson]
 *       (PLATFORM_TOKEN instead of username and password works too; --channel <uuid> narrows to one channel)
 *
 * In your app, import from 'wa-gateway-sdk' instead of '../src/platform/index.js'.
 */
import { createWriteStream } from 'node:fs';
import { rename } from 'node:fs/promises';
import { resolve } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { type Instant, PlatformClient, type PlatformClientOptions } from '../src/index.js';

export interface ExportProgress {
  /** Messages written so far. */
  count: number;
  /** `created_at` of the last message written: where to resume after a failure. */
  lastCreatedAt: string | undefined;
}

export interface ExportOptions {
  client: PlatformClientOptions;
  from: Instant;
  to: Instant;
  /** The NDJSON file. Written as `<out>.part` and renamed when complete. */
  out: string;
  channel?: string;
  signal?: AbortSignal;
  /** Called at most every `progressEveryMs` (default 500) and once at the end. */
  onProgress?: (progress: ExportProgress) => void;
  progressEveryMs?: number;
}

export async function main(options: ExportOptions): Promise<ExportProgress & { path: string }> {
  const platform = new PlatformClient(options.client);
  const progress: ExportProgress = { count: 0, lastCreatedAt: undefined };
  const every = options.progressEveryMs ?? 500;
  let reportedAt = 0;

  const records = platform.messages.streamRange(
    { from: options.from, to: options.to, ...(options.channel ? { channel: options.channel } : {}) },
    { signal: options.signal },
  );
  // pipeline pulls a line only when the file stream wants one, the generator pulls a record from streamRange only
  // then, and streamRange reads the socket only as records are pulled: a slow disk slows the download instead of
  // filling memory.
  async function* lines(): AsyncGenerator<string> {
    for await (const message of records) {
      progress.count++;
      progress.lastCreatedAt = message.created_at;
      if (performance.now() - reportedAt >= every) {
        reportedAt = performance.now();
        options.onProgress?.({ ...progress });
      }
      yield `${JSON.stringify(message)}\n`;
    }
  }

  // If the stream fails half-way (a StreamError, a timeout, Ctrl-C), the `.part` file keeps every complete record
  // so far: resume with --from at `lastCreatedAt` and drop the few repeated ids.
  const partial = `${options.out}.part`;
  await pipeline(lines, createWriteStream(partial));
  await rename(partial, options.out);
  options.onProgress?.({ ...progress });
  return { ...progress, path: options.out };
}

/** Credentials from the environment: a token, or a username and password (the client logs in by itself). */
function clientFromEnv(): PlatformClientOptions {
  const env = (name: string): string | undefined => process.env[name] || undefined;
  const platformUrl = env('PLATFORM_URL');
  const streamUrl = env('STREAM_URL');
  if (!platformUrl || !streamUrl) throw new Error('Set PLATFORM_URL and STREAM_URL.');
  const token = env('PLATFORM_TOKEN');
  const username = env('PLATFORM_USERNAME');
  const password = env('PLATFORM_PASSWORD');
  if (!token && !(username && password)) {
    throw new Error('Set PLATFORM_TOKEN, or PLATFORM_USERNAME and PLATFORM_PASSWORD.');
  }
  return { platformUrl, streamUrl, ...(token ? { token } : { username, password }) };
}

function isMain(moduleUrl: string): boolean {
  const script = process.argv[1];
  return script !== undefined && pathToFileURL(resolve(script)).href === moduleUrl;
}

if (isMain(import.meta.url)) {
  const { values } = parseArgs({
    options: {
      from: { type: 'string' },
      to: { type: 'string' },
      out: { type: 'string', default: 'messages.ndjson' },
      channel: { type: 'string' },
    },
  });
  if (!values.from) {
    console.error(
      'Usage: npx tsx examples/stream-messages-to-file.ts --from <iso> [--to <iso>] [--out <file>]',
    );
    process.exit(2);
  }
  const stop = new AbortController();
  process.once('SIGINT', () => stop.abort(new Error('stopped by Ctrl-C')));
  const tty = process.stderr.isTTY;
  const show = ({ count, lastCreatedAt }: ExportProgress) =>
    process.stderr.write(
      `${tty ? '\r' : ''}${count} messages, up to ${lastCreatedAt ?? '-'}${tty ? '' : '\n'}`,
    );
  try {
    const done = await main({
      client: clientFromEnv(),
      from: values.from,
      to: values.to ?? new Date(),
      out: values.out,
      ...(values.channel ? { channel: values.channel } : {}),
      signal: stop.signal,
      onProgress: show,
    });
    console.error(`${tty ? '\n' : ''}wrote ${done.count} messages to ${done.path}`);
  } catch (error) {
    console.error(`\nexport stopped: ${error instanceof Error ? error.message : String(error)}`);
    console.error(`complete records so far are in ${values.out}.part`);
    process.exitCode = 1;
  }
}
