/**
 * Every error the SDK throws. One base class, `WaGatewayError`; server answers are `ApiError` subclasses
 * chosen by HTTP status; local validation, transport faults and webhook parsing have their own classes.
 *
 * This file imports nothing at all: the `templates` and `webhooks` entries run in browsers and Workers and
 * import it too.
 *
 * Secrets: no error here ever receives a key, token or password. The transport scrubs what it passes in
 * (server bodies included) before constructing one, and `toJSON` / `util.inspect` show only the public fields.
 */

const inspectSymbol = Symbol.for('nodejs.util.inspect.custom');

/** A field-level problem, in the same shape whether it came from local validation or a server 422. */
export interface FieldIssue {
  /** The server's code (`WA_TPL_014`, `VAL_...`) when one is known, else `null`. */
  code: string | null;
  /** The server's `errors.fields` key: dot-joined, list indices omitted (`buttons.url`). */
  field: string;
  /** One sentence for a person. */
  message: string;
  params?: Record<string, unknown>;
}

/** A problem found by local validation of an outbound message, before any request. */
export interface MessageIssue {
  /** Exact location with list indices, e.g. `['interactive', 'action', 'buttons', 3]`. */
  path: (string | number)[];
  message: string;
  /** The validator's machine code (zod's issue code, or an SDK rule such as `unique`). */
  code: string;
  /**
   * The SDK's stable rule id, always present, as template issues have: `to.digits_only`,
   * `interactive.action.buttons.reply.title.max_length`, `template.language.type`, `unknown_field`. Branch on
   * this rather than on `code`, which may be zod's generic `custom`, `too_big` or `invalid_value`.
   */
  rule: string;
}

function safeStringify(value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch {
    return '[unserialisable fields]';
  }
}

/**
 * The key of each error class's brand: its name, written out (a minifier may rename the classes), as a static field
 * of the class. An app that loads both the ESM and the CommonJS build (the dual-package hazard) has two
 * `WaGatewayError` classes, and `instanceof` must answer for either: it compares brands along the prototype chain.
 * A static field of a literal, unlike a call that names the class, lets a bundler drop the classes an entry does not
 * use (the webhooks entry uses four of this file's 26; a Worker ships the rest otherwise).
 */
const BRAND = 'wa-gateway-sdk.error-class';

/**
 * @internal Gives an SDK error class outside this file its cross-copy identity (this file's classes declare it as a
 * static field). Every such subclass calls it once.
 */
export function brandError(cls: abstract new (...args: never[]) => WaGatewayError, name: string): void {
  Object.defineProperty(cls, BRAND, { value: name });
}

/** The brand a class declares itself (not one it inherits), or `undefined`. */
function ownBrand(cls: unknown): unknown {
  return typeof cls === 'function' && Object.hasOwn(cls, BRAND)
    ? (cls as unknown as Record<string, unknown>)[BRAND]
    : undefined;
}

/** Whether `value`'s prototype chain holds a class branded `brand`, from any copy of the SDK. */
function hasBrand(value: unknown, brand: unknown): boolean {
  if (typeof brand !== 'string' || typeof value !== 'object' || value === null) return false;
  for (let p: object | null = Object.getPrototypeOf(value); p !== null; p = Object.getPrototypeOf(p)) {
    if (Object.hasOwn(p, 'constructor') && ownBrand((p as { constructor: unknown }).constructor) === brand)
      return true;
  }
  return false;
}

/** `instanceof` for an SDK error class: the usual prototype check, else the brand of the class on `value`. */
function isBranded(cls: { prototype: object }, value: unknown): boolean {
  if (Function.prototype[Symbol.hasInstance].call(cls, value)) return true;
  return hasBrand(value, ownBrand(cls));
}

/** Base class of every error the SDK throws. `instanceof WaGatewayError` catches them all. */
export class WaGatewayError extends Error {
  override name = 'WaGatewayError';
  /** @internal */
  static readonly 'wa-gateway-sdk.error-class': string = 'WaGatewayError';

