/**
 * Informational (issue 34): the Redis stores on a Redis Cluster (three primaries, three replicas on loopback) against
 * one redis-server, in the same run. Each figure is a throughput ratio, cluster / one node, from one process with
 * many operations in flight:
 * - the shared limiter: `acquire` and its release, with a budget far above what is sent (Redis is the limit);
 * - deduplication: `claim` then `complete` of distinct events (`RedisIdempotencyStore`);
 * and what the kit's script wrapper costs (every written key's expiry, the write check): the same script body
 * wrapped and bare, on one node. On one machine the cluster's primaries share its cores with the client, so the
 * ratio is what the routing costs a client, not what more shards buy. Needs redis-server (skipped without it).
 */
import { performance } from 'node:perf_hooks';
import { Redis } from 'ioredis';
import { type RedisClient, RedisIdempotencyStore, RedisRateLimiter } from '../src/redis/index.js';
import { Script, writes } from '../src/redis/script.js';
import { startRedisCluster } from '../test/helpers/redis-cluster.js';
import { startRedis, whenClient } from '../test/helpers/redis-server.js';
import { available, redisServer } from '../test/helpers/system-servers.js';
import { QUICK, report, round } from './lib.js';

const OPS = QUICK ? 4_000 : 20_000;
const IN_FLIGHT = 64;
const ROUNDS = QUICK ? 3 : 5;

/** Operations per second: `ops` calls of `one(i)`, `IN_FLIGHT` at a time; the median of `ROUNDS` rounds. */
async function throughput(one: (i: number) => Promise<unknown>): Promise<number> {
  const rates: number[] = [];
  for (let round = 0; round <= ROUNDS; round++) {
    let next = 0;
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        for (let i = next++; i < OPS; i = next++) await one(round * OPS + i);
      }),
    );
    // Round 0 warms the connections and the script caches.
    if (round > 0) rates.push(OPS / ((performance.now() - t0) / 1000));
  }
  rates.sort((a, b) => a - b);
  return rates[Math.floor(rates.length / 2)]!;
}

/** Limiter and dedup throughput against one client. */
async function measure(redis: RedisClient, tag: string): Promise<{ limiter: number; dedup: number }> {
  const limiter = new RedisRateLimiter({ redis, name: `bench-${tag}`, perSecond: 1_000_000 });
  const dedup = new RedisIdempotencyStore({ redis, prefix: `bench-${tag}:` });
  return {
    limiter: await throughput(async () => (await limiter.acquire())()),
    dedup: await throughput(async (i) => {
      await dedup.claim(`event-${i}`, 5_000);
      await dedup.complete(`event-${i}`, 60_000);
    }),
  };
}

if (!available(redisServer)) {
  console.log(`redis-cluster: skipped (${redisServer.enable})`);
} else {
  const server = await startRedis();
  const cluster = await startRedisCluster();
  const node = new Redis(server.url);
  const nodes = await cluster.client();
  try {
    await whenClient(node, 'ready');
    const one = await measure(node, 'node');
    const many = await measure(nodes, 'cluster');
    report({
      bench: 'redis-cluster',
      metric: `RedisRateLimiter acquire+release per second, Cluster / one node (${IN_FLIGHT} in flight)`,
      value: many.limiter / one.limiter,
      unit: 'x',
      bar: 'informational',
      pass: true,
      detail: { clusterPerSecond: round(many.limiter, 0), nodePerSecond: round(one.limiter, 0) },
    });
    report({
      bench: 'redis-cluster',
      metric: `RedisIdempotencyStore claim+complete per second, Cluster / one node (${IN_FLIGHT} in flight)`,
      value: many.dedup / one.dedup,
      unit: 'x',
      bar: 'informational',
      pass: true,
      detail: { clusterPerSecond: round(many.dedup, 0), nodePerSecond: round(one.dedup, 0) },
    });
    // The kit's wrapper against the same body sent bare (the expiry set by the body itself): Redis's own count of
    // the time each EVALSHA takes inside the server (INFO commandstats), alternated over rounds, the median kept.
    const body = `
local cur = tonumber(redis.call('GET', KEYS[1]))
if cur == nil or cur < tonumber(ARGV[1]) then redis.call('SET', KEYS[1], ARGV[1]) end
return 1`;
    const wrapped = new Script(body);
    const bareSha = String(
      await node.script('LOAD', body.replace('ARGV[1]) end', "ARGV[1], 'PX', ARGV[2]) end")),
    );
    const serverMicros = async (run: (i: number) => Promise<unknown>): Promise<number> => {
      await node.config('RESETSTAT');
      for (let i = 0; i < OPS / 4; i++) await run(i);
      const stats = String(await node.info('commandstats'));
      return Number(/cmdstat_evalsha:calls=\d+,usec=\d+,usec_per_call=([\d.]+)/.exec(stats)?.[1]);
    };
    const kit: number[] = [];
    const plain: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      kit.push(await serverMicros((i) => wrapped.run(node, [writes(`kit:w${i % 1000}`, 60_000)], [i])));
      plain.push(await serverMicros((i) => node.evalsha(bareSha, 1, `kit:b${i % 1000}`, i, 60_000)));
    }
    const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    report({
      bench: 'redis-cluster',
      metric:
        'Redis server time of a script through the kit (written keys checked, expiry set) / the same script bare',
      value: median(kit) / median(plain),
      unit: 'x',
      bar: 'informational',
      pass: true,
      detail: { kitMicrosPerCall: median(kit), bareMicrosPerCall: median(plain) },
    });
  } finally {
    node.disconnect();
    nodes.disconnect();
    await cluster.dispose();
    await server.dispose();
  }
}
