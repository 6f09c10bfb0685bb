/**
 * Where a BullMQ queue of the SDK keeps its keys (the durable inbox; the campaign queue). BullMQ runs each
 * operation of a queue as one Lua script over many of its keys, so on a Redis Cluster every key of a queue must
 * share one slot: the SDK gives the queue a prefix with a hash tag naming it, `<prefix>:{<queue>}`. Each queue
 * then lives in one slot (BullMQ's design), and different queues spread over the cluster.
 */
import { isCluster, type RedisClient } from './client.js';

/**
 * The BullMQ `prefix` for queue `name`: `<prefix>:{<name>}` on an ioredis `Cluster`; `prefix` itself on one node,
 * where the keys keep the names they had before the SDK knew clusters (an upgrade finds its jobs).
 *
 * @example
 * const queue = new Queue(name, { connection: redis, prefix: queuePrefix(redis, 'bull', name) });
 */
export function queuePrefix(client: RedisClient, prefix: string, name: string): string {
  return isCluster(client) ? `${prefix}:{${name}}` : prefix;
}
