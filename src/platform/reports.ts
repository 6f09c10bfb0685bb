import type { z } from 'zod';
import type { ApiPromise } from '../core/api-promise.js';
import { REQUEST_KEYS, type RequestOptions, requestOf } from '../core/call-options.js';
import { ConfigurationError, invalidArgument } from '../core/errors.js';
import { callHook } from '../core/hooks.js';
import { type OptionKeys, refuseNearMisses } from '../core/option-keys.js';
import type { QueryParams } from '../core/transport-request.js';
import { argumentsCheck, optionsOf, requireInstant, toWire } from './arguments.js';
import { addMonth } from './calendar-month.js';
import { type Instant, instantMs } from './fields.js';
import type { JsonCall, PlatformHttp } from './http.js';
import {
  type ConversationRecord,
  type ConversationsQuery,
  conversationsQuerySchema,
  conversationsResponseSchema,
  type Feedback,
  type FeedbacksQuery,
  feedbacksQuerySchema,
  feedbacksResponseSchema,
  type GroupBasedReport,
  groupBasedReportSchema,
  type Report,
  type ReportQuery,
  reportQuerySchema,
  reportSchema,
} from './reports.schema.js';

const DAY_MS = 24 * 60 * 60 * 1000;
/**
 * The most `windowDays` of `feedbacksRange` takes: the days of the longest month. A window never spans more than one
 * calendar month from its start (`addMonth`, the platform's rule), whatever `windowDays` says.
 */
export const FEEDBACK_RANGE_WINDOW_DAYS = 31;

/** `feedbacksRange`'s query: the filters of `feedbacks` and a range of any length. */
export interface FeedbacksRangeQuery extends Pick<FeedbacksQuery, 'type' | 'channel'> {
  from: Instant;
  to: Instant;
}

export interface FeedbacksRangeOptions extends RequestOptions {
  /**
   * Length of each window in days, at most 31 (`FEEDBACK_RANGE_WINDOW_DAYS`). Default: one calendar month, the most
   * one request may span; a window is never longer than that.
   */
  windowDays?: number | undefined;
  /** Called after each window; see `feedbacksRange`. */
  onProgress?: ((progress: FeedbacksRangeProgress) => void) | undefined;
}

/** `feedbacksRange`'s options, every one (see `OptionKeys`). */
const FEEDBACKS_RANGE_KEYS = [...REQUEST_KEYS, 'windowDays', 'onProgress'] as const;
const feedbacksRangeKeys: OptionKeys<FeedbacksRangeOptions, typeof FEEDBACKS_RANGE_KEYS> =
  FEEDBACKS_RANGE_KEYS;

/** Where a `feedbacksRange` stands. */
export interface FeedbacksRangeProgress {
  /** Windows fetched so far, of `total`. */
  done: number;
  total: number;
  /** Everything from `from` to here is fetched: resume from this instant. */
  coveredTo: Date;
  /** Records collected so far. */
  records: number;
  /** The records this window added. */
  page: readonly Feedback[];
  /** Failed requests so far (a failure ends the range, so 0 while it runs). */
  errors: number;
  /** The longest retry wait this window went through, in ms. */
  waitMs: number;
}

/** Reports: `GET /reports/`, `/reports/conversations/`, `/reports/feedbacks/`. */
export class Reports {
  readonly #http: PlatformHttp;

  /** @internal */
  constructor(http: PlatformHttp) {
    this.#http = http;
  }