  /**
   * `true` when an earlier attempt of the same call may have reached the server (it was cut in flight and
   * repeated under `retryInFlightSends`), although this final error alone says it was refused before anything
   * was done (a `402 BILL_001`, a `RATE_001`): the message may be out, so check before sending it again.
   * Absent otherwise. `sendMany` and `batchSendAll` read it (their `notSent: false`, `mayHaveBeenSent: true`).
   */
  declare earlierAttemptMayHaveBeenSent?: true;

  /**
   * `instanceof` that also recognises errors from another copy of the SDK (its ESM and CJS builds loaded side
   * by side), by the class brand rather than the prototype object alone.
   */
  static override [Symbol.hasInstance](value: unknown): boolean {
    // biome-ignore lint/complexity/noThisInStatic: `this` is the subclass that `instanceof` was asked about.
    return isBranded(this, value);
  }

  /** Public fields only: what `JSON.stringify(error)` and logging libraries see. */
  toJSON(): Record<string, unknown> {
    const out: Record<string, unknown> = { name: this.name, message: this.message };
    for (const [key, value] of Object.entries(this)) {
      if (key !== 'name' && key !== 'message' && key !== 'stack') out[key] = value;
    }
    return out;
  }

  /** `util.inspect` shows the name, message and public fields; never the `cause` chain of a fetch. */
  [inspectSymbol](): string {
    const { name: _n, message: _m, ...rest } = this.toJSON();
    const extra = Object.keys(rest).length > 0 ? `\n  ${safeStringify(rest)}` : '';
    return `${this.stack ?? `${this.name}: ${this.message}`}${extra}`;
  }
}

/** The decoded parts of an error answer, whichever body format the server used. */
export interface ApiErrorDetails {
  status: number;
  /** `errors.code` (`RATE_001`, `WA_TPL_014`, ...) or `null` when the body carried none. */
  code: string | null;
  /** `errors.group` (`UNAUTHORIZED`, `VALIDATION`, ...) or `null`. */
  group: string | null;
  /** The server's human-readable text, or a short excerpt of a body that was not the envelope. */
  description: string;
  params?: Record<string, unknown>;
  /** Public API field errors: dot-joined field name → `{ code, description, params }`. */
  fields?: Record<string, { code?: string; description?: string; params?: Record<string, unknown> }>;
  /** The parsed body when it was JSON, else the (scrubbed, shortened) text. */
  body: unknown;
  /** The HTTP method and path (no query, no host) of the request that failed. */
  request?: { method: string; path: string };
  /** The server's request id header, when it sent one. */
  requestId?: string;
  /** Whether the request may have reached the server and taken effect; `true` (the safe answer) when not given. */
  mayHaveBeenSent?: boolean;
}

/** A non-2xx answer from a server. Subclasses by status let callers branch with `instanceof`. */
export class ApiError extends WaGatewayError {
  override name = 'ApiError';
  /** @internal */
  static override readonly 'wa-gateway-sdk.error-class': string = 'ApiError';
  readonly status: number;
  readonly code: string | null;
  readonly group: string | null;
  readonly description: string;
  readonly params: Record<string, unknown> | undefined;
  readonly fields: ApiErrorDetails['fields'];
  readonly body: unknown;
  readonly request: { method: string; path: string } | undefined;
  readonly requestId: string | undefined;
  /**
   * Whether the request may have reached the server and taken effect, by the rules of the service that answered
   * (docs/errors-and-retries.md, "What is retried"): `false` for an answer given before anything was done (the
   * gateway's `RATE_001`, `BILL_001`, `GW_001`..., a platform 4xx), `true` for one that proves nothing (a 502
   * without the gateway's envelope, a platform 5xx), and `true` whenever an earlier attempt of the same call may
   * be out. The client that made the
   * call sets it; an `ApiError` built by hand says `true` unless its details say otherwise.
   *
   * @example
   * ```ts
   * try {
   *   await client.messages.send(message);
   * } catch (error) {
   *   if (error instanceof ApiError && !error.mayHaveBeenSent) queueForLater(message); // certainly not out
   * }
   * ```
   */
  readonly mayHaveBeenSent: boolean;

