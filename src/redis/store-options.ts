/** How every Redis store checks the options it is built with: the client, the key prefix, durations. */
import { ConfigurationError } from '../core/errors.js';
import { type Logger, type LogLevel, resolveLogger } from '../core/logger.js';
import { watchConnection } from './connection-log.js';
import type { RedisClient } from './replies.js';

/** Options every Redis store accepts. */
export interface RedisStoreOptions {
  /** An ioredis client. The store never closes it; it adds one `'error'` listener (see `guardClient`). */
  redis: RedisClient;
  /** Namespace of every key this store writes. Default `wa:`. Give each environment its own. */
  prefix?: string;
  /**
   * Receives operation names and error classes only: never keys, values or tokens. Default `console`, filtered to
   * `logLevel`, as the clients' logger.
   */
  logger?: Logger;
  /** The least severe level logged (`'off'` logs nothing). Default: the `WA_GATEWAY_LOG` environment variable, else `'warn'`. */
  logLevel?: LogLevel;
}

export const DEFAULT_PREFIX = 'wa:';

/** How long a store keeps a record after its last write when its options do not say: 30 days. */
export const DEFAULT_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;

/**
 * ioredis emits `'error'` on every failed reconnect. Without a listener it prints each one to the console (it
 * does not throw), so a store attaches one listener per client, once (`watchConnection`), that logs an outage once,
 * with where and why, through the store's logger. The failures themselves reach callers as `RedisStoreError`s from
 * each operation.
 */
function guardClient(redis: RedisClient, logger: Logger | undefined, operation: string): void {
  if (typeof redis !== 'object' || redis === null || typeof redis.on !== 'function') {
    throw new ConfigurationError(`${operation}: \`redis\` must be an ioredis client (new Redis(url)).`);
  }
  // Named after the first store given this client: the one line covers every store sharing it.
  watchConnection(redis, logger, `wa-gateway-sdk: ${operation.replace(/^new /, '')}`);
}

/** A prefix checked once: a string of printable characters, so keys stay greppable. */
export function checkPrefix(prefix: unknown, operation: string): string {
  if (prefix === undefined) return DEFAULT_PREFIX;
  if (typeof prefix !== 'string' || prefix.length > 200 || /[\s\p{Cc}]/u.test(prefix)) {
    throw new ConfigurationError(
      `${operation}: \`prefix\` must be a string without spaces or control characters.`,
    );
  }
  return prefix;
}

/** Whether `value` is a positive finite number. */
export function positiveMs(value: unknown, fallback: number, name: string, operation: string): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new ConfigurationError(`${operation}: \`${name}\` must be a positive number of milliseconds.`);
  }
  return Math.ceil(value);
}

/** What a store is built on, checked once. */
export interface StoreBase {
  redis: RedisClient;
  prefix: string;
  logger: Logger | undefined;
}

/**
 * The opening every store's constructor shares: `redis` must be an ioredis client (it gets the one `'error'`
 * listener, see `guardClient`) and `prefix` a printable string (default `wa:`). Bad options throw
 * `ConfigurationError` naming `operation`.
 */
export function openStore(options: RedisStoreOptions | undefined, operation: string): StoreBase {
  // The clients' rule: the given logger, else the console, at `logLevel`, else `WA_GATEWAY_LOG`, else `warn`.
  const logger = resolveLogger({ logger: options?.logger, logLevel: options?.logLevel });
  guardClient(options?.redis as RedisClient, logger, operation);
  const { redis, prefix } = options as RedisStoreOptions;
  return { redis, prefix: checkPrefix(prefix, operation), logger };
}
