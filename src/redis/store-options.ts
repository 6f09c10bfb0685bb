/** How every Redis store checks the options it is built with: the client, the key prefix, names. */
import { boundedDurationMs, MAX_RETENTION_MS, MAX_TIMER_MS } from '../core/duration.js';
import { ConfigurationError } from '../core/errors.js';
import { type Logger, type LogLevel, log, resolveLogger } from '../core/logger.js';
import { isCluster, type RedisClient } from './client.js';
import { watchConnection } from './connection-log.js';
import { hashTag, KeySpace } from './keys.js';
import { notePrefix } from './replies.js';

/** Options every Redis store accepts. */
export interface RedisStoreOptions {
  /**
   * An ioredis client: `new Redis(url)` for one Redis, `new Cluster(nodes)` for a Redis Cluster (the keys then
   * spread over its slots: see docs/running-many-instances.md). The store never closes it; it adds one `'error'`
   * listener (see `guardClient`).
   */
  redis: RedisClient;
  /**
   * Namespace of every key this store writes. Default `wa:`. Give each environment its own. It needs no hash tag
   * on a Redis Cluster: one (`{wa}:`) puts every key of the store in one slot, as the previous versions asked.
   */
  prefix?: string | undefined;
  /**
   * Receives operation names and error classes only: never keys, values or tokens. Default `console`, filtered to
   * `logLevel`, as the clients' logger.
   */
  logger?: Logger | undefined;
  /** The least severe level logged (`'off'` logs nothing). Default: the `WA_GATEWAY_LOG` environment variable, else `'warn'`. */
  logLevel?: LogLevel | undefined;
}

export const DEFAULT_PREFIX = 'wa:';

/** How long a store keeps a record after its last write when its options do not say: 30 days. */
export const DEFAULT_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;

/**
 * A key's retention (`ttlMs`, `billingStopMs`, ...): `durationMs`'s rule, at most `MAX_RETENTION_MS` (5 years,
 * core/duration.ts, the router's bound too), so an absurd
 * value is a `ConfigurationError` when the store is built, not a refused command on every call.
 *
 * @example
 * const ttlMs = retentionMs(options.ttlMs, 'new MyStore: `ttlMs`', DEFAULT_RETENTION_MS);
 */
export function retentionMs(value: unknown, name: string, fallback?: number): number {
  return boundedDurationMs(value, name, fallback, MAX_RETENTION_MS);
}

/**
 * A duration that drives a timer (a lease renewed while held, a wait, a poll): `durationMs`'s rule, at most the
 * timer maximum (about 24.8 days): beyond it Node fires the timer at once, over and over.
 *
 * @example
 * const leaseMs = timerMs(options.lockLeaseMs, 'new MyStore: `lockLeaseMs`', 15_000);
 */
export function timerMs(value: unknown, name: string, fallback?: number): number {
  return boundedDurationMs(value, name, fallback, MAX_TIMER_MS);
}

/** Clients whose store prefix with a hash tag was already reported: one line per client and prefix. */
const reportedTags = new WeakMap<object, Set<string>>();

/**
 * ioredis emits `'error'` on every failed reconnect. Without a listener it prints each one to the console (it
 * does not throw), so a store attaches one listener per client, once (`watchConnection`), that logs an outage once,
 * with where and why, through the store's logger. The failures themselves reach callers as `RedisStoreError`s from
 * each operation.
 */
function guardClient(redis: RedisClient, logger: Logger | undefined, operation: string): void {
  if (typeof redis !== 'object' || redis === null || typeof redis.on !== 'function') {
    throw new ConfigurationError(
      `${operation}: \`redis\` must be an ioredis client (new Redis(url), or new Cluster(nodes) for a Redis Cluster).`,
    );
  }
  // Named after the first store given this client: the one line covers every store sharing it.
  watchConnection(redis, logger, `wa-gateway-sdk: ${operation.replace(/^new /, '')}`);
}

