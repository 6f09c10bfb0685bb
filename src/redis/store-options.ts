/** How every Redis store checks the options it is built with: the client, the key prefix, durations. */
import { ConfigurationError } from '../core/errors.js';
import { type Logger, log } from '../core/logger.js';
import { errnoOf, nameOf, type RedisClient } from './redis-answer.js';

/** Options every Redis store accepts. */
export interface RedisStoreOptions {
  /** An ioredis client. The store never closes it; it adds one `'error'` listener (see `guardClient`). */
  redis: RedisClient;
  /** Namespace of every key this store writes. Default `wa:`. Give each environment its own. */
  prefix?: string;
  /** Receives operation names and error classes only: never keys, values or tokens. */
  logger?: Logger;
}

export const DEFAULT_PREFIX = 'wa:';

const guarded = new WeakSet<object>();

/**
 * ioredis emits `'error'` on every failed reconnect. Without a listener it prints each one to the console (it
 * does not throw), so a store attaches one listener per client, once, that logs the error's class and errno
 * through the SDK logger. The failures themselves reach callers as `RedisStoreError`s from each operation.
 */
function guardClient(redis: RedisClient, logger: Logger | undefined, operation: string): void {
  if (typeof redis !== 'object' || redis === null || typeof redis.on !== 'function') {
    throw new ConfigurationError(`${operation}: \`redis\` must be an ioredis client (new Redis(url)).`);
  }
  if (guarded.has(redis)) return;
  guarded.add(redis);
  redis.on('error', (error: unknown) => {
    log(logger, 'warn', 'wa-gateway-sdk: the Redis connection reported an error', {
      error: nameOf(error),
      ...(errnoOf(error) ? { errno: errnoOf(error) } : {}),
    });
  });
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
  guardClient(options?.redis as RedisClient, options?.logger, operation);
  const { redis, prefix, logger } = options as RedisStoreOptions;
  return { redis, prefix: checkPrefix(prefix, operation), logger };
}
