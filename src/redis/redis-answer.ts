/**
 * The helpers every Redis store shares: how a call to Redis is made, how its failure becomes a
 * `RedisStoreError`, how an answer is checked, how keys are named, and how Lua scripts run.
 *
 * Why ioredis: BullMQ (the durable inbox) works only with ioredis, so this entry takes one client for everything
 * instead of asking users to run two clients against one Redis.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { ConfigurationError } from '../core/errors.js';
import { type Logger, log } from '../core/logger.js';
import { RedisStoreError, type RedisStoreFailure } from './errors.js';

/** The client every store takes: an ioredis `Redis` (a `Cluster` works too when all keys share a hash tag). */
export type RedisClient = Redis;

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
export function guardClient(redis: RedisClient, logger: Logger | undefined, operation: string): void {
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

function nameOf(error: unknown): string {
  return errorMeta(error).errorName;
}

function errnoOf(error: unknown): string | undefined {
  const { code } = errorMeta(error);
  return code !== undefined && /^E[A-Z]+$/.test(code) ? code : undefined;
}

/**
 * @internal The name and string `code` of an error, for logs and typed errors: never its message, which may quote
 * a command's arguments. A hostile error object (a throwing getter or Proxy) gives its `typeof`.
 */
export function errorMeta(error: unknown): { errorName: string; code?: string } {
  try {
    if (error instanceof Error) {
      const code = (error as { code?: unknown }).code;
      return typeof code === 'string' ? { errorName: error.name, code } : { errorName: error.name };
    }
  } catch {
    // A hostile error object: fall through.
  }
  return { errorName: typeof error };
}

/** Maps any failure of a Redis call to a `RedisStoreError` that holds none of the client error's text. */
export function toStoreError(error: unknown, operation: string): RedisStoreError {
  if (isStoreError(error)) return error;
  const name = nameOf(error);
  const errno = errnoOf(error);
  const failure: RedisStoreFailure = name === 'ReplyError' ? 'command_failed' : 'unavailable';
  const what =
    failure === 'command_failed'
      ? 'Redis refused the command'
      : `Redis is unreachable or the connection dropped (${errno ?? name})`;
  return new RedisStoreError(`${operation}: ${what}.`, {
    failure,
    operation,
    causeName: name,
    ...(errno ? { errno } : {}),
  });
}

function isStoreError(error: unknown): error is RedisStoreError {
  try {
    return error instanceof RedisStoreError;
  } catch {
    // A Proxy whose getPrototypeOf trap throws: not one of ours.
    return false;
  }
}

/** Runs one Redis call; any rejection (or synchronous throw) becomes a `RedisStoreError`. */
export async function call<T>(operation: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw toStoreError(error, operation);
  }
}

/** The typed error for an answer the store never writes. Names only the shape, never the value. */
export function unexpectedReply(operation: string, expected: string, got: unknown): RedisStoreError {
  const shape = Array.isArray(got) ? `an array of ${got.length}` : got === null ? 'null' : typeof got;
  return new RedisStoreError(`${operation}: Redis answered ${shape} where ${expected} was expected.`, {
    failure: 'unexpected_reply',
    operation,
  });
}

/** A number answer, or a typed error. ioredis returns Lua integers as numbers and strings as strings. */
export function expectNumber(operation: string, got: unknown): number {
  const n = typeof got === 'string' && got.trim() !== '' ? Number(got) : got;
  if (typeof n === 'number' && Number.isFinite(n)) return n;
  throw unexpectedReply(operation, 'a number', got);
}

/** One of `allowed`, or a typed error. */
export function expectOneOf<T extends string>(operation: string, got: unknown, allowed: readonly T[]): T {
  if (typeof got === 'string' && (allowed as readonly string[]).includes(got)) return got as T;
  throw unexpectedReply(operation, `one of ${allowed.join(', ')}`, got);
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

/**
 * A key for a caller-given id: its SHA-256, so neither a payload fragment nor an overlong or odd string ever
 * becomes (part of) a key name.
 */
export function hashedKey(prefix: string, kind: string, id: string): string {
  return `${prefix}${kind}:${createHash('sha256').update(id).digest('base64url')}`;
}

/** A random token that proves who holds a lease. */
export function leaseToken(): string {
  return randomBytes(16).toString('base64url');
}

/** A Lua script run by its SHA (`EVALSHA`), loaded with `EVAL` the first time a server does not know it. */
export class Script {
  readonly sha: string;
  constructor(readonly source: string) {
    this.sha = createHash('sha1').update(source).digest('hex');
  }

  async run(redis: RedisClient, keys: string[], args: (string | number)[]): Promise<unknown> {
    try {
      return await redis.evalsha(this.sha, keys.length, ...keys, ...args);
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
      return redis.eval(this.source, keys.length, ...keys, ...args);
    }
  }
}

/** Whether `value` is a positive finite number. */
export function positiveMs(value: unknown, fallback: number, name: string, operation: string): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new ConfigurationError(`${operation}: \`${name}\` must be a positive number of milliseconds.`);
  }
  return Math.ceil(value);
}

/** Deletes a key only if it still holds `value` (a lease's token): a holder whose lease ran out frees nothing. */
export const COMPARE_AND_DELETE = new Script(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`);