  constructor(details: ApiErrorDetails, message?: string) {
    super(message ?? ApiError.describe(details));
    this.status = details.status;
    this.code = details.code;
    this.group = details.group;
    this.description = details.description;
    this.params = details.params;
    this.fields = details.fields;
    this.body = details.body;
    this.request = details.request;
    this.requestId = details.requestId;
    this.mayHaveBeenSent = details.mayHaveBeenSent ?? true;
  }

  /** The decoded answer, to raise a clearer error (another class, a better message) about the same answer. */
  get details(): ApiErrorDetails {
    return {
      status: this.status,
      code: this.code,
      group: this.group,
      description: this.description,
      body: this.body,
      ...(this.params ? { params: this.params } : {}),
      ...(this.fields ? { fields: this.fields } : {}),
      ...(this.request ? { request: this.request } : {}),
      ...(this.requestId ? { requestId: this.requestId } : {}),
      mayHaveBeenSent: this.mayHaveBeenSent,
    };
  }

  /**
   * The server's field errors as `FieldIssue`s: the same shape `TemplateValidationError.issues` has, so one
   * piece of code can show local and server validation problems in a form.
   */
  get issues(): FieldIssue[] {
    return Object.entries(this.fields ?? {}).map(([field, f]) => ({
      code: f?.code ?? null,
      field,
      message: f?.description ?? this.description,
      ...(f?.params ? { params: f.params } : {}),
    }));
  }

  private static describe(d: ApiErrorDetails): string {
    // A path holds the caller's ids: shortened, so that a 10 MB id does not make a 10 MB message.
    const path = d.request?.path;
    const where =
      path === undefined
        ? ''
        : ` (${d.request?.method} ${path.length > 200 ? `${path.slice(0, 200)}…` : path})`;
    const code = d.code ? ` ${d.code}` : '';
    return `${d.status}${code}: ${d.description}${where}`;
  }
}

/** The request never got a complete answer: DNS failure, refused or reset connection, a cut body. */
export class ConnectionError extends WaGatewayError {
  override name = 'ConnectionError';
  /** @internal */
  static override readonly 'wa-gateway-sdk.error-class': string = 'ConnectionError';
  /**
   * `true` when the request may have reached the server before the fault (the message may already be out,
   * so a blind retry could send it twice). `false` when the connection was never made.
   */
  readonly mayHaveBeenSent: boolean;
  /** The system error code when there was one (`ECONNRESET`, `ECONNREFUSED`, ...). */
  readonly errno: string | undefined;

  constructor(message: string, options: { mayHaveBeenSent: boolean; errno?: string; cause?: unknown }) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.mayHaveBeenSent = options.mayHaveBeenSent;
    this.errno = options.errno;
  }
}

/** The request did not complete within its timeout. */
export class TimeoutError extends ConnectionError {
  override name = 'TimeoutError';
  /** @internal */
  static override readonly 'wa-gateway-sdk.error-class': string = 'TimeoutError';
  readonly timeoutMs: number;

  constructor(message: string, options: { mayHaveBeenSent: boolean; timeoutMs: number }) {
    super(message, { mayHaveBeenSent: options.mayHaveBeenSent });
    this.timeoutMs = options.timeoutMs;
  }
}

/**
 * A 2xx answer whose body is not what the server documents (truncated or non-JSON). The request was
 * accepted, so for a send the message may well be out: do not blindly resend.
 */
export class InvalidResponseError extends WaGatewayError {
  override name = 'InvalidResponseError';
  /** @internal */
  static override readonly 'wa-gateway-sdk.error-class': string = 'InvalidResponseError';
  readonly status: number;
  /** A short excerpt of the body that could not be read. */
  readonly bodyExcerpt: string;
  readonly request: { method: string; path: string } | undefined;
  readonly mayHaveBeenSent = true;

  constructor(
    message: string,
    details: { status: number; bodyExcerpt: string; request?: { method: string; path: string } },
  ) {
    super(message);
    this.status = details.status;
    this.bodyExcerpt = details.bodyExcerpt;
    this.request = details.request;
  }
}

