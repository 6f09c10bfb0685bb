import { createParser } from 'eventsource-parser';
import type { z } from 'zod';
import { isRecord } from '../core/error-body.js';
import {
  ApiError,
  AuthenticationError,
  ConfigurationError,
  ConnectionError,
  InvalidResponseError,
  type MessageIssue,
  MessageValidationError,
  StreamError,
} from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import { nonNegativeInt, positive, requireBaseUrl, requireSecret } from '../core/options.js';
import type { RetryRules } from '../core/retry-policy.js';
import { REDACTED } from '../core/secrets.js';
import { type QueryParams, type RequestOptions, Transport } from '../core/transport.js';
import {
  type AssignAgent,
  assignAgentSchema,
  BATCH_SEND_MAX,
  batchSendAllInputSchema,
  batchSendBodySchema,
  type ConversationRecord,
  type ConversationsQuery,
  type ConversationTypeInput,
  type CustomerUpdate,
  type CustomFields,
  check,
  conversationsQuerySchema,
  conversationsResponseSchema,
  conversationTypeInputSchema,
  customerUpdateSchema,
  customFieldsSchema,
  type DetailResponse,
  type Feedback,
  type FeedbacksQuery,
  type FeedbackType,
  feedbacksQuerySchema,
  feedbacksResponseSchema,
  type GroupBasedReport,
  groupBasedReportSchema,
  type Instant,
  instantMs,
  isUuid,
  type MessageItem,
  type PeriodCounts,
  type Report,
  type ReportQuery,
  reportQuerySchema,
  reportSchema,
  STATS_PERIODS,
  type StatsChannel,
  type StatsPeriod,
  type StreamMessage,
  type StreamQuery,
  sendMessagesBodySchema,
  statsResponseSchema,
  streamMessageSchema,
  streamQuerySchema,
} from './schemas.js';
import { type LoginResult, TokenManager, type TokenStore } from './token-manager.js';

export interface PlatformClientOptions {
  /** `{platform_url}`: login, reports, batch send and the `/v2` operations. */
  platformUrl: string;
  /** `{stream_url}`: stats and the message stream. */
  streamUrl: string;
  /** Login username. With `password`, the client logs in by itself and again whenever the token is refused. */
  username?: string;
  password?: string;
  /** A ready token, used until the platform refuses it (then the client logs in, if it has credentials). */
  token?: string;
  /** Where tokens are shared between clients and processes. Default: in memory, per client. */
  tokenStore?: TokenStore;
  /** Per-request timeout in ms (for a stream: until the answer's headers arrive). Default 30,000. */
  timeoutMs?: number;
  /** Retries of requests that are safe to repeat (GETs, login). Default 2. */
  maxRetries?: number;
  /** A custom fetch. By default `globalThis.fetch`, looked up per request. */
  fetch?: typeof fetch;
  /** Receives request metadata only: never credentials, tokens, headers or bodies. */
  logger?: Logger;
}

/** Per-request and per-call options of every operation. */
export interface CallOptions {
  signal?: AbortSignal;
  timeoutMs?: number;
}

/**
 * The platform answers with plain bodies and no error codes: only statuses decide. GETs are repeated on
 * connection faults and 5xx by the transport's default; POSTs are not repeated once they may have arrived.
 */
export const PLATFORM_RETRY_RULES: RetryRules = { retryableCodes: [], neverRetryCodes: [] };

const STREAM_PATH = '/stream/messages/';
const DAY_MS = 24 * 60 * 60 * 1000;
/** Longest span of one stream request (`created_at__lt - created_at__gt`). */
export const STREAM_MAX_SPAN_MS = 7 * DAY_MS;
/** The most messages one stream request returns. */
export const STREAM_MAX_MESSAGES = 100_000;
/** Default window of `streamRange`: a week, less a minute so that any reading of "one week" accepts it. */
export const STREAM_RANGE_WINDOW_MS = STREAM_MAX_SPAN_MS - 60_000;
/** Default window of `feedbacksRange`: the shortest month, so that any reading of "one month" accepts it. */
export const FEEDBACK_RANGE_WINDOW_DAYS = 28;
/** A record longer than this without a line break ends the stream with a `StreamError` (bounded memory). */
export const STREAM_MAX_RECORD_CHARS = 4 * 1024 * 1024;

const inspect = Symbol.for('nodejs.util.inspect.custom');

// ---------------------------------------------------------------------------------------------------------
// The client

/**
 * Client of the conversation platform: login, stats, reports, the message stream, sending into
 * conversations, and conversation and customer operations.
 *
 * Logs in lazily with `username`/`password` (or uses a ready `token`), caches the token for 24 hours minus a
 * safety margin, shares one login between concurrent calls, and on a 401 logs in once and repeats the call.
 *
 * @example
 * import { PlatformClient } from 'wa-gateway-sdk';
 * const platform = new PlatformClient({
 *   platformUrl: 'https://platform.example.com',
 *   streamUrl: 'https://stream.example.com',
 *   username: process.env.PLATFORM_USER!,
 *   password: process.env.PLATFORM_PASSWORD!,
 * });
 * const report = await platform.reports.get({ date_range: 'last_7', trunc: 'day', data: 'messages' });
 */
export class PlatformClient {
  readonly auth: Auth;
  readonly stats: Stats;
  readonly reports: Reports;
  readonly messages: PlatformMessages;
  readonly conversations: Conversations;
  readonly customers: Customers;
  readonly platformUrl: string;
  readonly streamUrl: string;
  readonly #username: string | undefined;