  /**
   * A report. With `group_based: true` the entries carry a `group` and the answer is a `GroupBasedReport`.
   *
   * @example
   * const report = await platform.reports.get({ date_range: 'last_30', trunc: 'day', data: 'messages' });
   * const byGroup = await platform.reports.get({ date_range: 'mtd', data: 'response_times', group_based: true });
   */
  get(query: ReportQuery & { group_based: true }, options?: RequestOptions): ApiPromise<GroupBasedReport>;
  get(
    query?: ReportQuery & { group_based?: false | undefined },
    options?: RequestOptions,
  ): ApiPromise<Report>;
  get(query?: ReportQuery, options?: RequestOptions): ApiPromise<Report | GroupBasedReport>;
  get(query: ReportQuery = {}, options: RequestOptions = {}): ApiPromise<Report | GroupBasedReport> {
    return this.#http.run((json) => {
      refuseNearMisses(options, REQUEST_KEYS, 'reports.get');
      const q = argumentsCheck(reportQuerySchema, query, 'reports.get query');
      const schema = q.group_based === true ? groupBasedReportSchema : reportSchema;
      return this.#get(json, '/reports/', { ...q }, options, schema);
    });
  }

  /**
   * Conversation records, filtered by relative creation and archive ranges.
   *
   * @example
   * const archived = await platform.reports.conversations({ archived_at_range: 'yesterday' });
   */
  conversations(
    query: ConversationsQuery = {},
    options: RequestOptions = {},
  ): ApiPromise<ConversationRecord[]> {
    return this.#http.run((json) => {
      refuseNearMisses(options, REQUEST_KEYS, 'reports.conversations');
      const q = argumentsCheck(conversationsQuerySchema, query, 'reports.conversations query');
      return this.#get(json, '/reports/conversations/', { ...q }, options, conversationsResponseSchema);
    });
  }

  /**
   * Feedback records of at most one month (`start_date` to `end_date`); `feedbacksRange` fetches longer ranges.
   *
   * @example
   * const nps = await platform.reports.feedbacks({ type: 'nps', start_date: '2024-05-01T00:00:00Z', end_date: '2024-05-31T23:59:59Z' });
   */
  feedbacks(query: FeedbacksQuery = {}, options: RequestOptions = {}): ApiPromise<Feedback[]> {
    return this.#http.run((json) => {
      refuseNearMisses(options, REQUEST_KEYS, 'reports.feedbacks');
      return this.#feedbacks(json, query, options);
    });
  }

  /** `GET path` on the platform host, its answer checked against `schema`. */
  async #get<S extends z.ZodType>(
    json: JsonCall,
    path: string,
    query: QueryParams,
    options: RequestOptions,
    schema: S,
  ): Promise<z.output<S>> {
    return json('platform', { method: 'GET', path, query, ...requestOf(options) }, schema);
  }

  async #feedbacks(json: JsonCall, query: FeedbacksQuery, options: RequestOptions): Promise<Feedback[]> {
    const q = argumentsCheck(feedbacksQuerySchema, query, 'reports.feedbacks query');
    const wire = {
      type: q.type,
      channel: q.channel,
      start_date: q.start_date === undefined ? undefined : toWire(q.start_date),
      end_date: q.end_date === undefined ? undefined : toWire(q.end_date),
    };
    return (await this.#get(json, '/reports/feedbacks/', wire, options, feedbacksResponseSchema)).feedbacks;
  }

  /**
   * Every feedback from `from` to `to` (inclusive, to the millisecond), however long the range: it is fetched
   * in windows of one calendar month (the platform's limit, `addMonth`: 1 February to 1 March, 31 January to the
   * last day of February), or `windowDays` if shorter. Windows touch, so a record exactly on a boundary may come twice; it is returned once. The result is in
   * `created_at` order.
   *
   * `onProgress` is called after each window with the records it added: to survive a crash, save them and
   * `coveredTo`, and call again with `from: coveredTo`, dropping the records at exactly `coveredTo` you
   * already hold (windows touch, as above).
   *
   * @example
   * const all = await platform.reports.feedbacksRange({ from: '2024-01-01T00:00:00Z', to: '2024-06-30T23:59:59Z' });
   */
  feedbacksRange(query: FeedbacksRangeQuery, options: FeedbacksRangeOptions = {}): ApiPromise<Feedback[]> {
    const opts = optionsOf(options);
    return this.#http.run(async (json) => {
      refuseNearMisses(opts, feedbacksRangeKeys, 'reports.feedbacksRange');
      const from = requireInstant(query?.from, 'feedbacksRange from');
      const to = requireInstant(query?.to, 'feedbacksRange to');
      if (to < from)
        throw invalidArgument('reports.feedbacksRange', ['to'], 'is before `from`', 'to.before_from');
      // 31 days by default, which the month then cuts: a window of one calendar month.
      const windowDays = opts.windowDays ?? FEEDBACK_RANGE_WINDOW_DAYS;
      if (!(windowDays > 0 && windowDays <= FEEDBACK_RANGE_WINDOW_DAYS)) {
        throw new ConfigurationError(
          `feedbacksRange windowDays must be > 0 and ≤ ${FEEDBACK_RANGE_WINDOW_DAYS}.`,
        );
      }
      const longest = windowDays * DAY_MS;
      // Each window spans at most one calendar month from its start: the rule the platform refuses a request by.
      const windowEnd = (a: number) => Math.min(addMonth(a), a + longest, to);
      let windows = 1;
      for (let a = windowEnd(from); a < to; a = windowEnd(a)) windows++;
      const out: Feedback[] = [];
      let previous = new Set<string>();
      let waitMs = 0;
      const request = {
        ...requestOf(opts),
        onRetryWait: opts.onProgress
          ? (ms: number) => {
              waitMs = Math.max(waitMs, ms);
            }
          : undefined,
      };
      for (let a = from, b = windowEnd(a), done = 0; ; a = b, b = windowEnd(a)) {
        const page = await this.#feedbacks(
          json,
          {
            ...(query.type ? { type: query.type } : {}),
            ...(query.channel ? { channel: query.channel } : {}),
            start_date: new Date(a),
            end_date: new Date(b),
          },
          request,
        );
        const before = out.length;
        const current = new Set<string>();
        const kept = page
          .map((record) => ({ record, t: instantMs(record.created_at) }))
          // A server that reads the bounds as dates answers a little outside them.
          .filter(({ t }) => Number.isNaN(t) || (t >= from && t <= to))
          .sort((x, y) => orderKey(x.t) - orderKey(y.t));
        for (const { record } of kept) {
          const key = JSON.stringify(record);
          current.add(key);
          if (!previous.has(key)) out.push(record);
        }
        previous = current;
        done++;
        if (opts.onProgress) {
          const added = out.slice(before);
          callHook(opts.onProgress, {
            done,
            total: windows,
            coveredTo: new Date(b),
            records: out.length,
            page: added,
            errors: 0,
            waitMs,
          });
          waitMs = 0;
        }
        if (b >= to) break;
      }
      return out;
    });
  }
}

function orderKey(t: number): number {
  return Number.isNaN(t) ? Number.POSITIVE_INFINITY : t;
}
