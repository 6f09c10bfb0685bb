/**
 * The many-instances proofs with real processes sharing one real redis-server: four PlatformClient processes
 * log in once between them (and re-log in once after a 401), and four senders sharing a RedisRateLimiter never
 * get more than N requests to the gateway in any 1,000 ms. The sustained rate is a figure, measured by
 * bench/redis-limiter.bench.ts.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startServer } from '../helpers/http-server.js';
import { describeRedis, type RedisServer, startRedis } from '../helpers/redis-server.js';
import { forkFleet, maxInWindow, startGateway } from './fixtures/processes.js';

let redis: RedisServer;

describeRedis('many processes sharing one Redis', () => {
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    await redis?.dispose();
  });

  it('four PlatformClient processes, 50 concurrent calls each: one login; a 401 causes one re-login', async () => {
    let logins = 0;
    let valid: string | undefined;
    const platform = await startServer((req: IncomingMessage, res: ServerResponse) => {
      if (req.method === 'POST' && req.url === '/jwt/') {
        logins++;
        valid = `tok-${logins}`;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ token: valid, account: { uuid: 'acc-1' }, otp: false }));
        return;
      }
      if (req.url?.startsWith('/stats') && valid && req.headers.authorization === `JWT ${valid}`) {
        res.writeHead(200, { 'content-type': 'application/json' }).end('[]');
        return;
      }
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ detail: 'Given token not valid for any token type' }));
    });
    const fleet = await forkFleet('platform-caller', 4, {
      REDIS_URL: redis.url,
      PLATFORM_URL: platform.url,
      CALLS: '50',
    });
    try {
      const cold = await fleet.round<{ ok: number; errors: string[] }>('go');
      expect(cold).toEqual(Array(4).fill({ ok: 50, errors: [] }));
      expect(logins).toBe(1);

      valid = undefined; // the platform revokes tok-1: every process's next call meets a 401
      const after401 = await fleet.round<{ ok: number; errors: string[] }>('go');
      expect(after401).toEqual(Array(4).fill({ ok: 50, errors: [] }));
      expect(logins).toBe(2);
    } finally {
      fleet.stop();
      await platform.close();
    }
  }, 60_000);

  it('four sender processes through one RedisRateLimiter: at most N arrive in any 1,000 ms', async () => {
    const N = 80;
    const perProcess = 200;
    const gateway = await startGateway();
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
      expect(gateway.arrivals).toHaveLength(4 * perProcess);
      expect(maxInWindow(gateway.arrivals)).toBeLessThanOrEqual(N);
    } finally {
      fleet.stop();
      await gateway.close();
    }
  }, 90_000);
});
