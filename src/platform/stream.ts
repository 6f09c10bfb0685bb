import { REQUEST_KEYS, type RequestOptions, requestOf } from '../core/call-options.js';
import { durationMs } from '../core/duration.js';
import { headerValue } from '../core/headers.js';
import { type OptionKeys, refuseNearMisses } from '../core/option-keys.js';
import { tracedRecords, tracingLoaded } from '../core/tracing.js';
import type { QueryParams } from '../core/transport-request.js';
import { argumentsCheck, optionsOf, toWire } from './arguments.js';
import type { PlatformHttp } from './http.js';
import { type StreamMessage, type StreamQuery, streamQuerySchema } from './stream.schema.js';
import {
  type DecodeState,
  fullCheck,
  lightCheck,
  NdjsonLines,
  type Progress,
  parseLine,
  sseRecords,
} from './stream-decoding.js';

const STREAM_PATH = '/stream/messages/';

export { STREAM_MAX_SPAN_MS } from './stream.schema.js';

export interface StreamOptions extends RequestOptions {
  /** Cancels the request and the stream; the connection is closed. */
  signal?: AbortSignal | undefined;
  /** Time allowed until the answer's headers arrive. The body then streams at its own pace. */
  timeoutMs?: number | undefined;
  /**
   * The longest the server may stay silent while you wait for the next record; past it the stream ends in a
   * `StreamInterruptedError` whose `cause` is a `TimeoutError`. Time you spend between records does not
   * count: a slow consumer is never taken for a silent server. Default: the request timeout (this call's
   * `timeoutMs`, else the client's).
   */
  idleTimeoutMs?: number | undefined;
  /**
   * `'light'` (default) checks that each record is an object with a numeric `id` and a string `created_at`;
   * `'full'` parses each with the zod schema of `StreamMessage`, at a cost per record: docs/benchmarks.md has both
   * throughputs against a bare `JSON.parse` loop.
   */
  validate?: 'light' | 'full' | undefined;
}

/** `messages.stream`'s options, every one (see `OptionKeys`); `streamRange`'s take these and its own. */
export const STREAM_KEYS = [...REQUEST_KEYS, 'idleTimeoutMs', 'validate'] as const;
const streamKeys: OptionKeys<StreamOptions, typeof STREAM_KEYS> = STREAM_KEYS;

/** @internal Checks the arguments of `messages.stream` now, so that a mistake throws at the call, not at the first pull. */
export function streamMessages(
  http: PlatformHttp,
  query: StreamQuery,
  given: StreamOptions,
): AsyncGenerator<StreamMessage, void, undefined> {
  const options = optionsOf(given);
  refuseNearMisses(options, streamKeys, 'messages.stream');
  const q = argumentsCheck(streamQuerySchema, query, 'messages.stream query');
  checkStreamOptions(options);
  const wire: QueryParams = {
    ...q,
    created_at__gt: q.created_at__gt === undefined ? undefined : toWire(q.created_at__gt),
    created_at__lt: q.created_at__lt === undefined ? undefined : toWire(q.created_at__lt),
  };
  const records = requestRecords(http, wire, options);
  if (!tracingLoaded()) return records;
  return tracedRecords('wa-gateway stream', streamSpanAttributes(http), records, () => ({
    'wa_gateway.stream.requests': 1,
  }));
}

/** @internal The HTTP attributes of a stream's span (`messages.stream`, `streamRange`). */
export function streamSpanAttributes(http: PlatformHttp): Record<string, string> {
  return { 'http.request.method': 'GET', 'server.address': http.hostName('stream'), 'url.path': STREAM_PATH };
}

export function checkStreamOptions(options: StreamOptions): void {
  if (options.timeoutMs !== undefined) durationMs(options.timeoutMs, 'timeoutMs');
  if (options.idleTimeoutMs !== undefined) durationMs(options.idleTimeoutMs, 'idleTimeoutMs');
}