/** A prefix checked once: a string of printable characters, so keys stay greppable. */
export function checkPrefix(prefix: unknown, operation: string, option = 'prefix'): string {
  if (prefix === undefined) return DEFAULT_PREFIX;
  if (typeof prefix !== 'string' || prefix.length > 200 || /[\s\p{Cc}]/u.test(prefix)) {
    throw new ConfigurationError(
      `${operation}: \`${option}\` must be a string without spaces or control characters.`,
    );
  }
  // Redis reads a key's hash tag from its first '{' to the next '}': a stray or empty one in the prefix would
  // swallow the stores' own tags, and an operation's keys would land in different slots of a cluster.
  if (prefix.includes('{') && hashTag(prefix) === undefined) {
    throw new ConfigurationError(
      `${operation}: \`${option}\` '${prefix}' has a '{' without a hash tag after it: drop the braces (keys spread over a cluster), or give a whole tag such as '{wa}:' (every key in one slot).`,
    );
  }
  return prefix;
}

/**
 * A label a store puts in its key names (`name`: a limiter's budget, a token): 1 to 200 printable characters
 * without spaces. Never empty: on a cluster it is the hash tag of its keys.
 */
export function checkName(value: unknown, fallback: string, option: string, operation: string): string {
  if (value === undefined) return fallback;
  if (typeof value !== 'string' || value === '' || value.length > 200 || /[\s\p{Cc}]/u.test(value)) {
    throw new ConfigurationError(
      `${operation}: \`${option}\` must be 1 to 200 characters without spaces or control characters.`,
    );
  }
  return value;
}

/** What a store is built on, checked once. */
export interface StoreBase {
  redis: RedisClient;
  prefix: string;
  /** Where its keys live (and whether they spread over a cluster's slots). */
  keys: KeySpace;
  logger: Logger | undefined;
}

/**
 * The opening every store's constructor shares: `redis` must be an ioredis client (it gets the one `'error'`
 * listener, see `guardClient`) and `prefix` a printable string (default `wa:`). Bad options throw
 * `ConfigurationError` naming `operation`. On a cluster, a prefix holding a hash tag is reported once: it keeps
 * every key of the store in one slot.
 */
export function openStore(options: RedisStoreOptions | undefined, operation: string): StoreBase {
  // The clients' rule: the given logger, else the console, at `logLevel`, else `WA_GATEWAY_LOG`, else `warn`.
  const logger = resolveLogger({ logger: options?.logger, logLevel: options?.logLevel });
  guardClient(options?.redis as RedisClient, logger, operation);
  const { redis } = options as RedisStoreOptions;
  const prefix = checkPrefix(options?.prefix, operation);
  // ioredis puts the client's own `keyPrefix` before every key, script keys included: the slot rule applies to
  // both together, and a tag in the client's prefix keeps every key in one slot as one in the store's does.
  const own = clientKeyPrefix(redis);
  const whole = own === '' ? prefix : checkPrefix(own + prefix, operation, 'keyPrefix` + `prefix');
  if (isCluster(redis) && hashTag(whole) !== undefined) reportTaggedPrefix(redis, whole, logger);
  notePrefix(whole);
  const keys =
    own === ''
      ? KeySpace.for(redis, prefix)
      : new KeySpace(prefix, isCluster(redis) && hashTag(whole) === undefined);
  return { redis, prefix, keys, logger };
}

/** The `keyPrefix` ioredis puts before every key of this client (on a `Cluster`, its own or its nodes'). */
function clientKeyPrefix(redis: RedisClient): string {
  const options = (redis as { options?: { keyPrefix?: unknown; redisOptions?: { keyPrefix?: unknown } } })
    .options;
  const own = options?.keyPrefix ?? options?.redisOptions?.keyPrefix;
  return typeof own === 'string' ? own : '';
}

function reportTaggedPrefix(redis: RedisClient, prefix: string, logger: Logger | undefined): void {
  const seen = reportedTags.get(redis) ?? new Set<string>();
  reportedTags.set(redis, seen);
  if (seen.has(prefix)) return;
  seen.add(prefix);
  log(
    logger,
    'warn',
    `wa-gateway-sdk: the Redis store prefix '${prefix}' holds a hash tag, so every key of the stores using it ` +
      'sits in one slot of the cluster (one primary takes all their load). The stores spread their keys by ' +
      'themselves: drop the braces once the state kept under this prefix may go (docs/running-many-instances.md, ' +
      '"Upgrading").',
  );
}
