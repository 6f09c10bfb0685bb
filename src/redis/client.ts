/**
 * The client every store and the inbox take: an ioredis `Redis` (one node, or a primary with replicas behind a
 * single endpoint) or an ioredis `Cluster`. Which one decides how keys are placed (see keys.ts).
 */
import type { Cluster, Redis } from 'ioredis';

/** An ioredis client: `new Redis(url)` for one node, `new Cluster(nodes)` for a Redis Cluster. */
export type RedisClient = Redis | Cluster;

/** Whether `client` is an ioredis `Cluster` (duck-typed: a copy from another ioredis version counts too). */
export function isCluster(client: unknown): client is Cluster {
  return (
    typeof client === 'object' && client !== null && (client as { isCluster?: unknown }).isCluster === true
  );
}

/** What a standalone client learnt about its server, once per client. */
const probed = new WeakMap<object, Promise<boolean>>();

/**
 * @internal Whether a standalone client is connected to a node of a Redis Cluster (`INFO cluster` answers
 * `cluster_enabled:1`): it would then be answered `MOVED` for most keys. Asked once per client, once it is
 * ready; `false` for a `Cluster`, and when the server does not say (a proxy refusing `INFO`).
 */
export function connectedToClusterNode(client: RedisClient): Promise<boolean> {
  if (isCluster(client)) return Promise.resolve(false);
  let answer = probed.get(client);
  if (answer === undefined) {
    answer = new Promise<void>((resolve) => {
      if (client.status === 'ready') resolve();
      else client.once('ready', () => resolve());
    })
      .then(() => client.info('cluster'))
      .then(
        (info) => /^cluster_enabled:1\b/m.test(String(info)),
        () => false,
      );
    probed.set(client, answer);
  }
  return answer;
}
