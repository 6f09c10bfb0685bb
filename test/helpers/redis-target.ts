/**
 * Where a Redis suite runs: one redis-server, or a Redis Cluster (redis-cluster.ts). A suite written against a
 * `RedisTarget` runs on both: `npm test` runs it on one node, a `*.proof.test.ts` on the cluster.
 *
 * Child processes get the target's `url`: `redis://127.0.0.1:<port>` or `redis-cluster://127.0.0.1:<p>,...`,
 * which `connect()` turns into an ioredis `Redis` or `Cluster`.
 */
import { Cluster, Redis, type RedisOptions } from 'ioredis';
import { afterAll, beforeAll, expect } from 'vitest';
import type { RedisClient } from '../../src/redis/index.js';
import { type RedisCluster, sharedCluster, startRedisCluster } from './redis-cluster.js';
import { type RedisServer, startRedis, whenClient } from './redis-server.js';

export type TargetKind = 'node' | 'cluster';

/** Where the multi-process proofs run: one node, then a cluster. */
export const TARGETS: readonly TargetKind[] = ['node', 'cluster'];

/** A suite title's suffix for a target. */
export function onTarget(kind: TargetKind): string {
  return kind === 'node' ? 'on one redis-server' : 'on a Redis Cluster';
}

export interface RedisTarget {
  readonly kind: TargetKind;
  /** What a child process passes to `connect()`. */
  readonly url: string;
  /** The suite's own client, connected (a `Cluster` on a cluster). */
  readonly redis: RedisClient;
  /** Another connected client, as another process would have; closed with the suite. */
  newClient(options?: RedisOptions): Promise<RedisClient>;
  /** Deletes every key (every primary of a cluster). */
  flush(): Promise<void>;
  /** Every key matching `pattern` (on every primary of a cluster), sorted. */
  keys(pattern: string): Promise<string[]>;
  /** How many keys matching `pattern` each primary holds (one entry on one node). */
  keysPerPrimary(pattern: string): Promise<number[]>;
  /** `CROSSSLOT` refusals counted by the servers since they started (0 on one node). */
  crossSlotErrors(): Promise<number>;
  /** Zeroes the servers' error counts (after a test that provokes refusals on purpose). */
  resetErrorStats(): Promise<void>;
  /** The single redis-server (`kind: 'node'`), for suites that stop or kill it. */
  readonly server: RedisServer | undefined;
  /** The cluster (`kind: 'cluster'`). */
  readonly cluster: RedisCluster | undefined;
}

/** An ioredis client for a target URL: `redis-cluster://h:p,h:p` gives a `Cluster`, anything else a `Redis`. */
export function connect(url: string, options: RedisOptions = {}): RedisClient {
  const cluster = /^redis-cluster:\/\/(.+)$/.exec(url);
  if (!cluster) return new Redis(url, options);
  const nodes = cluster[1]!.split(',').map((n) => {
    const [host, port] = n.split(':');
    return { host: host!, port: Number(port) };
  });
  return new Cluster(nodes, { redisOptions: options });
}

/** What the inbox takes for a target URL: the URL itself for one node, an ioredis `Cluster` for a cluster. */
export function inboxConnection(url: string): string | RedisClient {
  return url.startsWith('redis-cluster://') ? connect(url) : url;
}

/** Resolves once a `Redis` or `Cluster` is ready. */
export function whenReady(client: RedisClient): Promise<void> {
  return whenClient(client, 'ready');
}

/** SCAN on one node for `pattern`. */
async function scanNode(node: Redis, pattern: string): Promise<string[]> {
  const out: string[] = [];
  let cursor = '0';
  do {
    const [next, keys] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
    cursor = next;
    out.push(...keys);
  } while (cursor !== '0');
  return out;
}

function primariesOf(client: RedisClient): Redis[] {
  return client instanceof Cluster ? client.nodes('master') : [client];
}

/**
 * Inside a `describeRedis`: the suite's target, started before its tests and stopped after them (a cluster once
 * per suite file at most: CI's, or one of its own). Read it in tests through the returned getter. A suite that
 * flushes the cluster between its tests asks for an `exclusive` one: CI's is shared by proof files running at
 * the same time.
 */
export function useRedisTarget(kind: TargetKind, options: { exclusive?: boolean } = {}): () => RedisTarget {
  let target: RedisTarget | undefined;
  const clients: RedisClient[] = [];
  let dispose: () => Promise<void> = async () => {};
  beforeAll(async () => {
    let url: string;
    let server: RedisServer | undefined;
    let cluster: RedisCluster | undefined;
    if (kind === 'node') {
      server = await startRedis();
      url = server.url;
      dispose = () => server!.dispose();
    } else {
      cluster = options.exclusive ? await startRedisCluster() : await sharedCluster();
      url = cluster.url;
      dispose = () => cluster!.dispose();
    }
    const newClient = async (options: RedisOptions = {}) => {
      const client = connect(url, { maxRetriesPerRequest: 1, ...options });
      clients.push(client);
      await whenReady(client);
      return client;
    };
    const redis = await newClient();
    target = {
      kind,
      url,
      redis,
      newClient,
      server,
      cluster,
      async flush() {
        await Promise.all(primariesOf(redis).map((node) => node.flushall()));
      },
      async keys(pattern) {
        const all = await Promise.all(primariesOf(redis).map((node) => scanNode(node, pattern)));
        return all.flat().sort();
      },
      async keysPerPrimary(pattern) {
        return Promise.all(primariesOf(redis).map(async (node) => (await scanNode(node, pattern)).length));
      },
      async crossSlotErrors() {
        const counts = await Promise.all(
          primariesOf(redis).map(async (node) => {
            const stats = String(await node.info('errorstats'));
            return Number(/errorstat_CROSSSLOT:count=(\d+)/.exec(stats)?.[1] ?? 0);
          }),
        );
        return counts.reduce((a, b) => a + b, 0);
      },
      async resetErrorStats() {
        await Promise.all(primariesOf(redis).map((node) => node.config('RESETSTAT')));
      },
    };
  }, 60_000);
  afterAll(async () => {
    // Every suite on a cluster ends by checking that no command of it was refused for keys of two slots.
    const crossSlot = kind === 'cluster' && target ? await target.crossSlotErrors() : 0;
    for (const client of clients.splice(0)) client.disconnect();
    await dispose();
    expect(crossSlot, 'commands refused with CROSSSLOT').toBe(0);
  }, 60_000);
  return () => {
    if (!target) throw new Error('the Redis target is not started (use it inside a test or hook)');
    return target;
  };
}