  constructor(options: PlatformClientOptions) {
    if (typeof options !== 'object' || options === null) {
      throw new ConfigurationError(
        'new PlatformClient(options) needs an options object with platformUrl, streamUrl and credentials.',
      );
    }
    this.platformUrl = requireBaseUrl(options.platformUrl, 'platformUrl');
    this.streamUrl = requireBaseUrl(options.streamUrl, 'streamUrl');
    const { username, password } = credentialsOf(options);
    const token = options.token === undefined ? undefined : requireToken(options.token);
    if (username === undefined && token === undefined) {
      throw new ConfigurationError(
        'PlatformClient needs username and password (to log in) or a token: neither was given.',
      );
    }
    this.#username = username;
    const store = options.tokenStore;
    if (
      store !== undefined &&
      (typeof store !== 'object' ||
        store === null ||
        typeof store.get !== 'function' ||
        typeof store.set !== 'function')
    ) {
      throw new ConfigurationError('tokenStore must have get() and set(entry) methods (see TokenStore).');
    }
    const base = {
      timeoutMs: positive(options.timeoutMs, 'timeoutMs') ?? 30_000,
      maxRetries: nonNegativeInt(options.maxRetries, 'maxRetries') ?? 2,
      maxRetryWaitMs: 60_000,
      retryRules: PLATFORM_RETRY_RULES,
      logger: options.logger,
    };
    const userFetch = options.fetch;
    const secrets = (): string[] => tokens.secrets();
    const loginTransport = new Transport({
      ...base,
      baseUrl: this.platformUrl,
      authorization: () => '',
      secrets,
      // Login is the one open endpoint: the empty credential the transport sets is removed, not sent.
      fetch: (input, init) => (userFetch ?? globalThis.fetch)(...withoutEmptyAuthorization(input, init)),
    });
    const tokens: TokenManager = new TokenManager({
      transport: loginTransport,
      username,
      password,
      token,
      store,
      logger: options.logger,
    });
    const http: PlatformHttp = new PlatformHttp(
      tokens,
      (baseUrl): Transport =>
        new Transport({
          ...base,
          baseUrl,
          authorization: (o): string | Promise<string> => http.authorization(o),
          // Without credentials a 401 cannot be cured by logging in: it is explained instead.
          reauthenticateOn401: tokens.canLogIn,
          secrets,
          fetch: userFetch,
        }),
      this.platformUrl,
      this.streamUrl,
    );
    this.auth = new Auth(tokens);
    this.stats = new Stats(http);
    this.reports = new Reports(http);
    this.messages = new PlatformMessages(http);
    this.conversations = new Conversations(http);
    this.customers = new Customers(http);
  }

  /** @internal Keeps credentials out of `console.log(client)`. */
  [inspect](): string {
    return `PlatformClient ${JSON.stringify(this.toJSON())}`;
  }

  toJSON(): Record<string, unknown> {
    return {
      platformUrl: this.platformUrl,
      streamUrl: this.streamUrl,
      username: this.#username ?? null,
      password: REDACTED,
      token: REDACTED,
    };
  }
}

function credentialsOf(options: PlatformClientOptions): { username?: string; password?: string } {
  const { username, password } = options;
  if (username === undefined && password === undefined) return {};
  if (typeof username !== 'string' || username.trim() === '') {
    throw new ConfigurationError('username is required with password: the platform login name.');
  }
  if (typeof password !== 'string' || password === '') {
    throw new ConfigurationError('password is required with username: the platform login password.');
  }
  return { username, password };
}

function requireToken(value: unknown): string {
  if (typeof value === 'string' && /^jwt\s/i.test(value.trim())) {
    throw new ConfigurationError(
      "token must be the bare token, without the 'JWT ' prefix (the SDK adds it).",
    );
  }
  return requireSecret(value, 'token', 'a platform token from POST /jwt/');
}

/** Drops an empty `Authorization` header, whether the transport passes a `Request` or a URL and init. */
function withoutEmptyAuthorization(
  input: RequestInfo | URL,
  init: RequestInit | undefined,
): [RequestInfo | URL, RequestInit | undefined] {
  if (input instanceof Request && input.headers.get('authorization') === '')
    input.headers.delete('authorization');
  if (init?.headers === undefined) return [input, init];
  const headers = new Headers(init.headers);
  if (headers.get('authorization') !== '') return [input, init];
  headers.delete('authorization');
  return [input, { ...init, headers }];
}

// ---------------------------------------------------------------------------------------------------------
// Requests

type Host = 'platform' | 'stream';

/**
 * Thrown by the authorization callback when obtaining a token fails. Not an `ApiError` nor a
 * `ConnectionError`, so the transport neither retries the call nor mistakes a refused login for a 401 of the
 * call itself (which would log in a second time); the client unwraps it into the login's own error.
 */
class TokenUnavailable extends Error {
  override name = 'TokenUnavailable';
}

/** The token a call last sent: the one to replace when that call is answered 401. */
interface CallScope {
  token: string | undefined;
}

class PlatformHttp {
  readonly #tokens: TokenManager;
  readonly #transports: Record<Host, Transport>;
  // Keyed by the per-call signal the transport hands back to `authorization`: the transport knows no call id.
  readonly #scopes = new WeakMap<AbortSignal, CallScope>();

  constructor(
    tokens: TokenManager,
    transport: (baseUrl: string) => Transport,
    platformUrl: string,
    streamUrl: string,
  ) {
    this.#tokens = tokens;
    this.#transports = { platform: transport(platformUrl), stream: transport(streamUrl) };
  }

  authorization({ refresh, signal }: { refresh: boolean; signal?: AbortSignal }): string | Promise<string> {
    const scope = signal ? this.#scopes.get(signal) : undefined;
    // The common case answers synchronously: no turn of the event loop per request.
    const cached = refresh ? undefined : this.#tokens.cached();
    if (cached !== undefined) {
      if (scope) scope.token = cached;
      return `JWT ${cached}`;
    }
    return this.#obtain(refresh, signal, scope);
  }

  async #obtain(
    refresh: boolean,
    signal: AbortSignal | undefined,
    scope: CallScope | undefined,
  ): Promise<string> {
    try {
      const token = refresh
        ? await this.#tokens.refresh(scope?.token, signal)
        : await this.#tokens.token(signal);
      if (scope) scope.token = token;
      return `JWT ${token}`;
    } catch (error) {
      throw new TokenUnavailable('no token', { cause: error });
    }
  }

  async json(host: Host, options: RequestOptions): Promise<unknown> {
    const call = this.#call(options.signal);
    try {
      return (await this.#transports[host].json({ ...options, signal: call.signal })).data;
    } catch (error) {
      throw this.#explain(error);
    } finally {
      call.release();
    }
  }

  /** The 2xx answer with its body unread; `release` must be called once the body is done with. */
  async open(
    host: Host,
    options: RequestOptions,
  ): Promise<{ response: Response; signal: AbortSignal; release: () => void; abort: () => void }> {
    const call = this.#call(options.signal);
    try {
      const response = await this.#transports[host].stream({ ...options, signal: call.signal });
      return { response, signal: call.signal, release: call.release, abort: call.abort };
    } catch (error) {
      call.release();
      throw this.#explain(error);
    }
  }

  /** A signal of this call's own, following the caller's: it identifies the call to `authorization`. */
  #call(user: AbortSignal | undefined): { signal: AbortSignal; release: () => void; abort: () => void } {
    const controller = new AbortController();
    this.#scopes.set(controller.signal, { token: undefined });
    const abort = () =>
      controller.abort(new DOMException('The stream was closed by its consumer.', 'AbortError'));
    if (!user) return { signal: controller.signal, release: () => {}, abort };
    if (user.aborted) {
      controller.abort(user.reason);
      return { signal: controller.signal, release: () => {}, abort };
    }
    const onAbort = () => controller.abort(user.reason);
    user.addEventListener('abort', onAbort, { once: true });
    return { signal: controller.signal, release: () => user.removeEventListener('abort', onAbort), abort };
  }

  #explain(error: unknown): unknown {
    if (error instanceof TokenUnavailable) return error.cause;
    if (error instanceof AuthenticationError && !this.#tokens.canLogIn) {
      return new AuthenticationError(
        {
          status: error.status,
          code: error.code,
          group: error.group,
          description: error.description,
          body: error.body,
          ...(error.request ? { request: error.request } : {}),
          ...(error.requestId ? { requestId: error.requestId } : {}),
        },
        `${error.message}. The platform rejected the token and no username/password are configured to log in ` +
          'again: pass credentials or a fresh token to the PlatformClient.',
      );
    }
    return error;
  }
}

