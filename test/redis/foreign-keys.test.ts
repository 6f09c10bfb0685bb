/**
 * Redis refusals a store cannot fix by retrying, on a real redis-server: another program's key of another type
 * under the store's prefix (`WRONGTYPE`), and a Redis that asks for a password the client did not give
 * (`NOAUTH`). Each is a `RedisStoreError` whose `failure` and message say which it is.
 */
import { Redis } from 'ioredis';
import { expect, it } from 'vitest';
import {
  RedisIdempotencyStore,
  RedisRateLimiter,
  RedisStatusStore,
  RedisStoreError,
  RedisTokenStore,
} from '../../src/redis/index.js';
import { hashId } from '../../src/redis/keys.js';
import { statusObject } from '../../src/testing/webhook-fixtures.js';
import { describeRedis, type RedisServer, useRedis, whenClient } from '../helpers/redis-server.js';

async function failureOf(run: () => Promise<unknown>): Promise<unknown> {
  return run().then(
    () => undefined,
    (e: unknown) => e,
  );
}

describeRedis('Redis refusals a retry cannot fix', () => {
  let server: RedisServer | undefined;
  let redis: Redis | undefined;
  useRedis((s, r) => {
    server = s;
    redis = r;
  });

  it("another program's key of another type under the prefix is unexpected_reply, saying another program may use it", async () => {
    const prefix = 'alien:';
    await redis!.hset(`${prefix}limit:gateway:slots`, 'x', '1');
    await redis!.lpush(`${prefix}token:platform`, 'x');
    await redis!.sadd(`${prefix}dedup:${hashId('evt')}`, 'x');
    await redis!.hset(`${prefix}status:${hashId('wamid.1')}`, 'x', '1');
    const options = { redis: redis!, prefix, logLevel: 'off' as const };
    const calls: [string, () => Promise<unknown>][] = [
      ['limiter acquire', () => new RedisRateLimiter(options).acquire()],
      ['token get', () => new RedisTokenStore(options).get()],
      ['dedupe claim', () => new RedisIdempotencyStore(options).claim('evt', 800)],
      ['status update', () => new RedisStatusStore(options).update(statusObject('sent', { id: 'wamid.1' }))],
    ];
    for (const [what, run] of calls) {
      const error = await failureOf(run);
      expect(error, what).toBeInstanceOf(RedisStoreError);
      expect(error, what).toMatchObject({ failure: 'unexpected_reply' });
      expect((error as Error).message, what).toContain('another program may write under the same prefix');
    }
  });

  it('a Redis that asks for a password the client did not give is a clear command_failed', async () => {
    await redis!.config('SET', 'requirepass', 'pw-SECRET');
    const stranger = new Redis(server!.url, { maxRetriesPerRequest: 1, enableReadyCheck: false });
    try {
      await whenClient(stranger, 'ready');
      const error = await failureOf(() => new RedisTokenStore({ redis: stranger, logLevel: 'off' }).get());
      expect(error).toBeInstanceOf(RedisStoreError);
      expect(error).toMatchObject({ failure: 'command_failed' });
      expect((error as Error).message).toContain(
        'Redis asks for a password and the client gave none (NOAUTH)',
      );
      expect((error as Error).message).not.toContain('SECRET');
    } finally {
      stranger.disconnect();
      await redis!.auth('pw-SECRET');
      await redis!.config('SET', 'requirepass', '');
    }
  });
});
