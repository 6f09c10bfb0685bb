/**
 * The `ApiError` subclasses, one per status the servers answer, and the one status-to-class mapping. Apart from
 * errors.ts so that an entry that never reads an HTTP answer (templates, webhooks) does not carry them.
 */
import { ApiError, type ApiErrorDetails, brandError } from './errors.js';

/** 400: the request was malformed or incomplete (`BILL_002`, `REQ_001`, platform `detail`/`error` texts). */
export class BadRequestError extends ApiError {
  override name = 'BadRequestError';
}
/** 401: the key, secret or token is missing, malformed, unknown, revoked or expired. */
export class AuthenticationError extends ApiError {
  override name = 'AuthenticationError';
}
/** 402: the balance is zero or below (`BILL_001`). Pause sending until the account is topped up. */
export class PaymentRequiredError extends ApiError {
  override name = 'PaymentRequiredError';
}
/** 403: permission denied. */
export class PermissionDeniedError extends ApiError {
  override name = 'PermissionDeniedError';
}
/** 404: not found (also: an endpoint the server does not serve yet). */
export class NotFoundError extends ApiError {
  override name = 'NotFoundError';
}
/** 405: the operation is not allowed for this resource (platform API). */
export class MethodNotAllowedError extends ApiError {
  override name = 'MethodNotAllowedError';
}
/** 409: a conflict, such as a template name and language that already exist (`UPSTREAM_017`). */
export class ConflictError extends ApiError {
  override name = 'ConflictError';
}
/** 422: the server's validation failed; `issues` lists the field errors. */
export class UnprocessableEntityError extends ApiError {
  override name = 'UnprocessableEntityError';
}
const RATE_001_ADVICE =
  ' The gateway counts its limit per API key, across every client and process using it: share one GatewayClient ' +
  'in this process instead of one per request (or pass them one `rateLimit: new RateLimiter(...)`), and use a ' +
  '`RedisRateLimiter` (wa-gateway-sdk/redis) as `rateLimit` to share the budget across processes.';

/** 429: rate limited. `retryAfterMs` and `limitType` come from the server when it states them. */
export class RateLimitError extends ApiError {
  override name = 'RateLimitError';
  /** How long the server asked to wait, in milliseconds, when it said (`params.retry_after` or `Retry-After`). */
  readonly retryAfterMs: number | undefined;
  /** Which window was exceeded: `sec` or `min` (`params.limit_type`), when the server said. */
  readonly limitType: 'sec' | 'min' | undefined;

  constructor(details: ApiErrorDetails & { retryAfterMs?: number; limitType?: 'sec' | 'min' }) {
    super(details);
    this.retryAfterMs = details.retryAfterMs;
    this.limitType = details.limitType;
    // The gateway's limit is per API key: a RATE_001 that outlasted the retries nearly always means several
    // clients or processes spend one key's budget, each with its own limiter.
    if (details.code === 'RATE_001') this.message += RATE_001_ADVICE;
  }
}
/** 500 and other 5xx except 502: a server fault (`AUTH_004`, `AUTH_005`, `SEC_001`, an HTML page from a proxy). */
export class InternalServerError extends ApiError {
  override name = 'InternalServerError';
}
/** 502: the upstream platform returned an error (`GW_001`, `UPSTREAM_003`); `description` carries its text. */
export class UpstreamError extends ApiError {
  override name = 'UpstreamError';
}

/**
 * An endpoint the server announces but does not serve yet (a 404 without an error code, or a 501). Its own
 * class so that "this media id expired" (`NotFoundError`) and "downloads are not live on this gateway" are
 * told apart with `instanceof`.
 */
export class EndpointNotLiveError extends ApiError {
  override name = 'EndpointNotLiveError';
}

/**
 * 3xx: the server answered with a redirect, which the SDK never follows. Following it would re-send the request
 * (a 307/308 re-sends the body: a password, a message, a template) to wherever the `Location` points, and trust
 * what that server answers. `location` is the target's origin only (no path, no query: they may carry tokens).
 * Point the client's base URL at the final address instead.
 */
export class RedirectError extends ApiError {
  override name = 'RedirectError';
  /** The origin (`https://host:port`) the server redirected to, or `undefined` when it named none usable. */
  readonly location: string | undefined;

  constructor(details: ApiErrorDetails & { location?: string | undefined }, message?: string) {
    super(details, message);
    this.location = details.location;
  }
}

/** Picks the `ApiError` subclass for a status: the one place that mapping lives. */
const errorClassByStatus: Readonly<Record<number, new (d: ApiErrorDetails) => ApiError>> = {
  400: BadRequestError,
  401: AuthenticationError,
  402: PaymentRequiredError,
  403: PermissionDeniedError,
  404: NotFoundError,
  405: MethodNotAllowedError,
  409: ConflictError,
  422: UnprocessableEntityError,
  429: RateLimitError,
  502: UpstreamError,
};

export function apiErrorClassFor(status: number): new (d: ApiErrorDetails) => ApiError {
  return errorClassByStatus[status] ?? (status >= 500 ? InternalServerError : ApiError);
}

// The brand of each class of this file (names written out: a minifier may rename the classes).
for (const [name, cls] of Object.entries({
  BadRequestError,
  AuthenticationError,
  PaymentRequiredError,
  PermissionDeniedError,
  NotFoundError,
  MethodNotAllowedError,
  ConflictError,
  UnprocessableEntityError,
  RateLimitError,
  InternalServerError,
  UpstreamError,
  EndpointNotLiveError,
  RedirectError,
}))
  brandError(cls, name);
