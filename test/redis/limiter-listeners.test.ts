/**
 * RedisRateLimiter.acquire takes its abort listener off the caller's signal on every path: an application that
 * passes one long-lived signal (a shutdown signal) to every send must not collect one listener per refused send.
 */
import { getEventListeners } from 'node:events';
import type { Redis } from 'ioredis';
import { expect, it } from 'vitest';
import { RedisRateLimiter, RedisStoreError } from '../../src/redis/index.js';
import { describeRedis, type RedisServer, useRedis, whenClient } from '../helpers/redis-server.js';

const N = 20;
let server: RedisServer;
let redis: Redis;

describeRedis('RedisRateLimiter abort listeners', () => {
  useRedis((s, r) => {
    server = s;
    redis = r;
  });

  it('an abort while a granted slot waits for its start rejects at once, and leaves no listener', async () => {
    const limiter = new RedisRateLimiter({ redis, perSecond: 1, name: 'abort-later', logLevel: 'off' });
    (await limiter.acquire())(); // the one slot of this second, used and answered: the next starts a window later
    const app = new AbortController();
    let outcome: unknown = 'pending';
    const waiting = limiter.acquire(app.signal).then(
      () => 'granted',
      (error: unknown) => error,
    );
    void waiting.then((o) => {
      outcome = o;
    });
    // Off the queue: Redis granted it a slot that starts about a second from now.
    while (limiter.pending > 0) await new Promise((r) => setImmediate(r));
    expect(outcome).toBe('pending');
    const reason = new Error('the caller gave up');
    app.abort(reason);
    await new Promise((r) => setImmediate(r)); // far less than the second the slot's start is away
    expect(outcome).toBe(reason);
    expect(getEventListeners(app.signal, 'abort')).toHaveLength(0);
  });

  it('granted, refused for BILL_001 and failed for Redis: none leaves a listener on the signal', async () => {
    const logged: string[] = [];
    const logger = { warn: (m: string) => void logged.push(m) };
    const limiter = new RedisRateLimiter({ redis, perSecond: 1000, name: 'listeners', logger });
    const app = new AbortController();

    const release = await limiter.acquire(app.signal);
    release();
    expect(getEventListeners(app.signal, 'abort')).toHaveLength(0);

    limiter.paymentRequired(new Error('BILL_001'));
    while (!(await limiter.bulkStopped())) await new Promise((r) => setImmediate(r));
    const refused = await Promise.allSettled(
      Array.from({ length: N }, () => limiter.acquire(app.signal, { bulk: true })),
    );
    expect(refused.every((r) => r.status === 'rejected')).toBe(true);
    expect(getEventListeners(app.signal, 'abort')).toHaveLength(0);

    const gone = whenClient(redis, 'gone');
    await server.stop();
    await gone;
    const failed = await Promise.allSettled(Array.from({ length: N }, () => limiter.acquire(app.signal)));
    expect(failed.map((r) => (r.status === 'rejected' ? r.reason : r))).toEqual(
      Array.from({ length: N }, () => expect.any(RedisStoreError)),
    );
    expect(getEventListeners(app.signal, 'abort')).toHaveLength(0);
    // Whether a reconnect has failed yet is ioredis' timing; if one has, the outage was logged with where and why.
    for (const line of logged)
      expect(line).toMatch(
        /^wa-gateway-sdk: Redis(RateLimiter|IdempotencyStore): (cannot reach Redis at 127\.0\.0\.1:\d+: connection refused|Redis at 127\.0\.0\.1:\d+ is reachable again)/,
      );
  });
});
