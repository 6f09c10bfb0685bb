/**
 * The platform-token proof with real processes sharing one real Redis (one redis-server, then a Redis Cluster):
 * four PlatformClient processes with RedisTokenStore log in once between them, and re-log in once after the
 * platform revokes the token.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { expect, it } from 'vitest';
import { startServer } from '../helpers/http-server.js';
import { describeRedis } from '../helpers/redis-server.js';
import { onTarget, TARGETS, useRedisTarget } from '../helpers/redis-target.js';
import { forkFleet } from './fixtures/processes.js';

for (const kind of TARGETS)
  describeRedis(`four PlatformClient processes sharing RedisTokenStore ${onTarget(kind)}`, () => {
    const target = useRedisTarget(kind);

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
        REDIS_URL: target().url,
        PLATFORM_URL: platform.url,
        // Its own token name: a cluster CI shares between proof files holds every file's keys.
        TOKEN_NAME: `proof-${kind}`,
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
    }, 120_000);
  });