function parseAnswer<S extends z.ZodType>(
  schema: S,
  data: unknown,
  method: string,
  path: string,
): z.output<S> {
  const result = check(schema, data);
  if (result.ok) return result.data;
  // Paths and expectations only: the body itself may hold customer data.
  const where = result.issues
    .slice(0, 5)
    .map((i) => `${i.path.length > 0 ? i.path.join('.') : '(root)'}: ${i.message}`)
    .join('; ');
  throw new InvalidResponseError(
    `${method} ${path} answered with a body that does not have the documented shape (${where}).`,
    { status: 200, bodyExcerpt: '', request: { method, path } },
  );
}

function detailOf(data: unknown): DetailResponse {
  return { detail: isRecord(data) && typeof data['detail'] === 'string' ? data['detail'] : '' };
}

function argumentsCheck<S extends z.ZodType>(schema: S, input: unknown, what: string): z.output<S> {
  const result = check(schema, input);
  if (result.ok) return result.data;
  throw new ConfigurationError(`Invalid ${what}: ${describeIssues(result.issues)}`);
}

function describeIssues(issues: readonly MessageIssue[]): string {
  return issues.map((i) => `${i.path.length > 0 ? i.path.join('.') : '(root)'}: ${i.message}`).join('; ');
}

function requireUuid(value: unknown, what: string): string {
  if (isUuid(value)) return value;
  throw new ConfigurationError(
    `${what} must be a UUID such as 3f2b8c1e-4d5a-4b6c-9e7f-0a1b2c3d4e5f; got ${
      typeof value === 'string' ? `'${value.slice(0, 60)}'` : typeof value
    }.`,
  );
}

function toWire(value: Instant): string {
  return value instanceof Date ? value.toISOString() : value;
}

function requireInstant(value: unknown, what: string): number {
  const ms = value instanceof Date || typeof value === 'string' ? instantMs(value) : Number.NaN;
  if (Number.isNaN(ms))
    throw new ConfigurationError(`${what} must be a valid Date or ISO 8601 date-time string.`);
  return ms;
}

// ---------------------------------------------------------------------------------------------------------
// auth

/** Login. The client logs in by itself when needed; call `login()` to do it now or to read the account. */
export class Auth {
  readonly #tokens: TokenManager;

  /** @internal */
  constructor(tokens: TokenManager) {
    this.#tokens = tokens;
  }

  /**
   * Logs in (`POST /jwt/`) now, joining a login already in flight, and caches the token for every later call.
   * A refused login throws `LoginFailedError` (an `AuthenticationError`) with the server's `reasons`.
   * `otp: true` in the answer is returned and logged as a warning.
   *
   * @example
   * const { accountUuid, otp, expiresAt } = await platform.auth.login();
   */
  login(options: { signal?: AbortSignal } = {}): Promise<LoginResult> {
    return this.#tokens.login(options.signal);
  }
}

// ---------------------------------------------------------------------------------------------------------
// stats

/** Account-wide statistics: `GET {stream_url}/stats`. */
export class Stats {
  readonly #http: PlatformHttp;

  /** @internal */
  constructor(http: PlatformHttp) {
    this.#http = http;
  }

  /**
   * Per-channel counters. `summarizeStats(channels)` turns them into account and agent averages.
   *
   * @example
   * const summary = summarizeStats(await platform.stats.get());
   * console.log(summary.frt.today); // seconds, or null when nobody was answered today
   */
  async get(options: CallOptions = {}): Promise<StatsChannel[]> {
    const data = await this.#http.json('stream', { method: 'GET', path: '/stats', ...callOf(options) });
    return parseAnswer(statsResponseSchema, data, 'GET', '/stats');
  }
}

function callOf(options: CallOptions): Pick<RequestOptions, 'signal' | 'timeoutMs'> {
  return { signal: options.signal, timeoutMs: options.timeoutMs };
}

/** An average per period; `null` where nothing was counted. */
export type PeriodAverages = Record<StatsPeriod, number | null>;

export interface AgentStatsSummary {
  uuid: string;
  name: string | null;
  /** First response time: the agent's `sum` over `count` across all channels. */
  frt: PeriodAverages;
  /** Average response time, likewise. */
  art: PeriodAverages;
  joined: PeriodCounts;
  viewed: PeriodCounts;
  sent: PeriodCounts;
}

export interface StatsSummary {
  /** Account-level first response time per period: the channels' `sum` and `count` summed, then divided. */
  frt: PeriodAverages;
  /** Account-level average response time per period, likewise. */
  art: PeriodAverages;
  /** Messages received and sent, summed over channels. */
  messages: { received: PeriodCounts; sent: PeriodCounts };
  /** One entry per agent (by uuid) across channels, in the order first met. */
  agents: AgentStatsSummary[];
}

type Accumulator = Record<StatsPeriod, { sum: number; count: number }>;

function accumulator(): Accumulator {
  return {
    today: { sum: 0, count: 0 },
    yesterday: { sum: 0, count: 0 },
    wtd: { sum: 0, count: 0 },
    mtd: { sum: 0, count: 0 },
  };
}

function addSums(acc: Accumulator, from: Record<StatsPeriod, { sum: number | null; count: number }>): void {
  for (const p of STATS_PERIODS) {
    acc[p].sum += from[p].sum ?? 0;
    acc[p].count += from[p].count;
  }
}

function averages(acc: Accumulator): PeriodAverages {
  const out = {} as PeriodAverages;
  for (const p of STATS_PERIODS) out[p] = acc[p].count === 0 ? null : acc[p].sum / acc[p].count;
  return out;
}

function zeroCounts(): PeriodCounts {
  return { today: 0, yesterday: 0, wtd: 0, mtd: 0 };
}

function addCounts(acc: PeriodCounts, from: PeriodCounts): void {
  for (const p of STATS_PERIODS) acc[p] += from[p];
}

/**
 * Account-level and per-agent response times from `stats.get()`, as the spec prescribes: `sum` and `count`
 * are summed across channels and then divided, per period (`today`, `yesterday`, `wtd`, `mtd`). A period
 * with no responses is `null`, never `NaN`. Averages are in the unit of `sum` (seconds on the platform).
 * Averaging the channels' averages instead would weigh a quiet channel like a busy one.
 *
 * @example
 * const { frt, agents } = summarizeStats(await platform.stats.get());
 */
