/**
 * The helpers every Redis store shares: how a call to Redis is made, how its failure becomes a
 * `RedisStoreError`, how an answer is checked, how keys are named, and how Lua scripts run. How a store checks
 * its options is in store-options.ts.
 *
 * Why ioredis: BullMQ (the durable inbox) works only with ioredis, so this entry takes one client for everything
 * instead of asking users to run two clients against one Redis.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { RedisStoreError, type RedisStoreFailure } from './errors.js';

/** The client every store takes: an ioredis `Redis` (a `Cluster` works too when all keys share a hash tag). */
export type RedisClient = Redis;

/** @internal */
export function nameOf(error: unknown): string {
  return errorMeta(error).errorName;
}

/** @internal */
export function errnoOf(error: unknown): string | undefined {
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

/** Deletes a key only if it still holds `value` (a lease's token): a holder whose lease ran out frees nothing. */
export const COMPARE_AND_DELETE = new Script(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`);

/** Extends a lease (`PEXPIRE` to ARGV[2]) only while the key still holds the holder's value ARGV[1]; 1 or 0. */
export const COMPARE_AND_PEXPIRE = new Script(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
`);
