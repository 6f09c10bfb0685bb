import { ConfigurationError } from './errors.js';
import { givenValue } from './given-value.js';
import type { OptionKeys } from './option-keys.js';

/**
 * Options every SDK call accepts, merged over the client's own. Transport only: what a call *means* (a send's
 * `isFake`, a template's `validate`) lives in each method's own options type, which extends this one.
 */
export interface RequestOptions {
  /** Cancels the call, also while it waits between retries. */
  signal?: AbortSignal | undefined;
  /** This call's timeout in ms, per attempt. Default: the client's `timeoutMs`. */
  timeoutMs?: number | undefined;
  /** This call's retries (of requests safe to repeat). Default: the client's `maxRetries`. */
  maxRetries?: number | undefined;
  /**
   * Extra request headers, over the client's `defaultHeaders`. They can replace `user-agent` and `accept`, never
   * `authorization`, `cookie`, `host` or the body's `content-type` (see {@link RESERVED_HEADERS}).
   */
  headers?: Readonly<Record<string, string>> | undefined;
}

const REQUEST_KEY_LIST = ['signal', 'timeoutMs', 'maxRetries', 'headers'] as const;
/**
 * `RequestOptions`' keys, every one (see `OptionKeys`): what `refuseNearMisses` checks a call's options against, with
 * the call's own keys spread after them where its options type extends `RequestOptions`.
 */
export const REQUEST_KEYS: OptionKeys<RequestOptions, typeof REQUEST_KEY_LIST> = REQUEST_KEY_LIST;

/**
 * Headers the SDK alone sets. A user value for one of them is refused (`ConfigurationError`) rather than
 * silently dropped: a caller who tries to route a credential of their own into a request should hear "no".
 */
export const RESERVED_HEADERS: readonly string[] = [
  'authorization',
  'proxy-authorization',
  'cookie',
  'host',
  'content-type',
  'content-length',
  'transfer-encoding',
  'connection',
];

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * What an HTTP header value may hold, as undici's fetch sends it (RFC 9110 field-value): tab, space and visible
 * ASCII, and U+0080-U+00FF (obs-text: a string goes on the wire as Latin-1 bytes, so a character above U+00FF has no
 * byte at all). Anything else (a line break, NUL or another control character, DEL, `€`, U+2028) fetch refuses
 * only once the request is being built, when no error can say which header it was.
 */
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/**
 * Whether `value` can be sent as an HTTP header's value: the one rule for a header value the SDK sends (user
 * headers, and with `isHeaderSecret`'s narrower rule, a credential).
 *
 * @example
 * isHeaderValue('acme; region=eu'); // true
 * isHeaderValue('café€'); // false: '€' is beyond U+00FF
 */
export function isHeaderValue(value: unknown): value is string {
  return typeof value === 'string' && HEADER_VALUE.test(value);
}

/**
 * `headers` lower-cased and checked: a reserved name, a name that is not an HTTP token, or a value that is not a
 * string a header can carry (`isHeaderValue`: a line break would be header injection) throws a
 * `ConfigurationError` naming the header, never its value (it may be a secret).
 */
export function checkHeaders(
  headers: Readonly<Record<string, string>> | undefined,
  where: string,
): Record<string, string> | undefined {
  if (headers === undefined) return undefined;
  if (typeof headers !== 'object' || headers === null || Array.isArray(headers)) {
    throw new ConfigurationError(`${where} must be an object of header names to string values.`);
  }
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const key = name.toLowerCase();
    if (!TOKEN.test(name)) throw new ConfigurationError(`${where}: '${name}' is not a valid header name.`);
    if (RESERVED_HEADERS.includes(key)) {
      throw new ConfigurationError(
        `${where}: '${key}' is set by the SDK and cannot be given (credentials go to the client's options only).`,
      );
    }
    if (typeof value !== 'string') {
      const given = value === null ? 'null' : `a ${typeof value}`;
      throw new ConfigurationError(`${where}: the value of '${key}' must be a string; got ${given}.`);
    }
    if (!isHeaderValue(value)) {
      throw new ConfigurationError(
        `${where}: the value of '${key}' holds a character the Fetch standard refuses in a header value (a line ` +
          "break or another control character, or one beyond U+00FF such as '€'; Node's and browsers' fetch refuse " +
          'it): encode it first, e.g. with encodeURIComponent.',
      );
    }
    out[key] = value;
  }
  return out;
}

/**
 * `signal`, checked: `undefined`, or an `AbortSignal` (of any realm, or a polyfill that behaves as one). Anything
 * else is a `ConfigurationError` before any request: the transport would otherwise fail on it with a bare
 * `TypeError` half-way through an attempt. `where` names the option (`messages.send: signal`).
 *
 * @example
 * checkSignal(options.signal, 'messages.send: signal'); // throws for `{}`, a string, `null`
 */
export function checkSignal(signal: unknown, where: string): AbortSignal | undefined {
  if (signal === undefined || isAbortSignal(signal)) return signal;
  throw new ConfigurationError(
    `${where} must be an AbortSignal (an AbortController's signal, AbortSignal.timeout(ms)); got ${typeof signal === 'object' && signal !== null ? 'an object that is not one' : givenValue(signal)}.`,
  );
}

/** An `AbortSignal`, or one of another realm or polyfill that behaves as one. */
function isAbortSignal(value: unknown): value is AbortSignal {
  if (value instanceof AbortSignal) return true;
  const v = value as Partial<AbortSignal> | null;
  return (
    typeof v === 'object' &&
    v !== null &&
    typeof v.aborted === 'boolean' &&
    typeof v.addEventListener === 'function' &&
    typeof v.removeEventListener === 'function'
  );
}

/**
 * The transport fields of `options`, for resources that pass a caller's options through unchanged; its `signal`
 * checked (`checkSignal`), so every client refuses a bad one with the same `ConfigurationError`.
 */
export function requestOf(options: RequestOptions | undefined): RequestOptions {
  if (!options) return {};
  return {
    signal: checkSignal(options.signal, 'signal'),
    timeoutMs: options.timeoutMs,
    maxRetries: options.maxRetries,
    headers: options.headers,
  };
}