export function summarizeStats(channels: readonly StatsChannel[]): StatsSummary {
  const frt = accumulator();
  const art = accumulator();
  const received = zeroCounts();
  const sent = zeroCounts();
  const agents = new Map<
    string,
    {
      name: string | null;
      frt: Accumulator;
      art: Accumulator;
      joined: PeriodCounts;
      viewed: PeriodCounts;
      sent: PeriodCounts;
    }
  >();
  for (const channel of channels) {
    const { stats } = channel;
    addSums(frt, stats.response_times.frt);
    addSums(art, stats.response_times.art);
    addCounts(received, stats.messages.received);
    addCounts(sent, stats.messages.sent);
    for (const agent of stats.agents) {
      let entry = agents.get(agent.uuid);
      if (!entry) {
        entry = {
          name: agent.name ?? null,
          frt: accumulator(),
          art: accumulator(),
          joined: zeroCounts(),
          viewed: zeroCounts(),
          sent: zeroCounts(),
        };
        agents.set(agent.uuid, entry);
      }
      entry.name ??= agent.name ?? null;
      addSums(entry.frt, agent.frt);
      addSums(entry.art, agent.art);
      addCounts(entry.joined, agent.joined);
      addCounts(entry.viewed, agent.viewed);
      addCounts(entry.sent, agent.sent);
    }
  }
  return {
    frt: averages(frt),
    art: averages(art),
    messages: { received, sent },
    agents: [...agents].map(([uuid, a]) => ({
      uuid,
      name: a.name,
      frt: averages(a.frt),
      art: averages(a.art),
      joined: a.joined,
      viewed: a.viewed,
      sent: a.sent,
    })),
  };
}

// ---------------------------------------------------------------------------------------------------------
// reports

export interface FeedbacksRangeQuery {
  from: Instant;
  to: Instant;
  type?: FeedbackType;
  channel?: string;
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
  get(query: ReportQuery & { group_based: true }, options?: CallOptions): Promise<GroupBasedReport>;
  get(query?: ReportQuery & { group_based?: false | undefined }, options?: CallOptions): Promise<Report>;
  get(query?: ReportQuery, options?: CallOptions): Promise<Report | GroupBasedReport>;
  async get(query: ReportQuery = {}, options: CallOptions = {}): Promise<Report | GroupBasedReport> {
    const q = argumentsCheck(reportQuerySchema, query, 'reports.get query');
    const data = await this.#http.json('platform', {
      method: 'GET',
      path: '/reports/',
      query: { ...q },
      ...callOf(options),
    });
    return q.group_based === true
      ? parseAnswer(groupBasedReportSchema, data, 'GET', '/reports/')
      : parseAnswer(reportSchema, data, 'GET', '/reports/');
  }

  /**
   * Conversation records, filtered by relative creation and archive ranges.
   *
   * @example
   * const archived = await platform.reports.conversations({ archived_at_range: 'yesterday' });
   */
  async conversations(
    query: ConversationsQuery = {},
    options: CallOptions = {},
  ): Promise<ConversationRecord[]> {
    const q = argumentsCheck(conversationsQuerySchema, query, 'reports.conversations query');
    const data = await this.#http.json('platform', {
      method: 'GET',
      path: '/reports/conversations/',
      query: { ...q },
      ...callOf(options),
    });
    return parseAnswer(conversationsResponseSchema, data, 'GET', '/reports/conversations/');
  }

  /**
   * Feedback records of at most one month (`start_date` to `end_date`); `feedbacksRange` fetches longer ranges.
   *
   * @example
   * const nps = await platform.reports.feedbacks({ type: 'nps', start_date: '2024-05-01T00:00:00Z', end_date: new Date() });
   */
  async feedbacks(query: FeedbacksQuery = {}, options: CallOptions = {}): Promise<Feedback[]> {
    const q = argumentsCheck(feedbacksQuerySchema, query, 'reports.feedbacks query');
    if (q.start_date !== undefined && q.end_date !== undefined) {
      const span = instantMs(q.end_date) - instantMs(q.start_date);
      if (span > 31 * DAY_MS) {
        throw new ConfigurationError(
          'reports.feedbacks spans more than one month, which the platform refuses (400); ' +
            'use reports.feedbacksRange({ from, to }) to fetch it in monthly windows.',
        );
      }
    }
    const data = await this.#http.json('platform', {
      method: 'GET',
      path: '/reports/feedbacks/',
      query: {
        type: q.type,
        channel: q.channel,
        start_date: q.start_date === undefined ? undefined : toWire(q.start_date),
        end_date: q.end_date === undefined ? undefined : toWire(q.end_date),
      },
      ...callOf(options),
    });
    return parseAnswer(feedbacksResponseSchema, data, 'GET', '/reports/feedbacks/').feedbacks;
  }

  /**
   * Every feedback from `from` to `to` (inclusive, to the millisecond), however long the range: it is fetched
   * in windows of 28 days (shorter than any month, so the one-month limit holds whatever the server counts).
   * Windows touch, so a record exactly on a boundary may come twice; it is returned once. The result is in
   * `created_at` order.
   *
   * @example
   * const all = await platform.reports.feedbacksRange({ from: '2024-01-01T00:00:00Z', to: '2024-06-30T23:59:59Z' });
   */
  async feedbacksRange(
    query: FeedbacksRangeQuery,
    options: { signal?: AbortSignal; timeoutMs?: number; windowDays?: number } = {},
  ): Promise<Feedback[]> {
    const from = requireInstant(query?.from, 'feedbacksRange from');
    const to = requireInstant(query?.to, 'feedbacksRange to');
    if (to < from) throw new ConfigurationError('feedbacksRange: `to` is before `from`.');
    const windowDays = options.windowDays ?? FEEDBACK_RANGE_WINDOW_DAYS;
    if (!(windowDays > 0 && windowDays <= FEEDBACK_RANGE_WINDOW_DAYS)) {
      throw new ConfigurationError(
        `feedbacksRange windowDays must be > 0 and ≤ ${FEEDBACK_RANGE_WINDOW_DAYS}.`,
      );
    }
    const step = windowDays * DAY_MS;
    const out: Feedback[] = [];
    let previous = new Set<string>();
    for (let a = from; ; a += step) {
      const b = Math.min(a + step, to);
      const page = await this.feedbacks(
        {
          ...(query.type ? { type: query.type } : {}),
          ...(query.channel ? { channel: query.channel } : {}),
          start_date: new Date(a),
          end_date: new Date(b),
        },
        options,
      );
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
      if (b >= to) break;
    }
    return out;
  }
}

function orderKey(t: number): number {
  return Number.isNaN(t) ? Number.POSITIVE_INFINITY : t;
}

// ---------------------------------------------------------------------------------------------------------
// messages

