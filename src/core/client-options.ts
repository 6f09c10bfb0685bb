import { checkHeaders } from './call-options.js';
import type { RequestHooks } from './hooks.js';
import { type Logger, type LogLevel, resolveLogger } from './logger.js';
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
