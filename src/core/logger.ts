/**
 * The logger a client accepts. Compatible with `console`, pino and winston. The SDK passes only request
 * metadata (method, path, status, attempt, timing, error code): never headers, bodies, keys or tokens.
 */
export interface Logger {
  debug?(message: string, meta?: Record<string, unknown>): void;
  info?(message: string, meta?: Record<string, unknown>): void;
  warn?(message: string, meta?: Record<string, unknown>): void;
  error?(message: string, meta?: Record<string, unknown>): void;
}

type Level = keyof Logger;

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
