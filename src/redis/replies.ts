/**
 * How a store's call to Redis is made and its answer checked: any failure becomes a `RedisStoreError` that holds
 * none of the client error's text (ioredis attaches the command's arguments, tokens included, to its errors), and
 * an answer of a shape the store never writes is a typed error too.
 *
 * Why ioredis: BullMQ (the durable inbox) works only with ioredis, so this entry takes one client for everything
 * instead of asking users to run two clients against one Redis.
 */
import { ConfigurationError } from '../core/errors.js';
import {
  CampaignQueueError,
  errorMeta,
  messageOf,
  RedisStoreError,
  type RedisStoreFailure,
} from './errors.js';

/** @internal */
export function nameOf(error: unknown): string {
  return errorMeta(error).errorName;
}

/** @internal */
export function errnoOf(error: unknown): string | undefined {
  const { code } = errorMeta(error);
  return code !== undefined && /^E[A-Z]+$/.test(code) ? code : undefined;
}

/** A cluster node's refusal to serve a key of another node's slots: the client is not a cluster client. */
const NEEDS_CLUSTER = {
  failure: 'needs_cluster_client',
  what:
    'this Redis is a node of a Redis Cluster and the client is a standalone one (Redis answered MOVED). ' +
    "Connect with ioredis's Cluster instead: `new Cluster([{ host, port }])`, with the same options",
} as const;

/**
 * @internal The typed error of a standalone client connected to a cluster node, for a call that found nothing
 * where it looked: on a cluster node, a key may be absent because the client reads it under its standalone name.
 */
export function clusterClientNeeded(operation: string): RedisStoreError {
  return new RedisStoreError(`${operation}: ${NEEDS_CLUSTER.what}.`, {
    failure: NEEDS_CLUSTER.failure,
    operation,
  });
}

/**
 * Error replies the stores explain, by their first word (never the rest of the reply: a key is named only as
 * `wrongType` finds it, and a reply may quote a value).
 * Any other `ReplyError` is `command_failed`; any other error (connection, timeout) is `unavailable`.
 */
const REPLIES: Readonly<Record<string, { failure: RedisStoreFailure; what: string }>> = {
  MOVED: NEEDS_CLUSTER,
  ASK: NEEDS_CLUSTER,
  // The stores never send keys of two slots in one command to a `Cluster` client (the cluster proofs count 0):
  // this comes from a cluster, or a proxy in front of one, reached through a standalone client.
  CROSSSLOT: {
    failure: 'needs_cluster_client',
    what:
      'Redis refused one command over keys of different hash slots (CROSSSLOT). Through a standalone client: it ' +
      "is a Redis Cluster, or a proxy in front of one; connect with ioredis's Cluster instead " +
      '(`new Cluster([{ host, port }])`, with the same options). Through a Cluster: a hash tag the store does ' +
      "not know split its keys (the client's `keyPrefix`?)",
  },
  CLUSTERDOWN: {
    failure: 'unavailable',
    what: 'the Redis Cluster cannot serve this slot right now (CLUSTERDOWN: a failover under way?)',
  },
  TRYAGAIN: { failure: 'unavailable', what: 'the Redis Cluster is moving this slot (TRYAGAIN)' },
  READONLY: {
    failure: 'unavailable',
    what: 'Redis is a read-only replica (READONLY: a failover under way, or a URL pointing at a replica)',
  },
  LOADING: { failure: 'unavailable', what: 'Redis is loading its data set (LOADING)' },
  OOM: { failure: 'command_failed', what: 'Redis is out of memory (OOM; see maxmemory)' },
  // A key of this store's holds another type of value: the store writes no such key, so another program does.
  // Its message names the key and the prefix when they are known (`wrongType`).
  WRONGTYPE: {
    failure: 'unexpected_reply',
    what: "a key under this store's prefix",
  },
  NOAUTH: {
    failure: 'command_failed',
    what: 'Redis asks for a password and the client gave none (NOAUTH): put it in the URL or in `password`',
  },
  WRONGPASS: {
    failure: 'command_failed',
    what: "Redis refused the client's username or password (WRONGPASS)",
  },
  NOPERM: {
    failure: 'command_failed',
    what: "the Redis user lacks a permission this store needs (NOPERM): see the user's ACL",
  },
  LEASE_LOST: {
    failure: 'lease_lost',
    what: 'this holder no longer holds the lease (it ran out, or another holder took it); nothing was written',
  },
};

/**
 * ioredis's own error when a command got no answer within the client's `commandTimeout`: a Redis that accepts
 * and never answers (frozen, overloaded, cut off by the network). A plain `Error`, told by its fixed message.
 */
function isCommandTimeout(error: unknown): boolean {
  try {
    return error instanceof Error && error.name === 'Error' && error.message === 'Command timed out';
  } catch {
    return false;
  }
}