export interface StreamOptions {
  /** Cancels the request and the stream; the connection is closed. */
  signal?: AbortSignal;
  /** Time allowed until the answer's headers arrive. The body then streams at its own pace. */
  timeoutMs?: number;
  /**
   * `'light'` (default) checks that each record is an object with a numeric `id` and a string `created_at`;
   * `'full'` parses each with the zod schema of `StreamMessage`. Measured on 100,000 records
   * (bench/stream.bench.ts): light runs at about 0.9× the throughput of a bare `JSON.parse` loop, full at 0.7×.
   */
  validate?: 'light' | 'full';
}

export interface StreamRangeQuery extends Omit<StreamQuery, 'created_at__gt' | 'created_at__lt'> {
  /** Start, inclusive. */
  from: Instant;
  /** End, inclusive (to the millisecond). */
  to: Instant;
}

export interface StreamRangeOptions extends StreamOptions {
  /** Length of each request's window. Default a week less a minute; at most that. */
  windowMs?: number;
  /** The server's per-request cap. Default 100,000, as documented; change only if the server's differs. */
  maxPerRequest?: number;
}

export interface BatchSendInput {
  /** The text to send. */
  message: string;
  /** Conversation UUIDs, at most 500 per request; `batchSendAll` takes any number. */
  conversations: readonly string[];
}

export type BatchChunkResult =
  | { index: number; conversations: string[]; status: 'sent' }
  | {
      index: number;
      conversations: string[];
      status: 'failed';
      error: Error;
      /** `true` when the request may have reached the server (cut connection, timeout, 5xx): check first. */
      mayHaveBeenSent: boolean;
    }
  | { index: number; conversations: string[]; status: 'skipped' };

export interface BatchSendAllResult {
  /** One result per chunk, in order. */
  chunks: BatchChunkResult[];
  /** Conversations whose chunk was accepted. */
  sent: string[];
  /** Conversations whose chunk was refused or never reached the server: safe to send again. */
  failed: string[];
  /** Conversations whose chunk may have been delivered (the request failed in flight): check before resending. */
  uncertain: string[];
  /** Conversations of chunks not attempted (after a failure, or after the signal aborted). */
  skipped: string[];
}

/** The message stream and sending into conversations. */
export class PlatformMessages {
  readonly #http: PlatformHttp;

  /** @internal */
  constructor(http: PlatformHttp) {
    this.#http = http;
  }

  /**
   * Streams message records (`GET {stream_url}/stream/messages/`, NDJSON; `text/event-stream` is read too).
   *
   * - Back pressure: records are decoded as you pull them; the socket is read no faster than you consume.
   * - Cancel with `options.signal` or by leaving the `for await` loop: the connection is closed.
   * - A stream cut mid-record yields every complete record, then throws `StreamError` with
   *   `recordsDelivered`. A line that is not JSON throws `StreamError` naming the line, never its content.
   * - The range (`created_at__gt` to `__lt`) may span one week and return at most 100,000 messages:
   *   `streamRange` lifts both limits.
   *
   * @example
   * for await (const m of platform.messages.stream({ channel: channelUuid, created_at__gt: since })) {
   *   await save(m);
   * }
   */
  stream(
    query: StreamQuery = {},
    options: StreamOptions = {},
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
    const wire: QueryParams = {
      ...q,
      created_at__gt: q.created_at__gt === undefined ? undefined : toWire(q.created_at__gt),
      created_at__lt: q.created_at__lt === undefined ? undefined : toWire(q.created_at__lt),
    };
    return this.#stream(wire, options);
  }