/**
 * A call's data failed local validation before any request (an outbound message, a UUID, an id, a query, a
 * range); nothing was sent. `issues` lists every problem at once, each with its rule id. How a client is built or
 * a call is made (options) is a `ConfigurationError` instead (docs/errors-and-retries.md).
 */
export class MessageValidationError extends WaGatewayError {
  override name = 'MessageValidationError';
  /** @internal */
  static override readonly 'wa-gateway-sdk.error-class': string = 'MessageValidationError';
  readonly issues: MessageIssue[];

  constructor(issues: MessageIssue[], what = 'message') {
    const first = issues[0];
    const head = first ? `${first.path.length > 0 ? first.path.join('.') : '(root)'}: ${first.message}` : '';
    const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : '';
    super(`Invalid ${what}: ${head}${more}`);
    this.issues = issues;
  }
}

/**
 * One problem found in a template by local validation. Defined here, beside the error that carries it, so
 * `TemplateValidationError.issues` has one concrete type; `validateTemplate` returns the same shape.
 * Compatible with `FieldIssue` (code, field, message, params), which a server 422's `issues` also have.
 */
export interface TemplateIssue extends FieldIssue {
  /** The spec's code (`WA_TPL_0NN`) where the spec names one for this rule, else `null`. */
  code: string | null;
  /** Stable rule id from the rule table, e.g. `header.text.max_length`. */
  rule: string;
  /** Exact location with list indices: `['buttons', 2, 'url']`. Empty for the template itself. */
  path: (string | number)[];
  /** The server's `errors.fields` key: dot-joined, list indices omitted (`buttons.url`). */
  field: string;
  /** One sentence for a person, naming the limit and the actual value. */
  message: string;
  params?: Record<string, unknown>;
}

/**
 * A template failed local validation; nothing was sent. `issues` carries every problem with its code (where
 * the spec names one), rule id, path and server field key.
 */
export class TemplateValidationError extends WaGatewayError {
  override name = 'TemplateValidationError';
  /** @internal */
  static override readonly 'wa-gateway-sdk.error-class': string = 'TemplateValidationError';
  readonly issues: TemplateIssue[];

  constructor(issues: TemplateIssue[]) {
    const first = issues[0];
    const head = first ? `${first.field || '(root)'}: ${first.message}` : '';
    const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : '';
    super(`Invalid template: ${head}${more}`);
    this.issues = issues;
  }
}

/** A webhook body that is not valid JSON or not an event envelope. `path` says where parsing failed. */
export class WebhookParseError extends WaGatewayError {
  override name = 'WebhookParseError';
  /** @internal */
  static override readonly 'wa-gateway-sdk.error-class': string = 'WebhookParseError';
  readonly path: (string | number)[];

  constructor(message: string, path: (string | number)[] = []) {
    super(message);
    this.path = path;
  }
}

/** A stream ended before its last record was complete, or carried a line that is not a record. */
export class StreamError extends WaGatewayError {
  override name = 'StreamError';
  /** @internal */
  static override readonly 'wa-gateway-sdk.error-class': string = 'StreamError';
  /** How many complete records were delivered before the fault. */
  readonly recordsDelivered: number;

  constructor(message: string, options: { recordsDelivered: number; cause?: unknown }) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.recordsDelivered = options.recordsDelivered;
  }
}

/** A client was constructed or called with options that cannot work (a missing key, a bad base URL). */
export class ConfigurationError extends WaGatewayError {
  override name = 'ConfigurationError';
  /** @internal */
  static override readonly 'wa-gateway-sdk.error-class': string = 'ConfigurationError';
}

/**
 * A message was not sent because the operation stopped before it started (`sendMany` aborted by the caller's
 * signal, or its loop left), or a request was not sent because the runtime's fetch refused to build it (a header
 * value or a URL it cannot carry; not repeated, as a repeat is refused the same). Certainly not out: resending
 * cannot duplicate it. `cause` holds the caller's abort reason, or the fetch's error, when there was one.
 */
