/**
 * The shared-limiter proof with real processes sharing one real redis-server: four senders sharing a
 * RedisRateLimiter never get more than N requests to the gateway in any 1,000 ms. The sustained rate is a
 * figure, measured by bench/redis-limiter.bench.ts with 2,000 messages; this test sends fewer (six windows'
 * worth) to stay short, which is enough for the hard bound.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { spawnFixture } from '../../bench/fixtures/spawn.js';
import { maxInWindow } from '../helpers/arrivals.js';
import { describeRedis, type RedisServer, startRedis } from '../helpers/redis-server.js';
import { forkFleet } from './fixtures/processes.js';

let redis: RedisServer;

describeRedis('four senders sharing RedisRateLimiter', () => {
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    await redis?.dispose();
  });

  it('four sender processes through one RedisRateLimiter: at most N arrive in any 1,000 ms', async () => {
    const N = 80;
    const perProcess = 120;
    // The bench's loopback gateway, in a process of its own: it records each request's arrival time.
    const gateway = await spawnFixture('echo-gateway');
    await fetch(`${gateway.url}/__reset`);
    const fleet = await forkFleet('sender', 4, {
      REDIS_URL: redis.url,
      GATEWAY_URL: gateway.url,
      COUNT: String(perProcess),
      PER_SECOND: String(N),
      LIMIT_NAME: 'proof',
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
