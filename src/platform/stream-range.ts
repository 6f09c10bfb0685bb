import {
  ApiError,
  ConfigurationError,
  ConnectionError,
  invalidArgument,
  StreamError,
} from '../core/errors.js';
import { callHook } from '../core/hooks.js';
import { type OptionKeys, refuseNearMisses } from '../core/option-keys.js';
import { tracedRecords, tracingLoaded } from '../core/tracing.js';
import type { QueryParams } from '../core/transport-request.js';
import { argumentsCheck, optionsOf, requireInstant } from './arguments.js';
import { StreamInterruptedError } from './errors.js';
import { type Instant, instantMs } from './fields.js';
import type { PlatformHttp } from './http.js';
import {
  checkStreamOptions,
  requestRecords,
  STREAM_KEYS,
  STREAM_MAX_SPAN_MS,
  type StreamOptions,
  streamSpanAttributes,
} from './stream.js';
import { type StreamMessage, type StreamQuery, streamQueryFieldsSchema } from './stream.schema.js';
import type { Progress } from './stream-decoding.js';

/** The most messages one stream request returns. */
export const STREAM_MAX_MESSAGES = 100_000;
/** Default window of `streamRange`: a week, less a minute so that any reading of "one week" accepts it. */
export const STREAM_RANGE_WINDOW_MS = STREAM_MAX_SPAN_MS - 60_000;

export interface StreamRangeQuery extends Omit<StreamQuery, 'created_at__gt' | 'created_at__lt'> {
  /** Start, inclusive. */
  from: Instant;
  /** End, inclusive (to the millisecond). */
  to: Instant;
}

export interface StreamRangeOptions extends StreamOptions {
  /** Length of each request's window. Default a week less a minute; at most that. */
  windowMs?: number | undefined;
  /** The server's per-request cap. Default 100,000, as documented; change only if the server's differs. */
  maxPerRequest?: number | undefined;
  /**
   * Records not to yield, by id: to resume exactly, pass the `idsAtLast` of the last progress report with
   * `from: lastCreatedAt` (the records of that instant are fetched again, and those you hold are skipped).
   */
  skipIds?: readonly number[] | undefined;
  /**
   * Called after each record delivered (after your loop body took it) and at each retry wait. Persist
   * `lastCreatedAt` and `idsAtLast` with the records you saved; after a crash, call again with
   * `from: lastCreatedAt` and `skipIds: idsAtLast`: nothing is lost and nothing repeats.
   */
  onProgress?: ((progress: StreamRangeProgress) => void) | undefined;
}

/** `messages.streamRange`'s options, every one (see `OptionKeys`). */
const STREAM_RANGE_KEYS = [...STREAM_KEYS, 'windowMs', 'maxPerRequest', 'skipIds', 'onProgress'] as const;
const streamRangeKeys: OptionKeys<StreamRangeOptions, typeof STREAM_RANGE_KEYS> = STREAM_RANGE_KEYS;

/** Where a `streamRange` stands. */
export interface StreamRangeProgress {
  /** Records delivered so far. */
  records: number;
  /** `created_at` of the last record delivered. */
  lastCreatedAt: string | undefined;
  /** Ids of the delivered records whose `created_at` is the same millisecond as `lastCreatedAt`. */
  idsAtLast: readonly number[];
  /** Every record up to this instant has been delivered (the end of the last window completed). */
  coveredTo: string | undefined;
  /** Stream requests made so far (windows and their continuations). */
  requests: number;
  /** Failed requests so far (a failure ends the range, so 0 while it runs). */
  errors: number;
  /** The retry wait under way in ms, else 0. */
  waitMs: number;
}

