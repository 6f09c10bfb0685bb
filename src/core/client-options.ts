import { checkHeaders } from './call-options.js';
import { durationMs } from './duration.js';
import type { RequestHooks } from './hooks.js';
import { type Logger, type LogLevel, resolveLogger } from './logger.js';
import { nonNegativeInt } from './options.js';
import type { SendLimiter } from './rate-limiter.js';
import type { RetryRules } from './retry-policy.js';
import { loadTracing } from './tracing.js';
import type { TransportConfig } from './transport.js';

/** Options every client shares: headers, logging and observation. */
export interface CommonClientOptions extends RequestHooks {
  /**
   * Headers sent with every request (a proxy's routing header, a tenant tag). Per-call `headers` override
   * them; neither can set `authorization`, `cookie`, `host` or `content-type` (a `ConfigurationError`).
   */
  defaultHeaders?: Readonly<Record<string, string>>;
  /**
   * Receives request metadata only: never keys, tokens, headers, bodies or phone numbers. Default `console`,
   * filtered to `logLevel`.
   */
  logger?: Logger;
  /** Default: the `WA_GATEWAY_LOG` environment variable, else `'warn'`. */
  logLevel?: LogLevel;
}

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
 * (30 s timeout, 2 retries, waits up to 60 s honoured), plus what the client knows: its retry table, its
 * secrets and its limiter. Knows no endpoint. Loads the optional tracing peer, as every client needs it.
 */
export function transportConfigOf(
  options: TransportOptions,
  client: {
    retryRules: RetryRules;
    secrets: () => readonly string[];
    rateLimiter?: SendLimiter | undefined;
  },
): ClientTransportConfig {
  loadTracing();
  return {
    timeoutMs: durationMs(options.timeoutMs, 'timeoutMs', 30_000),
    maxRetries: nonNegativeInt(options.maxRetries, 'maxRetries') ?? 2,
    maxRetryWaitMs: durationMs(options.maxRetryWaitMs, 'maxRetryWaitMs', 60_000),
    retryRules: client.retryRules,
    secrets: client.secrets,
    rateLimiter: client.rateLimiter,
    fetch: options.fetch,
    ...commonTransportConfig(options),
  };
}