export class NotSentError extends WaGatewayError {
  override name = 'NotSentError';
  /** @internal */
  static override readonly 'wa-gateway-sdk.error-class': string = 'NotSentError';
  /** Always `false`: what `mayHaveBeenSent()` and `sendMany`'s `notSent` read. */
  readonly mayHaveBeenSent = false;
}

/**
 * A compare-and-set lost to concurrent writers of the same record in every one of its attempts (one message's
 * status applied by many processes at once). Nothing was written by this call: apply the change again. A Redis
 * store reports this as `RedisStoreError` with `failure: 'contention'` instead.
 *
 * @example
 * try { await tracker.apply(event); } catch (e) { if (e instanceof ContentionError) await tracker.apply(event); }
 */
export class ContentionError extends WaGatewayError {
  override name = 'ContentionError';
  /** @internal */
  static override readonly 'wa-gateway-sdk.error-class': string = 'ContentionError';
  /** Which call, e.g. `tracker.apply`. */
  readonly operation: string;
  /** How many rounds it lost. */
  readonly attempts: number;
  constructor(operation: string, attempts: number) {
    super(
      `${operation}: ${attempts} concurrent updates of the same record won the race in a row; nothing was written, apply it again.`,
    );
    this.operation = operation;
    this.attempts = attempts;
  }
}

/**
 * A feature needs an optional peer dependency that is not installed. Importing the entry never throws this;
 * using the feature does, naming the package to install.
 *
 * @example
 * try { createGatewayHandlers({ baseUrl }) } catch (e) { if (e instanceof MissingDependencyError) console.log(e.packageName) }
 */
export class MissingDependencyError extends ConfigurationError {
  override name = 'MissingDependencyError';
  /** @internal */
  static override readonly 'wa-gateway-sdk.error-class': string = 'MissingDependencyError';
  /** The npm package to install, e.g. `msw`. */
  readonly packageName: string;

  /** `devOnly`: the feature runs in tests only (msw), so the package belongs in devDependencies. */
  constructor(packageName: string, feature: string, cause?: unknown, devOnly = false) {
    super(
      `${feature} needs the optional peer dependency '${packageName}', which is not installed: ` +
        (devOnly
          ? `run \`npm install --save-dev ${packageName}\` (it is used by tests only).`
          : `run \`npm install ${packageName}\` (a dependency of your service: it runs in production).`),
      cause === undefined ? undefined : { cause },
    );
    this.packageName = packageName;
  }
}

// The `ApiError` subclasses, one per status the servers answer, and the one status-to-class mapping.

/** 400: the request was malformed or incomplete (`BILL_002`, `REQ_001`, platform `detail`/`error` texts). */
export class BadRequestError extends ApiError {
  override name = 'BadRequestError';
  /** @internal */
  static override readonly 'wa-gateway-sdk.error-class': string = 'BadRequestError';
}
/** 401: the key, secret or token is missing, malformed, unknown, revoked or expired. */
export class AuthenticationError extends ApiError {
  override name = 'AuthenticationError';
  /** @internal */
  static override readonly 'wa-gateway-sdk.error-class': string = 'AuthenticationError';
}
/** 402: the balance is zero or below (`BILL_001`). Pause sending until the account is topped up. */
export class PaymentRequiredError extends ApiError {
  override name = 'PaymentRequiredError';
  /** @internal */
  static override readonly 'wa-gateway-sdk.error-class': string = 'PaymentRequiredError';
}
/** 403: permission denied. */
export class PermissionDeniedError extends ApiError {
  override name = 'PermissionDeniedError';
  /** @internal */
  static override readonly 'wa-gateway-sdk.error-class': string = 'PermissionDeniedError';
}
/** 404: not found (also: an endpoint the server does not serve yet). */
export class NotFoundError extends ApiError {
  override name = 'NotFoundError';
  /** @internal */
  static override readonly 'wa-gateway-sdk.error-class': string = 'NotFoundError';
}
/** 405: the operation is not allowed for this resource (platform API). */
export class MethodNotAllowedError extends ApiError {
  override name = 'MethodNotAllowedError';
  /** @internal */
  static override readonly 'wa-gateway-sdk.error-class': string = 'MethodNotAllowedError';
}
/** 409: a conflict, such as a template name and language that already exist (`UPSTREAM_017`). */
export class ConflictError extends ApiError {
  override name = 'ConflictError';
  /** @internal */
  static override readonly 'wa-gateway-sdk.error-class': string = 'ConflictError';
}
/** 422: the server's validation failed; `issues` lists the field errors. */
export class UnprocessableEntityError extends ApiError {
  override name = 'UnprocessableEntityError';
  /** @internal */
  static override readonly 'wa-gateway-sdk.error-class': string = 'UnprocessableEntityError';
}
const RATE_001_ADVICE =
  ' The gateway counts its limit per API key, across every client and process using it: share one GatewayClient ' +
  'in this process instead of one per request (or pass them one `rateLimit: new RateLimiter(...)`), and use a ' +
  '`RedisRateLimiter` (wa-gateway-sdk/redis) as `rateLimit` to share the budget across processes.';