/** @internal Checks the arguments of `messages.streamRange` now, so that a mistake throws at the call. */
export function streamRange(
  http: PlatformHttp,
  query: StreamRangeQuery,
  given: StreamRangeOptions,
): AsyncGenerator<StreamMessage, void, undefined> {
  const options = optionsOf(given);
  refuseNearMisses(options, streamRangeKeys, 'messages.streamRange');
  if (typeof query !== 'object' || query === null) {
    throw new ConfigurationError('messages.streamRange needs { from, to, ...query }.');
  }
  const { from, to, ...rest } = query;
  const fromMs = requireInstant(from, 'streamRange from');
  const toMs = requireInstant(to, 'streamRange to');
  if (toMs < fromMs)
    throw invalidArgument('messages.streamRange', ['to'], 'is before `from`', 'to.before_from');
  const q = argumentsCheck(
    streamQueryFieldsSchema.omit({ created_at__gt: true, created_at__lt: true }),
    rest,
    'messages.streamRange query',
  );
  const windowMs = options.windowMs ?? STREAM_RANGE_WINDOW_MS;
  if (!Number.isInteger(windowMs) || windowMs < 1000 || windowMs > STREAM_RANGE_WINDOW_MS) {
    throw new ConfigurationError(
      `streamRange windowMs must be a whole number of ms from 1,000 to ${STREAM_RANGE_WINDOW_MS} (a week less a minute).`,
    );
  }
  const cap = options.maxPerRequest ?? STREAM_MAX_MESSAGES;
  if (!Number.isInteger(cap) || cap < 1)
    throw new ConfigurationError('streamRange maxPerRequest must be a positive integer.');
  checkStreamOptions(options);
  if (options.skipIds !== undefined && !Array.isArray(options.skipIds)) {
    throw new ConfigurationError('streamRange skipIds must be an array of record ids.');
  }
  const requests = { count: 0 };
  const records = rangeRecords(http, { ...q }, { from: fromMs, to: toMs, windowMs, cap }, options, requests);
  if (!tracingLoaded()) return records;
  return tracedRecords(
    'wa-gateway stream.range',
    { ...streamSpanAttributes(http), 'wa_gateway.stream.resumed': (options.skipIds?.length ?? 0) > 0 },
    records,
    // Requests beyond one per window: continuations past the per-request cap.
    () => ({ 'wa_gateway.stream.requests': requests.count }),
  );
}

/**
 * The windows and their continuations, one request after the other. What the caller received is counted
 * here, not by each request: records outside a window or already yielded by the previous request are read
 * but never delivered. The per-record loop stays in this one generator: a `yield*` to a helper would add an
 * await to every record.
 */
async function* rangeRecords(
  http: PlatformHttp,
  base: QueryParams,
  plan: { from: number; to: number; windowMs: number; cap: number },
  options: StreamRangeOptions,
  requests: { count: number },
): AsyncGenerator<StreamMessage, void, undefined> {
  const { to, windowMs, cap } = plan;
  const skipped = options.skipIds && options.skipIds.length > 0 ? new Set(options.skipIds) : undefined;
  const { onProgress } = options;
  const run = new RangeRun(options, requests);
  for (let a = plan.from; a <= to; ) {
    // The window holds the milliseconds a..b; the request's exclusive bounds are one wider on each side.
    const b = Math.min(a + windowMs - 1, to);
    let gt = a - 1;
    let skip = new Set<number>();
    for (;;) {
      let count = 0;
      let last = Number.NEGATIVE_INFINITY;
      let ordered = true;
      // Records of the latest millisecond and the one before: a continuation request returns them again.
      let tail: { id: number; t: number }[] = [];
      const records = run.request(http, base, gt, b);
      try {
        for await (const record of records) {
          count++;
          const t = instantMs(record.created_at);
          if (Number.isNaN(t)) throw notAnInstant(count, run.delivered);
          if (t < last) ordered = false;
          else if (t > last) {
            last = t;
            tail = tail.filter((x) => x.t >= t - 1);
          }
          tail.push({ id: record.id, t });
          if (t < a || t > b || skip.has(record.id) || skipped?.has(record.id)) continue;
          run.delivered++;
          run.last = record;
          yield record;
          if (onProgress) run.taken(record, t);
        }
      } catch (error) {
        throw run.failed(error, gt);
      }
      run.answered++;
      if (count < cap) break;
      gt = continuationStart(gt, last, ordered, cap, run.delivered);
      skip = new Set(tail.filter((x) => x.t >= gt).map((x) => x.id));
    }
    a = b + 1;
    run.covered(b);
  }
}

