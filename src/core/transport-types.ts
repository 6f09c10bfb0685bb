import type { RequestHooks } from './hooks.js';
import type { Logger } from './logger.js';
import type { SendLimiter } from './rate-limiter.js';
import type { RetryRules } from './retry-policy.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
export type QueryValue =
  | string
  | number
  | boolean
  | null
  | undefined
  | readonly (string | number | boolean)[];
export type QueryParams = Readonly<Record<string, QueryValue>>;

/** What a client plugs into the shared transport. The transport itself knows no endpoint and no scheme. */
export interface TransportConfig {
  baseUrl: string;
  /**
   * The `Authorization` header value for the next attempt. Called per attempt, so a token manager can log in
   * lazily; `refresh: true` after a 401 when `reauthenticateOn401` is set, with `rejected` the header value
   * the server refused (so a burst of 401s can share one refresh). `undefined` sends no header (a login).
   * An error it throws is the caller's answer as it is: never taken for the server's 401, never retried.
   */
  authorization: (options: {
    refresh: boolean;
    rejected?: string | undefined;
    signal?: AbortSignal;
  }) => string | undefined | Promise<string | undefined>;
  /** On a 401, fetch a fresh credential once and repeat the request (expired platform tokens). */
  reauthenticateOn401?: boolean;
  /** Every credential the client holds, scrubbed from anything that reaches an error or a log. */
  secrets: () => readonly string[];
  timeoutMs: number;
  maxRetries: number;
  /** The longest server-given wait honoured before retrying; longer waits are returned to the caller. */
  maxRetryWaitMs: number;
  retryRules: RetryRules;
  rateLimiter?: SendLimiter | undefined;
  /** A custom fetch. When absent, `globalThis.fetch` is looked up on every request (msw and mocks see all). */
  fetch?: typeof fetch | undefined;
  /** Already filtered to the client's level (`resolveLogger`). */
  logger?: Logger | undefined;
  /** Sent with every request; per-call `headers` override them. Checked by `checkHeaders`. */
  defaultHeaders?: Readonly<Record<string, string>> | undefined;
  hooks?: RequestHooks | undefined;
}

export interface RequestOptions {
  method: HttpMethod;
  /** Path below the base URL, with any path parameters already encoded. */
  path: string;
  query?: QueryParams | undefined;
  /** Serialised as JSON. */
  body?: unknown;
  signal?: AbortSignal | undefined;
  timeoutMs?: number | undefined;
  /** Whether repeating the request has no further effect. Defaults to `true` for GET. */
  idempotent?: boolean | undefined;
  /** Repeat even a request that failed in flight (it may run twice). Default `false`. */
  retryInFlight?: boolean | undefined;
  /**
   * For `stream()`: the longest silence allowed between two chunks of the body before the request ends in
   * `TimeoutError`. Default: the request's timeout.
   */
  idleTimeoutMs?: number | undefined;
  /** Wait for the client's rate limiter before each attempt. Default `false`. */
  rateLimited?: boolean | undefined;
  maxRetries?: number | undefined;
  /** The caller's extra headers (see `checkHeaders`), over the client's `defaultHeaders`. */
  headers?: Readonly<Record<string, string>> | undefined;
  accept?: string | undefined;
  /**
   * Aborting it stops the request from *starting* (while it waits for the rate limiter or between attempts)
   * but never cancels one in flight; the request rejects with the signal's reason. Lets a batch stop every
   * queued send the moment one of them learns the balance is gone, without losing track of those already out.
   */
  stopSignal?: AbortSignal | undefined;
  /** A send of a batch (`sendMany`): the rate limiter may refuse it while bulk sending is stopped. */
  bulk?: boolean | undefined;
  /** Told each wait before a retry, in ms (for progress reports). */
  onRetryWait?: ((ms: number) => void) | undefined;
}
