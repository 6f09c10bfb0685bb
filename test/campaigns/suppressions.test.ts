/**
 * What a suppression list takes as a recipient: a phone number, written any way people write one. Text beside it
 * (a business-scoped user id, `US.13491208655302741918`) is refused with a `ConfigurationError`, not turned into
 * its digits: that would suppress a number that is nobody's and leave the customer on the campaign.
 */
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { ConfigurationError, MemorySuppressionList } from '../../src/index.js';
import { RedisSuppressionList } from '../../src/redis/index.js';

const USER_ID = 'US.13491208655302741918';

describe('a suppression list takes phone numbers only', () => {
  it('takes a number however it is written, and finds it however it is asked for', async () => {
    const list = new MemorySuppressionList();
    await list.add('+998 (90) 123-45-67', 'wrote STOP');
    expect(await list.reasonFor('998901234567')).toBe('wrote STOP');
    expect(await list.remove('00998901234567')).toBe(true);
  });

  it('refuses a business-scoped user id, saying the key must be the phone number (memory and Redis lists)', async () => {
    const memory = new MemorySuppressionList();
    // lazyConnect: the refusal comes before any command, so nothing connects.
    const redis = new Redis({ lazyConnect: true, enableOfflineQueue: false });
    const shared = new RedisSuppressionList({ redis, prefix: 'suppressions-test' });
    try {
      for (const [name, list] of [
        ['MemorySuppressionList', memory],
        ['RedisSuppressionList', shared],
      ] as const) {
        for (const call of [() => list.add(USER_ID, 'wrote STOP'), () => list.remove(USER_ID)]) {
          const caught = await call().then(
            () => undefined,
            (error: unknown) => error,
          );
          expect(caught, name).toBeInstanceOf(ConfigurationError);
          expect((caught as Error).message).toContain("must be the customer's phone number");
          expect((caught as Error).message).toContain('known only by a user id has no phone number');
        }
      }
      expect(await memory.reasonFor('13491208655302741918')).toBeUndefined();
      await expect(memory.add('998901234567 ext. 2', 'x')).rejects.toBeInstanceOf(ConfigurationError);
    } finally {
      redis.disconnect();
    }
  });
});
