/**
 * The shared-limiter proof with real processes sharing one real Redis (one redis-server, then a Redis Cluster):
 * four senders sharing a RedisRateLimiter never get more than N requests to the gateway in any 1,000 ms. The
 * sustained rate is a figure, measured by bench/redis-limiter.bench.ts with 2,000 messages; this test sends fewer (six windows'
 * worth) to stay short, which is enough for the hard bound.
 */
import { expect, it } from 'vitest';
import { spawnFixture } from '../../bench/fixtures/spawn.js';
import { maxInWindow } from '../helpers/arrivals.js';
import { describeRedis } from '../helpers/redis-server.js';
import { onTarget, TARGETS, useRedisTarget } from '../helpers/redis-target.js';
import { forkFleet } from './fixtures/processes.js';

for (const kind of TARGETS)
  describeRedis(`four senders sharing RedisRateLimiter ${onTarget(kind)}`, () => {
    const target = useRedisTarget(kind);

    it('four sender processes through one RedisRateLimiter: at most N arrive in any 1,000 ms', async () => {
      const N = 80;
      const perProcess = 120;
      // The bench's loopback gateway, in a process of its own: it records each request's arrival time.
      const gateway = await spawnFixture('echo-gateway');
      await fetch(`${gateway.url}/__reset`);
      const fleet = await forkFleet('sender', 4, {
        REDIS_URL: target().url,
        GATEWAY_URL: gateway.url,
        COUNT: String(perProcess),
        PER_SECOND: String(N),
        LIMIT_NAME: `proof-${kind}`,
      });
      try {
        const results = await fleet.round<{ ok: number; errors: string[] }>('go');
        expect(results).toEqual(Array(4).fill({ ok: perProcess, errors: [] }));
        const arrivals = (await (await fetch(`${gateway.url}/__arrivals`)).json()) as number[];
        expect(arrivals).toHaveLength(4 * perProcess);
        expect(maxInWindow(arrivals)).toBeLessThanOrEqual(N);
      } finally {
        fleet.stop();
        gateway.stop();
      }
    }, 120_000);
  });