/** One `streamRange` under way: what the caller received, the progress it is told and the requests made. */
class RangeRun {
  /** Records the caller received. */
  delivered = 0;
  /** The last record the caller received. */
  last: StreamMessage | undefined = undefined;
  /** Requests that answered in full. */
  answered = 0;
  private readonly state: StreamRangeProgress = {
    records: 0,
    lastCreatedAt: undefined,
    idsAtLast: [],
    coveredTo: undefined,
    requests: 0,
    errors: 0,
    waitMs: 0,
  };
  private idsAtLast: number[] = [];
  private lastMs = Number.NaN;
  private readonly onProgress: StreamRangeOptions['onProgress'];
  private readonly requests: { count: number };
  /** The options of each request: the caller's, with the retry waits reported when progress is asked for. */
  private readonly options: StreamOptions & { onRetryWait?: (ms: number) => void };

  constructor(options: StreamRangeOptions, requests: { count: number }) {
    this.onProgress = options.onProgress;
    this.requests = requests;
    this.options = options.onProgress
      ? {
          ...options,
          onRetryWait: (ms) => {
            this.state.waitMs = ms;
            this.report();
          },
        }
      : options;
  }

  /** What a request's errors say was delivered. */
  readonly progress = (): Progress => ({
    recordsDelivered: this.delivered,
    lastCreatedAt: this.last?.created_at,
  });

  /** The records after `gt` to the end `b` of the window, both in ms. */
  request(
    http: PlatformHttp,
    base: QueryParams,
    gt: number,
    b: number,
  ): AsyncGenerator<StreamMessage, void, undefined> {
    const records = requestRecords(
      http,
      {
        ...base,
        created_at__gt: new Date(gt).toISOString(),
        created_at__lt: new Date(b + 1).toISOString(),
      },
      this.options,
      this.progress,
    );
    this.state.requests++;
    this.requests.count++;
    return records;
  }

  /** After the caller's loop body took a record; called only when progress is asked for. */
  taken(record: StreamMessage, t: number): void {
    if (t !== this.lastMs) {
      this.lastMs = t;
      this.idsAtLast = [];
    }
    this.idsAtLast.push(record.id);
    this.state.records = this.delivered;
    this.state.lastCreatedAt = record.created_at;
    this.state.waitMs = 0;
    this.report();
  }

  /** Every record up to the millisecond `b` was delivered. */
  covered(b: number): void {
    this.state.coveredTo = new Date(b).toISOString();
    if (this.onProgress) this.report();
  }

  /** The error a request failing after `gt` ends the range with. */
  failed(error: unknown, gt: number): unknown {
    this.state.errors++;
    if (this.onProgress) this.report();
    // The first request's failure is the caller's to handle as it is; a later one interrupts a range
    // already under way, which the caller can resume.
    if (this.answered > 0 && mayPass(error)) {
      return new StreamInterruptedError(
        `streamRange stopped after ${this.delivered} records: the request from ` +
          `${new Date(gt + 1).toISOString()} failed (${(error as Error).name}).`,
        { ...this.progress(), cause: error },
      );
    }
    return error;
  }

  private report(): void {
    callHook(this.onProgress, { ...this.state, idsAtLast: [...this.idsAtLast] });
  }
}

/** A record whose `created_at` cannot be placed in a window. */
function notAnInstant(count: number, delivered: number): StreamError {
  return new StreamError(
    `Record ${count} of the window has a created_at that is not an ISO 8601 date-time; ` +
      'streamRange cannot place it in a window.',
    { recordsDelivered: delivered },
  );
}

/**
 * Where the next request of a window continues after a request that returned `cap` records, the latest at
 * `last` ms: from the millisecond before `last`, whose records the caller may not all have had.
 */
function continuationStart(
  gt: number,
  last: number,
  ordered: boolean,
  cap: number,
  delivered: number,
): number {
  if (!ordered) {
    throw new StreamError(
      `A stream request returned ${cap} messages (the per-request cap) not in created_at order, so the ` +
        'rest of its window cannot be fetched without gaps. Pass a smaller windowMs to streamRange.',
      { recordsDelivered: delivered },
    );
  }
  if (last - 1 <= gt) {
    throw new StreamError(
      `The stream cannot be continued past ${new Date(last).toISOString()}: more than ${cap} messages ` +
        'have a created_at within one millisecond of it.',
      { recordsDelivered: delivered },
    );
  }
  return last - 1;
}

/** A fault that a later attempt may not meet. */
function mayPass(error: unknown): boolean {
  if (error instanceof ConnectionError) return true;
  return error instanceof ApiError && (error.status >= 500 || error.status === 429);
}
