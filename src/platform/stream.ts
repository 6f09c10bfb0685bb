import { type RequestOptions, requestOf } from '../core/call-options.js';
import { ConfigurationError } from '../core/errors.js';
import { positive } from '../core/options.js';
import { tracedRecords, tracingLoaded } from '../core/tracing.js';
import type { QueryParams } from '../core/transport.js';
import { argumentsCheck, toWire } from './arguments.js';
import { instantMs } from './fields.js';
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
const DAY_MS = 24 * 60 * 60 * 1000;
/** Longest span of one stream request (`created_at__lt - created_at__gt`). */
export const STREAM_MAX_SPAN_MS = 7 * DAY_MS;

export interface StreamOptions extends RequestOptions {
  /** Cancels the request and the stream; the connection is closed. */
  signal?: AbortSignal;
  /** Time allowed until the answer's headers arrive. The body then streams at its own pace. */
  timeoutMs?: number;
  /**
   * The longest the server may stay silent while you wait for the next record; past it the stream ends in a
   * `StreamInterruptedError` whose `cause` is a `TimeoutError`. Time you spend between records does not
   * count: a slow consumer is never taken for a silent server. Default: the request timeout (this call's
   * `timeoutMs`, else the client's).
   */
  idleTimeoutMs?: number;
  /**
   * `'light'` (default) checks that each record is an object with a numeric `id` and a string `created_at`;
   * `'full'` parses each with the zod schema of `StreamMessage`. Measured on 100,000 records
   * (bench/stream.bench.ts): light runs at about 0.9× the throughput of a bare `JSON.parse` loop, full at 0.7×.
   */
  validate?: 'light' | 'full';
}

/** Checks the arguments of `messages.stream` now, so that a mistake throws at the call, not at the first pull. */
export function streamMessages(
  http: PlatformHttp,
  query: StreamQuery,
  options: StreamOptions,
): AsyncGenerator<StreamMessage, void, undefined> {
  const q = argumentsCheck(streamQuerySchema, query, 'messages.stream query');
  if (q.created_at__gt !== undefined && q.created_at__lt !== undefined) {
    const span = instantMs(q.created_at__lt) - instantMs(q.created_at__gt);
    if (span > STREAM_MAX_SPAN_MS) {
      throw new ConfigurationError(
        'messages.stream spans more than one week, which the platform refuses (400); ' +
          'use messages.streamRange({ from, to }) to stream it in weekly windows.',
      );
    }
  }
  checkStreamOptions(options);
  const wire: QueryParams = {
    ...q,
    created_at__gt: q.created_at__gt === undefined ? undefined : toWire(q.created_at__gt),
    created_at__lt: q.created_at__lt === undefined ? undefined : toWire(q.created_at__lt),
  };
  const records = requestRecords(http, wire, options);
  return tracingLoaded() ? tracedRecords('wa-gateway stream', {}, records, () => ({})) : records;
}

export function checkStreamOptions(options: StreamOptions): void {
  positive(options.timeoutMs, 'timeoutMs');
  positive(options.idleTimeoutMs, 'idleTimeoutMs');
}

/**
 * One `GET /stream/messages/` request, decoded as the records are pulled. `progress` is what an error
 * reports as delivered; by default, this request's records.
 */
export async function* requestRecords(
  http: PlatformHttp,
  query: QueryParams,
  options: StreamOptions,
  progress?: () => Progress,
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
    if ((response.headers.get('content-type') ?? '').toLowerCase().startsWith('text/event-stream')) {
      yield* sseRecords(reader, state);
    } else {
      // NDJSON, the hot path, is decoded in this generator: delegating with `yield*` to a generator of its own
      // costs a promise and a turn per record (bench/stream.bench.ts).
      const lines = new NdjsonLines(reader, state);
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
        yield record;
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
    // Leaving early (break, return, a throw, a fault) must close the connection: cancelling the body does.
    // Not awaited: a body that was tee'd (a recording fetch, a mock) settles it only once every branch is
    // cancelled, and the caller who left the loop must not wait on that.
    if (!finished) reader.cancel().catch(() => {});
  }
}
