/**
 * A Redis URL naming a database the server lacks (`redis://host:port/99` on a server of 16): ioredis's `SELECT`
 * fails as it connects, and it goes on in database 0. An SDK store on such a client must not read or write
 * another database's keys: the client is closed, the store's commands fail typed, and the log says why, once, as an
 * error (found by the CLI audit, where `campaign pause` paused database 0's campaign). On a real redis-server.
 */
import { Redis } from 'ioredis';
import { expect, it, vi } from 'vitest';
import { RedisIdempotencyStore, RedisStoreError } from '../../src/redis/index.js';
import { describeRedis, type RedisServer, useRedis } from '../helpers/redis-server.js';

describeRedis('a client given a database the server lacks', () => {
  let server: RedisServer;
  let admin: Redis;
  useRedis((s, client) => {
    server = s;
    admin = client;
  });

  it("a store's commands fail typed, nothing reaches database 0, and the log says why once, as an error", async () => {
    const redis = new Redis(`${server.url}/99`, { maxRetriesPerRequest: 1, lazyConnect: true });
    const error = vi.fn();
    const warn = vi.fn();
    try {
      const store = new RedisIdempotencyStore({ redis, prefix: 'missing-db:', logger: { warn, error } });
      const claimed = await store.claim('wamid.MISSINGDB1').catch((e: unknown) => e);
      expect(claimed).toBeInstanceOf(RedisStoreError);
      expect(claimed).toMatchObject({ failure: 'unavailable' });
      expect(await admin.keys('missing-db:*')).toEqual([]);
      expect(error).toHaveBeenCalledTimes(1);
      expect(error.mock.calls[0]![0]).toBe(
        `wa-gateway-sdk: RedisIdempotencyStore: the Redis at 127.0.0.1:${server.port} has no database of the URL's ` +
          "number (its /<db>): ioredis would go on in database 0, on another database's keys, so this client is " +
          'closed and its commands fail. Fix the URL (REDIS_URL).',
      );
      // Not an outage that ends: no "cannot reach" line before it, no "reachable again" after it.
      expect(warn).not.toHaveBeenCalled();
    } finally {
      redis.disconnect();
    }
  });
});