  /** `reported`: the count a `StreamError` carries; by default the records this request yielded. */
  async *#stream(
    query: QueryParams,
    options: StreamOptions,
    reported?: () => number,
  ): AsyncGenerator<StreamMessage, void, undefined> {
    const { response, signal, release, abort } = await this.#http.open('stream', {
      method: 'GET',
      path: STREAM_PATH,
      query,
      signal: options.signal,
      timeoutMs: options.timeoutMs,
      accept: 'application/x-ndjson, text/event-stream;q=0.9, */*;q=0.8',
    });
    const reader = response.body?.getReader();
    if (!reader) {
      release();
      return;
    }
    const state: DecodeState = {
      delivered: 0,
      reported: () => (reported ? reported() : state.delivered),
      unit: 0,
      signal,
      accept: options.validate === 'full' ? fullCheck : lightCheck,
    };
    let finished = false;
    try {
      const sse = (response.headers.get('content-type') ?? '').toLowerCase().startsWith('text/event-stream');
      yield* sse ? sseRecords(reader, state) : ndjsonRecords(reader, state);
      finished = true;
    } finally {
      release();
      if (!finished) {
        // Leaving early (break, return, a throw, a fault) must close the connection. Cancelling the reader is
        // not awaited: a body that was tee'd (a recording fetch, a mock) resolves it only when every branch
        // is cancelled. Aborting the request closes the socket whatever the body's plumbing.
        reader.cancel().catch(() => {});
        abort();
      }
    }
  }

  /**
   * Streams every message from `from` to `to`, however long the range and however many messages it holds.
   *
   * - The range is cut into windows of at most a week (the per-request limit).
   * - Each window is requested with bounds one millisecond wider on each side, because `created_at__gt` and
   *   `__lt` are exclusive: a message whose `created_at` is exactly on a boundary is still fetched. Each
   *   window then keeps only the messages whose `created_at` (to the millisecond) falls inside it, so a
   *   message is yielded by exactly one window: no gaps and no duplicates at window edges.
   * - A request that returns exactly 100,000 messages (the cap) may have been truncated: the window is
   *   continued from the last `created_at` (minus a millisecond, the bound being exclusive), and the messages
   *   of those last two milliseconds already yielded are skipped by `id`. This relies on the stream being in `created_at` order; if a capped
   *   answer was not, a `StreamError` says so rather than silently leaving a gap (pass a smaller `windowMs`).
   *
   * @example
   * for await (const m of platform.messages.streamRange({ from: '2024-01-01T00:00:00Z', to: new Date() })) {
   *   await save(m);
   * }
   */
  streamRange(
    query: StreamRangeQuery,
    options: StreamRangeOptions = {},
  ): AsyncGenerator<StreamMessage, void, undefined> {
    if (typeof query !== 'object' || query === null) {
      throw new ConfigurationError('messages.streamRange needs { from, to, ...query }.');
    }
    const { from, to, ...rest } = query;
    const fromMs = requireInstant(from, 'streamRange from');
    const toMs = requireInstant(to, 'streamRange to');
    if (toMs < fromMs) throw new ConfigurationError('streamRange: `to` is before `from`.');
    const q = argumentsCheck(
      streamQuerySchema.omit({ created_at__gt: true, created_at__lt: true }),
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
    return this.#streamRange({ ...q }, fromMs, toMs, windowMs, cap, options);
  }

  async *#streamRange(
    base: QueryParams,
    from: number,
    to: number,
    windowMs: number,
    cap: number,
    options: StreamOptions,
  ): AsyncGenerator<StreamMessage, void, undefined> {
    const total = { delivered: 0 };
    for (let a = from; a <= to; ) {
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
        const records = this.#stream(
          {
            ...base,
            created_at__gt: new Date(gt).toISOString(),
            created_at__lt: new Date(b + 1).toISOString(),
          },
          options,
          () => total.delivered,
        );
        for await (const record of records) {
          count++;
          const t = instantMs(record.created_at);
          if (Number.isNaN(t)) {
            throw new StreamError(
              `Record ${count} of the window has a created_at that is not an ISO 8601 date-time; ` +
                'streamRange cannot place it in a window.',
              { recordsDelivered: total.delivered },
            );
          }
          if (t < last) ordered = false;
          else if (t > last) {
            last = t;
            tail = tail.filter((x) => x.t >= t - 1);
          }
          tail.push({ id: record.id, t });
          if (t < a || t > b || skip.has(record.id)) continue;
          total.delivered++;
          yield record;
        }
        if (count < cap) break;
        if (!ordered) {
          throw new StreamError(
            `A stream request returned ${cap} messages (the per-request cap) not in created_at order, so the ` +
              'rest of its window cannot be fetched without gaps. Pass a smaller windowMs to streamRange.',
            { recordsDelivered: total.delivered },
          );
        }
        if (last - 1 <= gt) {
          throw new StreamError(
            `The stream cannot be continued past ${new Date(last).toISOString()}: more than ${cap} messages ` +
              'have a created_at within one millisecond of it.',
            { recordsDelivered: total.delivered },
          );
        }
        gt = last - 1;
        skip = new Set(tail.filter((x) => x.t >= gt).map((x) => x.id));
      }
      a = b + 1;
    }
  }

  /**
   * Sends items into a conversation (`POST /v2/messages/`). Items are validated first: every problem is
   * listed in one `MessageValidationError` (paths like `['messages', 0, 'data', 'action', 'items', 1]`) and
   * nothing is sent. Not retried once the request may have reached the server.
   *
   * @example
   * await platform.messages.send(conversationUuid, [
   *   { type: 'text', content: 'Your order has shipped.' },
   *   { type: 'document', content: 'Invoice', url: 'https://files.example.com/invoice-1042.pdf' },
   * ]);
   */
  async send(
    conversationUuid: string,
    items: readonly MessageItem[],
    options: CallOptions = {},
  ): Promise<DetailResponse> {
    const result = check(sendMessagesBodySchema, { uuid: conversationUuid, messages: items });
    if (!result.ok) throw new MessageValidationError(result.issues, 'messages');
    const data = await this.#http.json('platform', {
      method: 'POST',
      path: '/v2/messages/',
      body: result.data,
      idempotent: false,
      ...callOf(options),
    });
    return detailOf(data);
  }

  /**
   * Sends one text to up to 500 conversations (`POST /batch_send_message/`). More than 500, a repeated or
   * malformed UUID, or an empty message throw `MessageValidationError` before any request. The platform
   * answers 200 with an empty body; a 400 (too many conversations, rate limited) is a `BadRequestError`.
   *
   * @example
   * await platform.messages.batchSend({ message: 'We are closed today.', conversations: uuids });
   */
  async batchSend(input: BatchSendInput, options: CallOptions = {}): Promise<void> {
    const result = check(batchSendBodySchema, input);
    if (!result.ok) throw new MessageValidationError(result.issues, 'batch send');
    await this.#http.json('platform', {
      method: 'POST',
      path: '/batch_send_message/',
      body: { message: result.data.message, conversations: result.data.conversations },
      idempotent: false,
      ...callOf(options),
    });
  }

  /**
   * Sends one text to any number of conversations, in chunks of 500, one chunk after the other, and reports
   * the outcome of every chunk, so a failure never loses track of which conversations got the message.
   * The whole list is validated before the first request. By default the first failed chunk stops the run
   * (the rest are `skipped`); `continueOnError: true` tries every chunk.
   *
   * @example
   * const r = await platform.messages.batchSendAll({ message: 'Maintenance tonight.', conversations: all });
   * if (r.uncertain.length > 0) alert('check these before resending', r.uncertain);
   * await retryLater(r.failed.concat(r.skipped));
   */
  async batchSendAll(
    input: BatchSendInput,
    options: { signal?: AbortSignal; timeoutMs?: number; chunkSize?: number; continueOnError?: boolean } = {},
  ): Promise<BatchSendAllResult> {
    const result = check(batchSendAllInputSchema, input);
    if (!result.ok) throw new MessageValidationError(result.issues, 'batch send');
    const size = options.chunkSize ?? BATCH_SEND_MAX;
    if (!Number.isInteger(size) || size < 1 || size > BATCH_SEND_MAX) {
      throw new ConfigurationError(
        `batchSendAll chunkSize must be a whole number from 1 to ${BATCH_SEND_MAX}.`,
      );
    }
    const { message, conversations } = result.data;
    const out: BatchSendAllResult = { chunks: [], sent: [], failed: [], uncertain: [], skipped: [] };
    let stopped = false;
    for (let index = 0, start = 0; start < conversations.length; index++, start += size) {
      const chunk = conversations.slice(start, start + size);
      if (stopped || options.signal?.aborted) {
        out.chunks.push({ index, conversations: chunk, status: 'skipped' });
        out.skipped.push(...chunk);
        continue;
      }
      try {
        await this.#http.json('platform', {
          method: 'POST',
          path: '/batch_send_message/',
          body: { message, conversations: chunk },
          idempotent: false,
          signal: options.signal,
          timeoutMs: options.timeoutMs,
        });
        out.chunks.push({ index, conversations: chunk, status: 'sent' });
        out.sent.push(...chunk);
      } catch (error) {
        const mayHaveBeenSent = mayHaveArrived(error);
        out.chunks.push({
          index,
          conversations: chunk,
          status: 'failed',
          error: error instanceof Error ? error : new Error(String(error)),
          mayHaveBeenSent,
        });
        (mayHaveBeenSent ? out.uncertain : out.failed).push(...chunk);
        if (!options.continueOnError) stopped = true;
      }
    }
    return out;
  }
}

function mayHaveArrived(error: unknown): boolean {
  if (error instanceof ApiError) return error.status >= 500;
  if (error instanceof ConnectionError) return error.mayHaveBeenSent;
  // An invalid 2xx answer, or an abort while the request was out: it may have been processed.
  return true;
}

// ---------------------------------------------------------------------------------------------------------
// Stream decoding

