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
  RedisSessionStore,
  RedisStatusStore,
  RedisStoreError,
  RedisTemplateStore,
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

  it("another program's key of another type under the prefix is unexpected_reply, naming the key and the prefix", async () => {
    const prefix = 'alien:';
    // Another store, on the same client, under a prefix the first one's keys also start with: the longer one is said.
    new RedisTokenStore({ redis: redis!, prefix: 'ali', logLevel: 'off' });
    const keys = {
      limiter: `${prefix}limit:gateway:slots`,
      token: `${prefix}token:platform`,
      dedupe: `${prefix}dedup:${hashId('evt')}`,
      status: `${prefix}status:${hashId('wamid.1')}`,
      session: `${prefix}conv:${hashId('customer-1')}`,
      template: `${prefix}template:${hashId('welcome\u0000en_US')}`,
    };
    await redis!.hset(keys.limiter, 'x', '1');
    await redis!.lpush(keys.token, 'x');
    await redis!.sadd(keys.dedupe, 'x');
    await redis!.hset(keys.status, 'x', '1');
    await redis!.sadd(keys.session, 'x');
    await redis!.set(keys.template, 'x');
    const options = { redis: redis!, prefix, logLevel: 'off' as const };
    const calls: [string, string, () => Promise<unknown>][] = [
      // A script's keys (the limiter's, the dedupe claim's): the one Redis refused is named, not all of them.
      ['limiter acquire', keys.limiter, () => new RedisRateLimiter(options).acquire()],
      ['token get', keys.token, () => new RedisTokenStore(options).get()],
      ['dedupe claim', keys.dedupe, () => new RedisIdempotencyStore(options).claim('evt', 800)],
      [
        'status update',
        keys.status,
        () => new RedisStatusStore(options).update(statusObject('sent', { id: 'wamid.1' })),
      ],
      ['session get', keys.session, () => new RedisSessionStore(options).get('customer-1')],
      // A transaction's command: ioredis keeps no command on its error, the store names the key itself.
      [
        'template update',
        keys.template,
        () => new RedisTemplateStore(options).update('welcome', 'en_US', { status: 'APPROVED' }),
      ],
    ];
    for (const [what, key, run] of calls) {
      const error = await failureOf(run);
      expect(error, what).toBeInstanceOf(RedisStoreError);
      expect(error, what).toMatchObject({ failure: 'unexpected_reply' });
      const { message } = error as Error;
      expect(message, what).toContain('another program may write under the same prefix');
      expect(message, what).toContain(`'${key}'`);
      expect(message, what).toContain(`prefix '${prefix}'`);
      expect(message, what).toContain('WRONGTYPE');
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