/**
 * One `GET /stream/messages/` request, decoded as the records are pulled. `progress` is what an error
 * reports as delivered; by default, this request's records.
 *
 * A real async generator, whose `next` takes a shortcut: while the generator waits at its NDJSON `yield` and
 * the chunk already read holds the next line, `next` parses it and answers at once, without resuming the
 * generator. An async generator's `yield` costs a promise and an extra turn per record, half the SDK's cost
 * over a bare split-and-parse loop (bench/stream.bench.ts). Everything else (the request, the first record,
 * reading the next chunk, an abort, `return`, `throw`, SSE, the end) goes through the generator as written,
 * and a line that fails is thrown into it at its `yield`, so its `finally` closes the connection as before.
 *
 * @internal
 */
export function requestRecords(
  http: PlatformHttp,
  query: QueryParams,
  options: StreamOptions,
  progress?: () => Progress,
): AsyncGenerator<StreamMessage, void, undefined> {
  const hot: Hot = { lines: undefined, parked: false };
  const records = decodeRecords(http, query, options, progress, hot);
  const resume = records.next.bind(records);
  let resuming = 0;
  const slow = (): Promise<IteratorResult<StreamMessage, void>> => {
    resuming++;
    return resume().finally(() => {
      resuming--;
    });
  };
  records.next = () => {
    const lines = hot.lines;
    // Only while parked at the NDJSON yield with no earlier pull in flight: calls stay in order.
    if (!hot.parked || resuming > 0 || lines === undefined || lines.state.signal?.aborted) return slow();
    for (;;) {
      const line = lines.take();
      if (line === undefined) return slow();
      let record: StreamMessage | undefined;
      try {
        record = parseLine(line, lines.state);
      } catch (error) {
        return records.throw(error);
      }
      if (record === undefined) continue;
      lines.state.delivered++;
      lines.state.last = record;
      return Promise.resolve({ value: record, done: false });
    }
  };
  return records;
}

/** What `requestRecords`' generator shares with its `next`: its lines, and whether it waits at their `yield`. */
interface Hot {
  lines: NdjsonLines | undefined;
  parked: boolean;
}

async function* decodeRecords(
  http: PlatformHttp,
  query: QueryParams,
  options: StreamOptions,
  progress: (() => Progress) | undefined,
  hot: Hot,
): AsyncGenerator<StreamMessage, void, undefined> {
  const response = await http.open('stream', {
    method: 'GET',
    path: STREAM_PATH,
    query,
    ...requestOf(options),
    onRetryWait: (options as { onRetryWait?: (ms: number) => void }).onRetryWait,
    idleTimeoutMs: options.idleTimeoutMs,
    accept: 'application/x-ndjson, text/event-stream;q=0.9, */*;q=0.8',
  });
  const reader = response.body?.getReader();
  if (!reader) return;
  const state: DecodeState = {
    delivered: 0,
    last: undefined,
    unit: 0,
    signal: options.signal,
    accept: options.validate === 'full' ? fullCheck : lightCheck,
    progress:
      progress ?? (() => ({ recordsDelivered: state.delivered, lastCreatedAt: state.last?.created_at })),
  };
  let finished = false;
  try {
    if ((headerValue(response.headers, 'content-type') ?? '').toLowerCase().startsWith('text/event-stream')) {
      yield* sseRecords(reader, state);
    } else {
      // NDJSON, the hot path, is decoded in this generator: delegating with `yield*` to a generator of its own
      // costs a promise and a turn per record (bench/stream.bench.ts).
      const lines = new NdjsonLines(reader, state);
      hot.lines = lines;
      for (;;) {
        const line = lines.take();
        if (line === undefined) {
          if (await lines.fill()) continue;
          break;
        }
        const record = parseLine(line, state);
        if (record === undefined) continue;
        state.delivered++;
        state.last = record;
        hot.parked = true;
        yield record;
        hot.parked = false;
        if (state.signal?.aborted) throw state.signal.reason;
      }
      const record = lines.last();
      if (record !== undefined) {
        state.delivered++;
        state.last = record;
        yield record;
      }
    }
    finished = true;
  } finally {
    hot.parked = false;
    // Leaving early (break, return, a throw, a fault) must close the connection: cancelling the body does.
    // Not awaited: a body that was tee'd (a recording fetch, a mock) settles it only once every branch is
    // cancelled, and the caller who left the loop must not wait on that.
    if (!finished) reader.cancel().catch(() => {});
  }
}