interface DecodeState {
  /** Records yielded by this request. */
  delivered: number;
  /** The `recordsDelivered` of an error: what the caller received (across requests for `streamRange`). */
  reported: () => number;
  /** Lines (NDJSON) or events (SSE) read so far. */
  unit: number;
  signal: AbortSignal;
  accept: (record: unknown, state: DecodeState, what: string) => StreamMessage;
}

/**
 * A line-at-a-time NDJSON decoder over the body's reader. Hand-written rather than
 * `Readable.fromWeb(body).pipe(ndjson.parse())` because it must yield every record received before a fault
 * (readable-stream's iterator drops records buffered ahead of an error, and `pipe()` does not forward a cut
 * body's error, so the stream hangs), number the lines of its errors without quoting them (ndjson's error
 * quotes the row and it skips blank lines), and read the socket only as records are pulled. It is faster as
 * well: 0.91–0.99× a bare split-and-parse loop against 0.78–0.84× for the ndjson pipeline
 * (bench/stream.bench.ts).
 */
async function* ndjsonRecords(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  state: DecodeState,
): AsyncGenerator<StreamMessage, void, undefined> {
  const decoder = new TextDecoder();
  let carry = '';
  for (;;) {
    const chunk = await read(reader, state, carry !== '');
    if (chunk.done) break;
    const text = decoder.decode(chunk.value, { stream: true });
    let nl = text.indexOf('\n');
    if (nl === -1) {
      carry += text;
      if (carry.length > STREAM_MAX_RECORD_CHARS) throw tooLong(state, 'line');
      continue;
    }
    let line = carry === '' ? text.slice(0, nl) : carry + text.slice(0, nl);
    let start = 0;
    for (;;) {
      state.unit++;
      const record = parseLine(line, state);
      if (record !== undefined) {
        state.delivered++;
        yield record;
        // A chunk holds many records: stop between them, not only at the next read.
        if (state.signal.aborted) throw state.signal.reason;
      }
      start = nl + 1;
      nl = text.indexOf('\n', start);
      if (nl === -1) break;
      line = text.slice(start, nl);
    }
    carry = text.slice(start);
    if (carry.length > STREAM_MAX_RECORD_CHARS) throw tooLong(state, 'line');
  }
  carry += decoder.decode();
  if (carry.trim() === '') return;
  // A last line without a line break is a record if it is complete JSON, else the stream was cut.
  state.unit++;
  let value: unknown;
  try {
    value = JSON.parse(carry);
  } catch {
    throw new StreamError(
      `The message stream ended in the middle of line ${state.unit}, after ${state.delivered} complete records.`,
      { recordsDelivered: state.reported() },
    );
  }
  const record = state.accept(value, state, 'line');
  state.delivered++;
  yield record;
}

function parseLine(line: string, state: DecodeState): StreamMessage | undefined {
  if (line.length === 0) return undefined;
  if (line.length > STREAM_MAX_RECORD_CHARS) {
    state.unit--;
    throw tooLong(state, 'line');
  }
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    if (line.trim() === '') return undefined;
    // Never the line itself, nor JSON.parse's message (it quotes the input): a record holds customer data.
    throw new StreamError(`Line ${state.unit} of the message stream is not valid JSON.`, {
      recordsDelivered: state.reported(),
    });
  }
  return state.accept(value, state, 'line');
}

/** `text/event-stream`: each event's data is one JSON record. */
async function* sseRecords(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  state: DecodeState,
): AsyncGenerator<StreamMessage, void, undefined> {
  const decoder = new TextDecoder();
  const pending: string[] = [];
  let overflow = false;
  const parser = createParser({
    onEvent: (event) => {
      pending.push(event.data);
    },
    onError: (error) => {
      if (error.type === 'max-buffer-size-exceeded') overflow = true;
    },
    maxBufferSize: STREAM_MAX_RECORD_CHARS,
  });
  for (;;) {
    const chunk = await read(reader, state, false);
    if (chunk.done) break;
    parser.feed(decoder.decode(chunk.value, { stream: true }));
    for (let i = 0; i < pending.length; i++) {
      const data = pending[i]!;
      state.unit++;
      // Keep-alive events carry no data.
      if (data.trim() === '') continue;
      let value: unknown;
      try {
        value = JSON.parse(data);
      } catch {
        throw new StreamError(`Event ${state.unit} of the message stream is not valid JSON.`, {
          recordsDelivered: state.reported(),
        });
      }
      const record = state.accept(value, state, 'event');
      state.delivered++;
      yield record;
      if (state.signal.aborted) throw state.signal.reason;
    }
    pending.length = 0;
    if (overflow) throw tooLong(state, 'event');
  }
}

async function read(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  state: DecodeState,
  midRecord: boolean,
): Promise<ReadableStreamReadResult<Uint8Array>> {
  if (state.signal.aborted) throw state.signal.reason;
  try {
    return await reader.read();
  } catch (error) {
    if (state.signal.aborted) throw state.signal.reason;
    const code = codeOf(error);
    throw new StreamError(
      `The message stream was cut after ${state.delivered} complete records` +
        `${midRecord ? ` (in the middle of the next record)` : ''}${code ? ` (${code})` : ''}.`,
      { recordsDelivered: state.reported() },
    );
  }
}

function codeOf(error: unknown, depth = 0): string | undefined {
  if (depth > 4 || typeof error !== 'object' || error === null) return undefined;
  const e = error as { code?: unknown; cause?: unknown };
  if (typeof e.code === 'string') return e.code;
  return codeOf(e.cause, depth + 1);
}

function tooLong(state: DecodeState, what: 'line' | 'event'): StreamError {
  return new StreamError(
    `The message stream's ${what} ${state.unit + 1} exceeds ${STREAM_MAX_RECORD_CHARS} characters without ending.`,
    { recordsDelivered: state.reported() },
  );
}

/**
 * The cheap check: enough to trust `id` and `created_at` (what `streamRange` relies on) at a cost that keeps
 * the stream near the speed of a bare `JSON.parse`. The rest of the record is passed as the server sent it.
 */
function lightCheck(value: unknown, state: DecodeState, what: string): StreamMessage {
  if (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { id?: unknown }).id === 'number' &&
    typeof (value as { created_at?: unknown }).created_at === 'string'
  ) {
    return value as StreamMessage;
  }
  throw new StreamError(
    `${capital(what)} ${state.unit} of the message stream is not a message record (it needs a numeric id and a created_at).`,
    { recordsDelivered: state.reported() },
  );
}

function fullCheck(value: unknown, state: DecodeState, what: string): StreamMessage {
  const result = streamMessageSchema.safeParse(value);
  if (result.success) return result.data;
  const where = result.error.issues
    .slice(0, 3)
    .map((i) => `${i.path.join('.') || '(root)'}: ${i.code}`)
    .join('; ');
  throw new StreamError(
    `${capital(what)} ${state.unit} of the message stream is not a valid message record (${where}).`,
    { recordsDelivered: state.reported() },
  );
}

