/**
 * Every check of a client's options, in one place: the credential, the base URL, the numbers, the headers and the
 * logger, each refused with a `ConfigurationError` at construction (never at first use), and the transport
 * settings they resolve to. The clients call these in their constructors; the transport takes the result as checked.
 * An option only one client has (the gateway's `rateLimit`, the platform's login) is checked beside that client.
 */
import { checkHeaders } from './call-options.js';
import { durationMs, nonNegativeInt } from './duration.js';
import { ConfigurationError } from './errors.js';
import type { RequestHooks } from './hooks.js';
import { type Logger, type LogLevel, resolveLogger } from './logger.js';
import type { OptionKeys } from './option-keys.js';
import type { RetryRules } from './retry-policy.js';
import { describeSecret, isHeaderSecret, type SecretHint, secretAdvice } from './secret-advice.js';
import { loadTracing } from './tracing.js';
import type { TransportConfig } from './transport.js';

/** Options every client shares: headers, logging and observation. */
export interface CommonClientOptions extends RequestHooks {
  /**
   * Headers sent with every request (a proxy's routing header, a tenant tag). Per-call `headers` override
   * them; neither can set `authorization`, `cookie`, `host` or `content-type` (a `ConfigurationError`).
   */
  defaultHeaders?: Readonly<Record<string, string>> | undefined;
  /**
   * Receives request metadata only: never keys, tokens, headers, bodies or phone numbers. Default `console`,
   * filtered to `logLevel`.
   */
  logger?: Logger | undefined;
  /** Default: the `WA_GATEWAY_LOG` environment variable, else `'warn'`. */
  logLevel?: LogLevel | undefined;
}

const COMMON_KEY_LIST = ['defaultHeaders', 'logger', 'logLevel', 'onRequest', 'onResponse'] as const;
/** `CommonClientOptions`' keys, every one (see `OptionKeys`): each client's list of its options ends with them. */
export const COMMON_CLIENT_KEYS: OptionKeys<CommonClientOptions, typeof COMMON_KEY_LIST> = COMMON_KEY_LIST;

/** The transport settings that come from {@link CommonClientOptions}, checked at construction. */
export function commonTransportConfig(
  options: CommonClientOptions,
): Pick<TransportConfig, 'logger' | 'defaultHeaders' | 'hooks'> {
  const { onRequest, onResponse } = options;
  return {
    logger: resolveLogger(options),
    defaultHeaders: checkHeaders(options.defaultHeaders, 'defaultHeaders'),
    hooks: onRequest || onResponse ? { onRequest, onResponse } : undefined,
  };
}

/** The transport options a client accepts (each client documents them on its own options type). */
export interface TransportOptions extends CommonClientOptions {
  timeoutMs?: number;
  maxRetries?: number;
  maxRetryWaitMs?: number;
  fetch?: typeof fetch;
}

/** A transport's settings but its base URL and its credential, which each client supplies per host. */
export type ClientTransportConfig = Omit<
  TransportConfig,
  'baseUrl' | 'authorization' | 'reauthenticateOn401'
>;

/**
 * The one way from a client's options to its transport settings: the checks and defaults every client shares
 * (30 s timeout, 2 retries, waits up to 60 s honoured), plus what the client knows: its retry table and its
 * secrets (the gateway adds its limiter). Knows no endpoint. Loads the optional tracing peer, as every client needs it.
 */
export function transportConfigOf(
  options: TransportOptions,
  client: {
    retryRules: RetryRules;
    secrets: () => readonly string[];
  },
): ClientTransportConfig {
  loadTracing();
  return {
    timeoutMs: durationMs(options.timeoutMs, 'timeoutMs', 30_000),
    maxRetries: nonNegativeInt(options.maxRetries, 'maxRetries') ?? 2,
    maxRetryWaitMs: durationMs(options.maxRetryWaitMs, 'maxRetryWaitMs', 60_000),
    retryRules: client.retryRules,
    secrets: client.secrets,
    fetch: fetchOf(options.fetch),
    ...commonTransportConfig(options),
  };
}

/** The `fetch` option: a function when given (anything else would fail every request as if it may be out). */
function fetchOf(value: unknown): typeof fetch | undefined {
  if (value === undefined || typeof value === 'function') return value as typeof fetch | undefined;
  throw new ConfigurationError(
    `fetch must be a function (a fetch of your own, e.g. one with a proxy agent), or left out for globalThis.fetch; got ${value === null ? 'null' : `a ${typeof value}`}.`,
  );
}

/**
 * Shared option checks for every client: clear `ConfigurationError`s at construction, never at first use. A secret
 * sent in a header must be visible ASCII without spaces; the error says what was given (never the value) and
 * what to do about it.
 */
