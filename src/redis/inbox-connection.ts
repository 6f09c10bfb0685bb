/**
 * The inbox's Redis connections. The inbox always owns the connections it uses (it builds them from a URL, from
 * ioredis options, or by duplicating a client it is given), so it can choose the options each role needs and close
 * them without touching the application's own client:
 * - the receiver's connection fails fast (no offline queue, a command timeout): a Redis that is down must turn
 *   into a 5xx within the gateway's 5 s, never into a request that waits for a reconnect;
 * - the worker's connection waits (BullMQ's blocking reads need `maxRetriesPerRequest: null`).
 */
import type * as IORedis from 'ioredis';
import type { Redis, RedisOptions } from 'ioredis';
import { ConfigurationError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import { loadOptionalPeer } from '../core/optional-peer.js';
import { watchConnection } from './connection-log.js';

/** Where the inbox's Redis is: a `redis://` URL, ioredis options, or an ioredis client whose settings are copied. */
export type InboxConnection = string | RedisOptions | Redis;

/** @internal Opens a connection of the inbox's own, with `overrides` on top of the caller's settings. */
export function openRedis(
  connection: InboxConnection,
  overrides: RedisOptions,
  logger: Logger | undefined,
  role: string,
): Redis {
  let client: Redis;
  // Duck-typed: a client from another copy of ioredis (two versions installed) is still a client.
  if (typeof (connection as Partial<Redis>).duplicate === 'function') {
    client = (connection as Redis).duplicate(overrides);
  } else if (typeof connection === 'string') {
    if (!/^rediss?:\/\//.test(connection)) {
      // The URL itself may hold a password: never quote it.
      throw new ConfigurationError(`${role}: \`connection\` must be a redis:// or rediss:// URL`);
    }
    const { Redis } = loadOptionalPeer<typeof IORedis>('ioredis', role);
    client = new Redis(connection, overrides);
  } else if (typeof connection === 'object' && connection !== null) {
    const { Redis } = loadOptionalPeer<typeof IORedis>('ioredis', role);
    client = new Redis({ ...(connection as RedisOptions), ...overrides });
  } else {
    throw new ConfigurationError(
      `${role}: \`connection\` must be a redis:// URL, ioredis options or an ioredis client`,
    );
  }
  // An 'error' event without a listener crashes the process: a Redis that goes away must never do that.
  watchConnection(client, logger, role);
  return client;
}

/** @internal Closes a connection the inbox owns: politely when it can, at once when Redis is gone. */
export async function closeRedis(client: Redis): Promise<void> {
  if (client.status === 'end') return;
  if (client.status !== 'ready') {
    client.disconnect();
    return;
  }
  try {
    await client.quit();
  } catch {
    client.disconnect();
  }
}
