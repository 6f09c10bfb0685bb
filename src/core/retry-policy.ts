import { ApiError, ConnectionError, RateLimitError, WaGatewayError } from './errors.js';

/**
 * When a failed attempt may be repeated. Data, per client: each server states which of its error codes mean
 * "rejected before anything was done" (safe to repeat) and which must never be repeated.
 */
export interface RetryRules {
  /** Codes answered before the request had any effect: repeated with backoff on any method. */
  readonly retryableCodes: readonly string[];
  /**
   * Codes never repeated, whatever the method or the caller: a repeat would run the request twice or meet the
   * same answer. A code may also be in `refusedCodes` (never repeated, and proof that nothing was sent).
   */
  readonly neverRetryCodes: readonly string[];
  /**
   * Codes also answered before the request had any effect, but that a repeat would meet again (a bad key, no
   * balance): not repeated, and proof that nothing was sent. Default none.
   */
  readonly refusedCodes?: readonly string[];
  /**
   * Statuses the server answers only before it acts (its spec's refusals: a malformed request, a key, a balance, a
   * rate): one of them, with a code the table lacks or none, proves the request had no effect. Not every 4xx
   * does: a proxy's 408 may come after it forwarded the request, and a redirect says nothing. Default none.
   */
  readonly refusalStatuses?: readonly number[];
}

export interface RetryContext {
  /** 0 for the first retry. */
  attempt: number;
  maxRetries: number;
  /** The longest server-given wait the SDK will honour; a longer one is returned to the caller instead. */
  maxRetryWaitMs: number;
  /** GET and other requests that can be repeated without effect. */
  idempotent: boolean;
  /** Caller opted in to repeating a request that failed in flight (it may run twice). */
  retryInFlight: boolean;
}

/**
 * System error codes raised before a connection exists: the request provably reached no server (refused, no
 * such host, no route, a URL or TLS certificate refused before the first byte). A `ConnectionError` with one of
 * these says `mayHaveBeenSent: false`, and is then repeated like any other failure before forwarding.
 */
const NOT_SENT_ERRNOS: ReadonlySet<string> = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EAI_NONAME',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
  'UND_ERR_CONNECT_TIMEOUT',
  'ERR_INVALID_URL',
  // The SDK's name for undici's code-less "bad port" (a port the fetch spec blocks).
  'ERR_BAD_PORT',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'CERT_HAS_EXPIRED',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
]);

/** Whether a connection fault with this system error code happened before any byte of the request left. */
export function failedBeforeSending(errno: string | undefined): boolean {
  return errno !== undefined && NOT_SENT_ERRNOS.has(errno);
}

/**
 * Codes of a request the HTTP client refused to build, before any connection: undici's check of the headers, path
 * and method it is handed (`UND_ERR_INVALID_ARG`: a header value with a control character). Nothing was sent, and
 * a repeat would be refused the same way: the attempt ends in a `NotSentError`, never repeated. A request the fetch
 * API's own `Request` cannot be made from (a character beyond U+00FF in a header value) fails with no code at all;
 * the transport asks `Request` itself (`requestUnbuilt`).
 */
const UNBUILT_ERRNOS: ReadonlySet<string> = new Set(['UND_ERR_INVALID_ARG']);

/** Whether a fetch failure with this code is the refusal to build the request: nothing left, and none will. */
export function refusedToBuild(errno: string): boolean {
  return UNBUILT_ERRNOS.has(errno);
}

const STATUSES_RETRYABLE_WHEN_IDEMPOTENT: ReadonlySet<number> = new Set([408, 500, 502, 503, 504]);

/**
 * The delay before the next attempt, or `null` when the error is final.
 *
 * Order of checks mirrors the gateway's: auth → rate limit → balance → forward. Anything rejected before
 * forwarding (a 429, an auth-service outage) is safe to repeat; anything after forwarding is not.
 */
export function retryDelay(error: unknown, ctx: RetryContext, rules: RetryRules): number | null {
  if (ctx.attempt >= ctx.maxRetries) return null;
  if (error instanceof RateLimitError) {
    const wait = error.retryAfterMs ?? backoffMs(ctx.attempt);
    return wait <= ctx.maxRetryWaitMs ? wait : null;
  }
  if (error instanceof ApiError) {
    const code = error.code;
    if (code && (rules.neverRetryCodes.includes(code) || rules.refusedCodes?.includes(code) === true))
      return null;
    if (code && rules.retryableCodes.includes(code)) return backoffMs(ctx.attempt);
    if (ctx.idempotent && STATUSES_RETRYABLE_WHEN_IDEMPOTENT.has(error.status)) return backoffMs(ctx.attempt);
    return null;
  }
  if (error instanceof ConnectionError) {
    if (!error.mayHaveBeenSent || ctx.idempotent || ctx.retryInFlight) return backoffMs(ctx.attempt);
    return null;
  }
  return null;
}