export function requireSecret(value: unknown, name: string, what: string, hint: SecretHint = {}): string {
  if (typeof value !== 'string' || value.trim() === '') {
    throw new ConfigurationError(
      `${name} is required: ${what}; got ${describeSecret(value)}.${secretAdvice(value, hint)}`,
    );
  }
  if (!isHeaderSecret(value)) {
    throw new ConfigurationError(
      `${name} must be a string of visible ASCII characters (no spaces); got ${describeSecret(value)}.` +
        secretAdvice(value, hint),
    );
  }
  return value;
}

/**
 * A client's base URL option, checked: an http(s) URL with no credentials and no `?` or `#` at all (even empty: the
 * paths the SDK appends would land in the query or the fragment, and the request, with its credential, on another
 * path), refused with a `ConfigurationError` that never repeats the value. Returned without its trailing slashes.
 *
 * @example
 * requireBaseUrl('https://gw.example.com/', 'baseUrl'); // 'https://gw.example.com'
 * requireBaseUrl('https://gw.example.com/#', 'baseUrl'); // throws: must not carry a query, fragment or credentials
 * requireBaseUrl(undefined, 'baseUrl', 'GATEWAY_BASE_URL'); // throws, naming the variable to check
 */
export function requireBaseUrl(value: unknown, name: string, env?: string): string {
  if (typeof value !== 'string' || value.trim() === '') {
    // The environment variable the docs read it from, when they do: a variable unset where the code runs is the
    // usual reason.
    throw new ConfigurationError(
      `${name} is required, e.g. 'https://gw.example.com'.${env === undefined ? '' : secretAdvice(value, { env })}`,
    );
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    // The value is not repeated: a key pasted into the wrong variable would end up in the logs.
    throw new ConfigurationError(
      `${name} is not a valid URL (got ${value.length} characters): use e.g. 'https://gw.example.com'.`,
    );
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new ConfigurationError(`${name} must be an http(s) URL; its scheme is '${url.protocol}'.`);
  }
  // The text, not `search`/`hash`: both are '' for an empty `?` or `#`, which `href` keeps, and the paths appended
  // to it would then be a query or a fragment (`http://h/#` sends every request to `/`).
  if (/[?#]/.test(value) || url.username || url.password) {
    throw new ConfigurationError(`${name} must not carry a query, fragment or credentials.`);
  }
  return url.href.replace(/\/+$/, '');
}

/**
 * A base URL whose path already holds what the SDK appends itself, refused: `/v1` for the gateway (every path
 * starts `/v1/wa/...`), `/v2` for the platform, `/public/api/v1` for an on-premises public API. It would double
 * (`/v1/v1/wa/message`, `/public/api/v1/public/api/v1/...`) and get a 404 that names neither. The message
 * quotes the part actually given (`/v1/wa/message`, not only `/v1`).
 *
 * @param appended What the SDK appends, `v1` or `/public/api/v1`: its last segment is the version.
 */
export function refuseVersionSuffix(
  baseUrl: string,
  name: string,
  appended: string,
  example: string,
): string {
  const added = appended.split('/').filter((s) => s !== '');
  const given = new URL(baseUrl).pathname.split('/').filter((s) => s !== '');
  const lower = given.map((s) => s.toLowerCase());
  const version = added[added.length - 1]!.toLowerCase();
  let from = lower.indexOf(version);
  if (from >= 0) {
    // Back over the segments before the version that match the appended path's own: quote '/public/api/v1' whole.
    for (let a = added.length - 2; a >= 0 && from > 0 && lower[from - 1] === added[a]!.toLowerCase(); a--)
      from--;
  } else {
    // The path ends in the start of what is appended ('/public/api'), which would double too.
    for (let n = Math.min(added.length - 1, lower.length); n > 0 && from < 0; n--) {
      if (lower.slice(-n).join('/') === added.slice(0, n).join('/').toLowerCase()) from = lower.length - n;
    }
  }
  if (from < 0) return baseUrl;
  const quoted = `/${given.slice(from).join('/')}`;
  const suffix = `/${added.join('/')}`;
  throw new ConfigurationError(
    `${name} must not include '${quoted}': the SDK adds '${suffix}' itself, so requests would go to ` +
      `'...${quoted}${suffix}/...'. Use the server's root without '${quoted}', e.g. '${example}'.`,
  );
}

/**
 * An option that must be `true` or `false` when given (a client's or a call's): anything else is refused, since a
 * string such as `'false'` read from `process.env` is truthy and would turn the option on.
 */
export function optionalBoolean(value: unknown, name: string): boolean | undefined {
  if (value === undefined || typeof value === 'boolean') return value;
  const given =
    typeof value === 'string'
      ? `${/^(true|false|yes|no|on|off|[01])$/i.test(value) ? `the string '${value}'` : 'a string'} (convert an environment variable first, e.g. value === 'true')`
      : value === null
        ? 'null'
        : typeof value === 'number'
          ? String(value)
          : `a ${typeof value}`;
  throw new ConfigurationError(`${name} must be true or false; got ${given}.`);
}