function capital(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}

// ---------------------------------------------------------------------------------------------------------
// conversations

/** Conversation operations: `POST /v2/conversations/...`. Each answers `{ detail }`. */
export class Conversations {
  readonly #http: PlatformHttp;

  /** @internal */
  constructor(http: PlatformHttp) {
    this.#http = http;
  }

  #post(path: string, body: Record<string, unknown>, options: CallOptions): Promise<DetailResponse> {
    return this.#http
      .json('platform', { method: 'POST', path, body, idempotent: false, ...callOf(options) })
      .then(detailOf);
  }

  /**
   * Archives a conversation.
   *
   * @example
   * await platform.conversations.archive(conversationUuid);
   */
  async archive(uuid: string, options: CallOptions = {}): Promise<DetailResponse> {
    return this.#post(
      '/v2/conversations/archive/',
      { uuid: requireUuid(uuid, 'conversations.archive uuid') },
      options,
    );
  }

  /**
   * Takes a conversation out of the archive.
   *
   * @example
   * await platform.conversations.unarchive(conversationUuid);
   */
  async unarchive(uuid: string, options: CallOptions = {}): Promise<DetailResponse> {
    return this.#post(
      '/v2/conversations/unarchive/',
      { uuid: requireUuid(uuid, 'conversations.unarchive uuid') },
      options,
    );
  }

  /**
   * Assigns a conversation to an agent: `{ auto: true }` for automatic assignment, or `{ email }` for a
   * specific agent (400 `BadRequestError` when no such agent).
   *
   * @example
   * await platform.conversations.assign(conversationUuid, { email: 'agent@example.com' });
   */
  async assign(uuid: string, agent: AssignAgent, options: CallOptions = {}): Promise<DetailResponse> {
    const id = requireUuid(uuid, 'conversations.assign uuid');
    const a = argumentsCheck(assignAgentSchema, agent, 'conversations.assign agent');
    return this.#post('/v2/conversations/assign/', { uuid: id, agent: a }, options);
  }

  /**
   * Assigns a conversation to an agent group by name (404 `NotFoundError` when no such group).
   *
   * @example
   * await platform.conversations.assignToGroup(conversationUuid, 'Billing');
   */
  async assignToGroup(uuid: string, groupName: string, options: CallOptions = {}): Promise<DetailResponse> {
    const id = requireUuid(uuid, 'conversations.assignToGroup uuid');
    if (typeof groupName !== 'string' || groupName.trim() === '') {
      throw new ConfigurationError('conversations.assignToGroup needs a group name.');
    }
    return this.#post(
      '/v2/conversations/assign_to_group/',
      { uuid: id, group: { name: groupName } },
      options,
    );
  }

  /**
   * Removes a conversation's assignment.
   *
   * @example
   * await platform.conversations.unassign(conversationUuid);
   */
  async unassign(uuid: string, options: CallOptions = {}): Promise<DetailResponse> {
    return this.#post(
      '/v2/conversations/unassign/',
      { uuid: requireUuid(uuid, 'conversations.unassign uuid') },
      options,
    );
  }

  /**
   * Sets a conversation's type and sub-type (`sub` omitted means `null`). 404 when the type does not exist;
   * 405 `MethodNotAllowedError` when a main type cannot be set or the type is not allowed for the channel.
   *
   * @example
   * await platform.conversations.setType(conversationUuid, { name: 'Complaint', sub: 'Delivery' });
   */
  async setType(
    uuid: string,
    type: ConversationTypeInput,
    options: CallOptions = {},
  ): Promise<DetailResponse> {
    const id = requireUuid(uuid, 'conversations.setType uuid');
    const t = argumentsCheck(conversationTypeInputSchema, type, 'conversations.setType type');
    return this.#post(
      '/v2/conversations/type/',
      { uuid: id, type: { name: t.name, sub: t.sub ?? null } },
      options,
    );
  }

  /**
   * Sets custom fields of a conversation: identifier → value, sent as `{ identifier: { value } }`. An invalid
   * value is refused with 400 (`info` and `error` both end up in the error's `description`).
   *
   * @example
   * await platform.conversations.setCustomFields(conversationUuid, { order_id: 'A-1042', priority: 2 });
   */
  async setCustomFields(
    uuid: string,
    fields: CustomFields,
    options: CallOptions = {},
  ): Promise<DetailResponse> {
    const id = requireUuid(uuid, 'conversations.setCustomFields uuid');
    const f = argumentsCheck(customFieldsSchema, fields, 'conversations.setCustomFields fields');
    return this.#post(
      '/v2/conversations/custom_fields/',
      { uuid: id, custom_fields: wrapValues(f) },
      options,
    );
  }
}

function wrapValues(fields: Record<string, unknown>): Record<string, { value: unknown }> {
  const out: Record<string, { value: unknown }> = {};
  for (const [key, value] of Object.entries(fields)) out[key] = { value };
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// customers

/** Customer updates: `POST /v2/customers/` (the body's shape selects plain fields or custom fields). */
export class Customers {
  readonly #http: PlatformHttp;

  /** @internal */
  constructor(http: PlatformHttp) {
    this.#http = http;
  }

  /**
   * Updates a customer's fields (`name`, `telegram`, `facebook`, `email`, `instagram`, `twitter`; `crm` is
   * deprecated by the platform). Unknown keys are refused locally, so a typo is not silently ignored.
   *
   * @example
   * await platform.customers.update(customerUuid, { name: 'Aziza Karimova', email: 'aziza@example.com' });
   */
  async update(uuid: string, customer: CustomerUpdate, options: CallOptions = {}): Promise<DetailResponse> {
    const id = requireUuid(uuid, 'customers.update uuid');
    const c = argumentsCheck(customerUpdateSchema, customer, 'customers.update customer');
    const data = await this.#http.json('platform', {
      method: 'POST',
      path: '/v2/customers/',
      body: { uuid: id, customer: c },
      idempotent: false,
      ...callOf(options),
    });
    return detailOf(data);
  }

  /**
   * Sets custom fields of a customer: identifier → value, sent as `customer.custom_fields`.
   *
   * @example
   * await platform.customers.setCustomFields(customerUuid, { loyalty_tier: 'gold' });
   */
  async setCustomFields(
    uuid: string,
    fields: CustomFields,
    options: CallOptions = {},
  ): Promise<DetailResponse> {
    const id = requireUuid(uuid, 'customers.setCustomFields uuid');
    const f = argumentsCheck(customFieldsSchema, fields, 'customers.setCustomFields fields');
    const data = await this.#http.json('platform', {
      method: 'POST',
      path: '/v2/customers/',
      body: { uuid: id, customer: { custom_fields: wrapValues(f) } },
      idempotent: false,
      ...callOf(options),
    });
    return detailOf(data);
  }
}
