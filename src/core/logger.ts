/**
 * The one logger contract of the SDK (clients and webhook handlers alike). Compatible with `console`, pino and
 * winston. The SDK passes only request metadata (method, path, status, attempt, timing, request id, error
 * code): never headers, bodies, phone numbers, keys or tokens.
 */
import { ConfigurationError } from './errors.js';
export interface Logger {
  debug?(message: string, meta?: Record<string, unknown>): void;
  info?(message: string, meta?: Record<string, unknown>): void;
  warn?(message: string, meta?: Record<string, unknown>): void;
  error?(message: string, meta?: Record<string, unknown>): void;
}

type Level = keyof Logger;

/** How much the SDK logs. `off` logs nothing; each level includes the ones after it. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'off';

const LEVELS: readonly LogLevel[] = ['debug', 'info', 'warn', 'error', 'off'];

/** The environment variable read when neither `logger` nor `logLevel` says otherwise. */
export const LOG_ENV = 'WA_GATEWAY_LOG';

/**
 * The logger a client uses: `logger` (default `console`) filtered to `logLevel`, else to the `WA_GATEWAY_LOG`
 * environment variable, else to `warn`. The result has only the methods of the enabled levels, so a
 * disabled level costs one property read; `undefined` when nothing is logged at all.
 */
export function resolveLogger(options: {
  logger?: Logger | undefined;
  logLevel?: LogLevel | undefined;
}): Logger | undefined {
  const level = options.logLevel ?? levelFromEnv() ?? 'warn';
  if (!LEVELS.includes(level)) {
    throw new ConfigurationError(`logLevel must be one of ${LEVELS.join(', ')}; got ${String(level)}.`);
  }
  const target = options.logger ?? (globalThis as { console?: Logger }).console;
  if (level === 'off' || !target) return undefined;
  const out: Logger = {};
  for (const l of LEVELS.slice(LEVELS.indexOf(level), 4) as Level[]) {
    if (typeof target[l] !== 'function') continue;
    out[l] = (message, meta) => {
      try {
        target[l]?.(message, meta);
      } catch {
        // A logger that throws must not turn a successful send into a failure.
      }
    };
  }
  return out;
}

/** `WA_GATEWAY_LOG`, when set to a level; an unknown value is ignored (it comes from a shell, not code). */
export function levelFromEnv(): LogLevel | undefined {
  let value: unknown;
  try {
    // Deno without --allow-env throws on access; Workers have no process at all.
    value = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env?.[
      LOG_ENV
    ];
  } catch {
    return undefined;
  }
  if (typeof value !== 'string') return undefined;
  const v = value.trim().toLowerCase() as LogLevel;
  return LEVELS.includes(v) ? v : undefined;
}

/** Calls the logger without ever letting a broken logger break a request. */
export function log(
  logger: Logger | undefined,
  level: Level,
  message: string,
  meta?: Record<string, unknown>,
) {
  if (!logger) return;
  try {
    logger[level]?.(message, meta);
  } catch {
    // A logger that throws must not turn a successful send into a failure.
  }
}
