import { ConfigurationError } from './errors.js';

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
 * `headers` lower-cased and checked: a reserved name, a name that is not an HTTP token, or a value with a line
 * break or NUL (header injection) throws a `ConfigurationError` naming the header, never its value.
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
    if (typeof value !== 'string' || /[\r\n\0]/.test(value)) {
      throw new ConfigurationError(`${where}: the value of '${key}' must be a string without line breaks.`);
    }
    out[key] = value;
  }
  return out;
}

/** The transport fields of `options`, for resources that pass a caller's options through unchanged. */
export function requestOf(options: RequestOptions | undefined): RequestOptions {
  if (!options) return {};
  return {
    signal: options.signal,
    timeoutMs: options.timeoutMs,
    maxRetries: options.maxRetries,
    headers: options.headers,
  };
}
