/**
 * What a request is, as the clients build it and the transport sends it: the method, the path and query, the body
 * and how the request travels. Not the per-call options a user passes (`RequestOptions`, `call-options.ts`), which
 * the resources fold into one of these.
 */

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
export type QueryValue =
  | string
  | number
  | boolean
  | null
  | undefined
  | readonly (string | number | boolean)[];
export type QueryParams = Readonly<Record<string, QueryValue>>;

/** One request for `Transport`: built by a resource, never by a user. */
export interface TransportRequest {
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
  /**
   * For `stream()`: the timeout covers reading the body too, as it does for `json()` (a download read whole), not
   * only the wait for the headers. Default `false` (a stream read at the reader's pace, bounded by `idleTimeoutMs`).
   */
  timeoutCoversBody?: boolean | undefined;
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
  /**
   * Awaited before each attempt's request is made, once the rate limiter granted it and the credential is known:
   * the last moment to decide whether it goes. A rejection ends the call with that error, before anything was
   * sent (give it `mayHaveBeenSent: false`). What a durable queue writes its ledger in: "about to be sent" is
   * recorded after any wait and before the request.
   */
  beforeSend?: (() => Promise<void>) | undefined;
  /**
   * Told when an attempt's request is handed to `fetch`: until then, whatever fails, nothing was sent (`sendMany`
   * reports such a failure `notSent`).
   */
  onSend?: (() => void) | undefined;
}