/** The first word of a Redis error reply (`MOVED`, `CROSSSLOT`), or `undefined` for any other error. */
export function replyCode(error: unknown): string | undefined {
  try {
    if (error instanceof Error && error.name === 'ReplyError')
      return /^[A-Z_]{2,20}\b/.exec(error.message)?.[0];
  } catch {
    // A hostile error: no code.
  }
  return undefined;
}

/**
 * Every store's whole key prefix (the client's `keyPrefix`, then the store's), to say which one a key of another
 * program's is under. Bounded: stores are made at start-up, a few per process.
 */
const storePrefixes = new Set<string>();
const MAX_PREFIXES_KEPT = 1000;

/** @internal Notes a store's whole key prefix (`openStore` does, for each store). */
export function notePrefix(prefix: string): void {
  if (storePrefixes.size < MAX_PREFIXES_KEPT) storePrefixes.add(prefix);
}

/** The longest store prefix `key` starts with, if any. */
function prefixOf(key: string): string | undefined {
  let found: string | undefined;
  for (const prefix of storePrefixes) {
    if (key.startsWith(prefix) && (found === undefined || prefix.length > found.length)) found = prefix;
  }
  return found;
}

/**
 * The key a `WRONGTYPE` refusal was about: named by the scripts' wrapper (script.ts), else given by the caller (a
 * transaction's command: ioredis keeps no command on its errors), else the key of a one-key command (ioredis keeps
 * the command on its error). A key name holds the prefix, a kind, hashes and labels, never a
 * value; one that is not such a printable name is not repeated.
 */
function wrongKeyOf(error: unknown, given: string | undefined): string | undefined {
  let key = /^WRONGTYPE key (\S+) holds /.exec(messageOf(error))?.[1] ?? given;
  if (key === undefined) {
    try {
      const command = (error as { command?: { name?: unknown; args?: unknown } }).command;
      const first: unknown = Array.isArray(command?.args) ? command.args[0] : undefined;
      if (typeof command?.name === 'string' && !/^eval/i.test(command.name) && typeof first === 'string')
        key = first;
    } catch {
      // A hostile error: no key.
    }
  }
  return key !== undefined && /^[^\s\p{Cc}]{1,300}$/u.test(key) ? key : undefined;
}

/** What a `WRONGTYPE` refusal means, naming the key and the store prefix it is under when they are known. */
function wrongType(error: unknown, given: string | undefined): string {
  const key = wrongKeyOf(error, given);
  const prefix = key === undefined ? undefined : prefixOf(key);
  const where =
    key === undefined
      ? "a key under this store's prefix"
      : `the key '${key}'${prefix === undefined ? '' : ` (under the store's prefix '${prefix}')`}`;
  return (
    `${where} holds another type of value (WRONGTYPE): another program may write under the same prefix; ` +
    'give the store a `prefix` of its own'
  );
}

/**
 * Maps any failure of a Redis call to a `RedisStoreError` that holds none of the client error's text. `key`: the
 * key of the command that failed, when the error cannot say it (a transaction's).
 */
export function toStoreError(error: unknown, operation: string, key?: string): RedisStoreError {
  if (isStoreError(error)) return error;
  const name = nameOf(error);
  const errno = errnoOf(error);
  const code = replyCode(error) ?? '';
  const known = REPLIES[code];
  const failure: RedisStoreFailure =
    known?.failure ?? (name === 'ReplyError' ? 'command_failed' : 'unavailable');
  const what =
    code === 'WRONGTYPE'
      ? wrongType(error, key)
      : (known?.what ??
        (failure === 'command_failed'
          ? 'Redis refused the command'
          : isCommandTimeout(error)
            ? "Redis did not answer within the client's commandTimeout (frozen, overloaded or cut off)"
            : `Redis is unreachable or the connection dropped (${errno ?? name})`));
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
    // The caller's own bad input, found on the way (an id that is not a string), or a queue closed under the call:
    // theirs to fix, not an outage.
    if (error instanceof ConfigurationError || error instanceof CampaignQueueError) throw error;
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

/**
 * The answers of a pipeline or transaction of `count` commands, in order: a command's error is thrown as a
 * `RedisStoreError`, and a missing or short answer as an unexpected reply. `keys`: each command's key, for a
 * `WRONGTYPE` refusal to name it.
 */
export function pipelineAnswers(
  operation: string,
  replies: [Error | null, unknown][] | null,
  count: number,
  keys: readonly (string | undefined)[] = [],
): unknown[] {
  if (!replies || replies.length !== count) throw unexpectedReply(operation, `${count} answers`, replies);
  const failed = replies.findIndex(([error]) => error !== null);
  if (failed >= 0) throw toStoreError(replies[failed]![0], operation, keys[failed]);
  return replies.map(([, value]) => value);
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