/** 429: rate limited. `retryAfterMs` and `limitType` come from the server when it states them. */
export class RateLimitError extends ApiError {
  override name = 'RateLimitError';
  /** @internal */
  static override readonly 'wa-gateway-sdk.error-class': string = 'RateLimitError';
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
  /** @internal */
  static override readonly 'wa-gateway-sdk.error-class': string = 'InternalServerError';
}
/** 502: the upstream platform returned an error (`GW_001`, `UPSTREAM_003`); `description` carries its text. */
export class UpstreamError extends ApiError {
  override name = 'UpstreamError';
  /** @internal */
  static override readonly 'wa-gateway-sdk.error-class': string = 'UpstreamError';
}

/**
 * An endpoint the server announces but does not serve yet (a 404 without an error code, or a 501). Its own
 * class so that "this media id expired" (`NotFoundError`) and "downloads are not live on this gateway" are
 * told apart with `instanceof`.
 */
export class EndpointNotLiveError extends ApiError {
  override name = 'EndpointNotLiveError';
  /** @internal */
  static override readonly 'wa-gateway-sdk.error-class': string = 'EndpointNotLiveError';
}

/**
 * 3xx: the server answered with a redirect, which the SDK never follows. Following it would re-send the request
 * (a 307/308 re-sends the body: a password, a message, a template) to wherever the `Location` points, and trust
 * what that server answers. `location` is the target's origin only (no path, no query: they may carry tokens).
 * Point the client's base URL at the final address instead.
 */
export class RedirectError extends ApiError {
  override name = 'RedirectError';
  /** @internal */
  static override readonly 'wa-gateway-sdk.error-class': string = 'RedirectError';
  /** The origin (`https://host:port`) the server redirected to, or `undefined` when it named none usable. */
  readonly location: string | undefined;

  constructor(details: ApiErrorDetails & { location?: string | undefined }, message?: string) {
    super(details, message);
    this.location = details.location;
  }
}

/**
 * The status each documented error code is answered with: the gateway's error table and the public API's
 * create-template errors (`WA_TPL_*` stands for that family, all 422). An answer with one of these codes is the
 * class of the code's status, whatever status it came with: a failure envelope on a 2xx, or a proxy that
 * rewrote the status, must not turn a `BILL_001` into an error a batch cannot stop on. Codes not listed (the
 * spec's `VAL_*`, `SYS_001`, whose statuses it does not show) and bodies without a code follow the status.
 */
