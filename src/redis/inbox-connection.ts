/**
 * The inbox's Redis connections. The inbox always owns the connections it uses (it builds them from a URL, from
 * ioredis options, or by duplicating a client it is given), so it can choose the options each role needs and close
 * them without touching the application's own client:
 * - the receiver's connection fails fast (no offline queue, a command timeout): a Redis that is down must turn
 *   into a 5xx within the gateway's 5 s, never into a request that waits for a reconnect;
 * - the worker's connection waits (BullMQ's blocking reads need `maxRetriesPerRequest: null`).
 *
 * A Redis Cluster is given as an ioredis `Cluster`: the inbox duplicates it with the same options, its own on
 * top (the node-level ones in `redisOptions`).
 */
import type * as IORedis from 'ioredis';
import type { Cluster, Redis, RedisOptions } from 'ioredis';
import { ConfigurationError } from '../core/errors.js';
import { type Logger, log } from '../core/logger.js';
import { loadOptionalPeer } from '../core/optional-peer.js';
import { connectedToClusterNode, isCluster, type RedisClient } from './client.js';
import { watchConnection } from './connection-log.js';
import { InboxError } from './errors.js';

/**
 * Where the inbox's Redis is: a `redis://` URL, ioredis options, or an ioredis client whose settings are copied
 * (a `Cluster` for a Redis Cluster).
 */
export type InboxConnection = string | RedisOptions | Redis | Cluster;

/** What the inbox sets on its own connections: `enableOfflineQueue` on the client, the rest on each node. */
export interface ConnectionOverrides extends Pick<RedisOptions, 'maxRetriesPerRequest' | 'commandTimeout'> {
  enableOfflineQueue?: boolean;
}

/**
 * @internal The overrides of a BullMQ worker's connection: its blocking reads wait for seconds, so they need no
 * retry limit and no `commandTimeout`, which the docs advise for the stores' client and a duplicate would copy
 * (every wait for a job would then fail as timed out).
 */
export const BLOCKING_READS: ConnectionOverrides = { maxRetriesPerRequest: null, commandTimeout: undefined };

/** @internal Opens a connection of the inbox's own, with `overrides` on top of the caller's settings. */
export function openRedis(
  connection: InboxConnection,
  overrides: ConnectionOverrides,
  logger: Logger | undefined,
  role: string,
): RedisClient {
  let client: RedisClient;
  if (isCluster(connection)) {
    const { enableOfflineQueue, ...node } = overrides;
    client = connection.duplicate([], {
      ...connection.options,
      ...(enableOfflineQueue === undefined ? {} : { enableOfflineQueue }),
      redisOptions: { ...connection.options.redisOptions, ...node },
    });
  } else if (typeof (connection as Partial<Redis>).duplicate === 'function') {
    // Duck-typed: a client from another copy of ioredis (two versions installed) is still a client.
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

/** What the inbox says when its standalone connection reached a node of a Redis Cluster. */
const CLUSTER_NODE =
  'Redis is a node of a Redis Cluster and the inbox was given a standalone connection (a URL, options or a ' +
  'Redis client): BullMQ would be answered MOVED for its keys over and over. Give `connection` an ioredis Cluster ' +
  'instead: `new Cluster([{ host, port }])`';

/** @internal The error every inbox operation answers once its standalone connection was found on a cluster node. */
export function clusterNodeError(): InboxError {
  return new InboxError(CLUSTER_NODE, 'needs_cluster_client');
}

/**
 * @internal Asks once, when the connection is ready, whether a standalone connection reached a cluster node; if so
 * logs it (an error, once) and calls `found` so that the inbox stops instead of looping on `MOVED`.
 */
export function refuseClusterNode(
  client: RedisClient,
  logger: Logger | undefined,
  role: string,
  found: () => void,
): void {
  void connectedToClusterNode(client).then((yes) => {
    if (!yes) return;
    log(logger, 'error', `${role}: ${CLUSTER_NODE}.`);
    found();
  });
}

/** @internal Closes a connection the inbox owns: politely when it can, at once when Redis is gone. */
export async function closeRedis(client: RedisClient): Promise<void> {
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
