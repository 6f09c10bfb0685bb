/**
 * A Redis that accepts and never answers (a real redis-server paused with SIGSTOP: a frozen VM, a network that
 * drops the replies). With ioredis's `commandTimeout` every store call ends in a `RedisStoreError` that says so;
 * without it, the platform's token manager still bounds its waits on the token store and logs in on its own.
 */
import { Redis } from 'ioredis';
import { expect, it, vi } from 'vitest';
import {
  RedisIdempotencyStore,
  RedisRateLimiter,
  RedisStatusStore,
  RedisStoreError,
  RedisTokenStore,
} from '../../src/redis/index.js';
import { describeRedis, type RedisServer, useRedis, whenClient } from '../helpers/redis-server.js';
import { startLoginPlatform } from './fixtures/login-platform.js';

let server: RedisServer;

describeRedis('a Redis that accepts and never answers (SIGSTOP)', () => {
  useRedis((s) => {
    server = s;
  });

  it("with the client's commandTimeout, every store call is a RedisStoreError that names it", async () => {
    const redis = new Redis(server.url, { maxRetriesPerRequest: 1, commandTimeout: 300 });
    try {
      await whenClient(redis, 'ready');
      const options = { redis, logLevel: 'off' as const };
      const calls: [string, () => Promise<unknown>][] = [
        ['token get', () => new RedisTokenStore(options).get()],
        ['dedupe claim', () => new RedisIdempotencyStore(options).claim('event-1')],
        ['status get', () => new RedisStatusStore(options).get('wamid.1')],
        ['limiter acquire', () => new RedisRateLimiter(options).acquire()],
      ];
      server.pause();
      try {
        for (const [what, run] of calls) {
          const error = await run().then(
            () => undefined,
            (e: unknown) => e,
          );
          expect(error, what).toBeInstanceOf(RedisStoreError);
          expect(error, what).toMatchObject({ failure: 'unavailable' });
          expect((error as Error).message, what).toContain("within the client's commandTimeout");
        }
      } finally {
        server.resume();
      }
    } finally {
      redis.disconnect();
    }
  }, 20_000);

  it('PlatformClient logs in on its own when its RedisTokenStore hangs (no commandTimeout)', async () => {
    const logger = { warn: vi.fn() };
    const platform = await startLoginPlatform();
    const redis = new Redis(server.url, { maxRetriesPerRequest: 1 });
    try {
      await whenClient(redis, 'ready');
      const client = platform.client(new RedisTokenStore({ redis, logger }), logger, 20_000);
      server.pause();
      try {
        expect(await client.stats.get()).toEqual([]);
        expect(platform.logins()).toBe(1);
        expect(await client.stats.get()).toEqual([]); // the token is held: the store is not asked again
        expect(platform.logins()).toBe(1);
      } finally {
        server.resume();
      }
      const warnings = logger.warn.mock.calls.map(([m]) => String(m));
      expect(warnings).toContain('wa-gateway-sdk: the token store lock failed; logging in without it');
      expect(JSON.stringify(logger.warn.mock.calls)).not.toMatch(/SECRET|tok-1/);
    } finally {
      redis.disconnect();
      await platform.close();
    }
  }, 30_000);
});