const statusByCode: Readonly<Record<string, number>> = {
  AUTH_001: 401,
  AUTH_002: 401,
  AUTH_003: 401,
  AUTH_004: 500,
  AUTH_005: 500,
  WH_001: 403,
  WH_002: 401,
  WH_003: 403,
  RATE_001: 429,
  BILL_001: 402,
  BILL_002: 400,
  WABA_001: 401,
  SEC_001: 500,
  GW_001: 502,
  REQ_001: 400,
  UPSTREAM_021: 400,
  ORGANIZATION_SECRET_010: 401,
  ORGANIZATION_SECRET_011: 401,
  UPSTREAM_018: 401,
  UPSTREAM_019: 403,
  APPLICATION_004: 404,
  UPSTREAM_017: 409,
  UPSTREAM_022: 422,
  UPSTREAM_023: 422,
  UPSTREAM_024: 422,
  UPSTREAM_025: 422,
  UPSTREAM_026: 422,
  UPSTREAM_027: 422,
  UPSTREAM_028: 422,
  UPSTREAM_029: 422,
  'WA_TPL_*': 422,
  UPSTREAM_020: 429,
  UPSTREAM_003: 502,
};

/** The status the spec documents for error code `code`, when it documents one. */
export function documentedStatus(code: string | null | undefined): number | undefined {
  if (!code) return undefined;
  return Object.hasOwn(statusByCode, code)
    ? statusByCode[code]
    : code.startsWith('WA_TPL_')
      ? statusByCode['WA_TPL_*']
      : undefined;
}

/** The `ApiError` subclass of each status the servers answer. */
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

/**
 * The `ApiError` subclass of an error answer: the one place that mapping lives. By the error code's documented
 * status when the code is known, else by the answer's status.
 */
export function apiErrorClassFor(status: number, code?: string | null): new (d: ApiErrorDetails) => ApiError {
  const by = documentedStatus(code) ?? status;
  return errorClassByStatus[by] ?? (by >= 500 ? InternalServerError : ApiError);
}

/**
 * The one rule for argument errors, in every client: what a call sends or asks for (a message, a template, an id,
 * a UUID, a date, a query) that fails a check before any request is a `MessageValidationError` with `issues`
 * (path from the argument, a rule id); `ConfigurationError` is only for how a client is built or a call is made
 * (client options, `timeoutMs`, `concurrency`, `chunkSize`, ...). docs/errors-and-retries.md states it.
 *
 * @example
 * throw invalidArgument('conversations.archive', ['uuid'], 'must be a UUID', 'uuid.format');
 */
export function invalidArgument(
  call: string,
  path: (string | number)[],
  message: string,
  rule: string,
): MessageValidationError {
  return new MessageValidationError([{ path, message, code: 'custom', rule }], `${call} argument`);
}

/**
 * A text argument a call cannot go without (an id, a name): returned when it holds something besides spaces, else
 * the argument error of the rule above, rule `<name>.required`, saying what is wrong (missing, empty, not a
 * string) and what to give.
 *
 * @example
 * const id = requireText('media.download', 'mediaId', mediaId, 'the media id (image.id, ... of an incoming message)');
 */
export function requireText(call: string, name: string, value: unknown, give: string): string {
  if (typeof value === 'string' && value.trim() !== '') return value;
  const what =
    value === undefined || value === null
      ? 'is missing'
      : typeof value === 'string'
        ? 'is empty'
        : `must be a string (got ${typeof value})`;
  throw invalidArgument(call, [name], `${what}: give ${give}`, `${name}.required`);
}

/** The answer a call got, as an error reports it. */
export interface AnswerSeen {
  /** The answer's real status: a create may be answered 201 or 202, not only 200. */
  status: number;
  method: string;
  path: string;
  /** A redacted excerpt of the body, when it is safe to keep one; empty by default. */
  bodyExcerpt?: string;
}

/**
 * A 2xx without the body the call needs: the server accepted the request, so what it asked for may have
 * happened (`mayHaveBeenSent`). The message starts with the request and the status it was really answered with;
 * `problem` says what was missing and what to do, e.g. `'but its body carries no message id'`.
 */
export function unexpectedAnswer(answer: AnswerSeen, problem: string): InvalidResponseError {
  const { status, method, path } = answer;
  return new InvalidResponseError(`${method} ${path} answered ${status} ${problem}`, {
    status,
    bodyExcerpt: answer.bodyExcerpt ?? '',
    request: { method, path },
  });
}
