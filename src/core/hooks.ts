import { callObserver } from './observer.js';

/**
 * Per-attempt observation points of every client, for metrics and tracing systems other than OpenTelemetry.
 * Each hook is called synchronously and not awaited; an error it throws, or the rejection of a promise it returns,
 * is swallowed (a broken hook never breaks a call, nor the process).
 * Neither ever receives a header, a body, a query string, a key or a token: a failed attempt's `error` is its
 * metadata (`AttemptError`), not the error object, whose message and body are the server's words.
 */
export interface RequestHooks {
  /** Before each attempt of a request (after a retry's wait). */
  onRequest?(event: RequestEvent): void;
  /**
   * Once after each attempt, however it ended (an answer, a failure, the caller's abort, a 401 before a re-login):
   * with `status` when the server answered, with `error` when it failed.
   */
  onResponse?(event: ResponseEvent): void;
}

export interface RequestEvent {
  method: string;
  /** The path below the base URL, without the query string. */
  path: string;
  /** The server's host name (`server.address` in OpenTelemetry terms). */
  host: string;
  /**
   * The call this attempt belongs to: the same number on every attempt of one call (and on its log lines' `call`),
   * another for each call, counted from 1 in the process. Tells apart the retries of calls made at once.
   */
  call: number;
  /** 1 for the first attempt; counts every attempt of the call, the repeat after a re-login included. */
  attempt: number;
}

export interface ResponseEvent extends RequestEvent {
  /** The HTTP status, when an answer arrived. */
  status: number | undefined;
  /** The server's request id, when it sent one. */
  requestId: string | undefined;
  durationMs: number;
  /**
   * What failed, when the attempt failed: the error's class name, code, status, request id and whether the attempt
   * may have reached the server. Never the error itself: its message and `body` are the server's words, which can
   * quote a phone number or the message sent. Catch the call's error for those.
   */
  error: AttemptError | undefined;
  /** The wait before the next attempt in ms, when the failure will be retried; else `undefined`. */
  retryInMs: number | undefined;
}

/** A failed attempt as `onResponse` reports it: metadata only, never a message or a body. */
export interface AttemptError {
  /** The error's class name (`RateLimitError`, `TimeoutError`, `AbortError` for your signal), or its `typeof`. */
  name: string;
  /** The server's error code (`RATE_001`, `GW_001`; `null` when its answer had none); absent for other errors. */
  code?: string | null;
  /** The HTTP status, when the server answered. */
  status?: number;
  /** The server's request id, when it sent one (scrubbed and shortened). */
  requestId?: string;
  /** Whether this attempt may have reached the server (by the client's retry rules; `true` when unknown). */
  mayHaveBeenSent: boolean;
}

/** Calls a hook, swallowing its errors, synchronous or not: a hook is an observer of the request. */
export function callHook<E>(hook: ((event: E) => unknown) | undefined, event: E): void {
  callObserver(hook, [event]);
}