/**
 * Whether a failed request may have reached the server and taken effect: the one "was it sent?" rule, read from
 * the same table as the retry rules. An answer with a code the table lists as answered before anything was done
 * (`retryableCodes`, `refusedCodes`) was not sent, nor a 4xx from a server that checks before acting; an SDK
 * error that knows (`ConnectionError`, `InvalidResponseError`, a shared limiter's store down) says so itself;
 * anything else may have been sent. Whatever the final error says, a call one of whose earlier attempts may have
 * reached the server may have been sent (`earlierAttemptMayHaveBeenSent`, set by `settleAttempts`).
 */
export function mayHaveBeenSent(error: unknown, rules: RetryRules): boolean {
  // Sticks across the attempts of one call: a refusal after an attempt cut in flight does not unsend it.
  if (error instanceof WaGatewayError && error.earlierAttemptMayHaveBeenSent === true) return true;
  if (error instanceof ApiError) {
    const code = error.code;
    if (code !== null && (rules.retryableCodes.includes(code) || rules.refusedCodes?.includes(code) === true))
      return false;
    return rules.refusalStatuses?.includes(error.status) !== true;
  }
  const known =
    error instanceof WaGatewayError ? (error as { mayHaveBeenSent?: unknown }).mayHaveBeenSent : undefined;
  return typeof known === 'boolean' ? known : true;
}

/** Exponential backoff with ±25% jitter: 0.5 s, 1 s, 2 s, ... capped at 8 s. */
export function backoffMs(attempt: number): number {
  const base = Math.min(8000, 500 * 2 ** attempt);
  return Math.round(base * (0.75 + Math.random() * 0.5));
}

/**
 * The error a call ends with, given the last attempt's failure and the latest earlier one that may have reached
 * the server (`undefined` when none did; the transport records one only for a request that is not idempotent,
 * since repeating an idempotent one has no effect). "May have been sent" sticks across the attempts of one call:
 *
 * - **a stop** (the caller's signal, `sendMany`'s or `batchSendAll`'s stop), during an attempt, at the rate
 *   limiter or in the wait between attempts, ends the call with the stop's reason, as DESIGN says of every abort;
 *   except after an attempt that may be out: then with that attempt's error (as it would have ended without
 *   `retryInFlightSends`), never with a reason that reads as "not sent", and the stop's reason as its `cause`.
 *   This is the one place that rule is applied (`stopped: true`); docs/errors-and-retries.md states it;
 * - **a refusal afterwards** by an answer that alone proves nothing was done (`BILL_001`, `RATE_001`, a refused
 *   connection): that error is kept (its class still steers the caller: a batch stops on `BILL_001`), marked
 *   `earlierAttemptMayHaveBeenSent` with a sentence saying so.
 */
export function settleAttempts(
  final: unknown,
  earlier: unknown,
  stopped: boolean,
  rules: RetryRules,
): unknown {
  const settled = settle(final, earlier, stopped, rules);
  // An answer's own "was it sent?", by the rules of the service that gave it: the caller reads one field, not
  // this table. Set here because only the call knows both the rules and its earlier attempts.
  if (settled instanceof ApiError)
    Object.defineProperty(settled, 'mayHaveBeenSent', { value: mayHaveBeenSent(settled, rules) });
  return settled;
}

function settle(final: unknown, earlier: unknown, stopped: boolean, rules: RetryRules): unknown {
  if (earlier === undefined || final === earlier) return final;
  if (stopped) return stoppedAfter(earlier, final);
  if (!(final instanceof WaGatewayError)) return earlier;
  if (mayHaveBeenSent(final, rules)) return final;
  final.earlierAttemptMayHaveBeenSent = true;
  amendMessage(
    final,
    ' An earlier attempt of this call was cut in flight and may have reached the server: check before sending it again.',
  );
  return final;
}

/** `earlier`, the attempt that may be out, told that the call was then stopped by `reason` (its new `cause`). */
function stoppedAfter(earlier: unknown, reason: unknown): unknown {
  if (!(earlier instanceof Error)) return earlier;
  // Not enumerable, as the `cause` an Error constructor sets: `toJSON` and logs show the error's own fields only.
  Object.defineProperty(earlier, 'cause', { value: reason, writable: true, configurable: true });
  amendMessage(
    earlier,
    " The call was then stopped before another attempt (the stop's reason is this error's cause).",
  );
  return earlier;
}

/**
 * Appends `sentence` to `error.message`, and to the message in its `stack`: V8 fixes the stack's first line when
 * `stack` is first read (a hook, a logger, an error reporter may have read it already), and `util.inspect` and
 * `console.log` print the stack, so without this they would show the message without the sentence.
 */
function amendMessage(error: Error, sentence: string): void {
  const before = error.message;
  error.message = before + sentence;
  const { stack } = error;
  if (typeof stack !== 'string') return;
  const end = stack.indexOf(before) + before.length;
  // Not found, or already formatted with the new message (a stack first read just now).
  if (end < before.length || stack.startsWith(sentence, end)) return;
  error.stack = stack.slice(0, end) + sentence + stack.slice(end);
}
