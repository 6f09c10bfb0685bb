/**
 * Redis stopped or killed under the stores: every operation ends in a typed RedisStoreError (or, for the
 * webhook handler, a 500 the gateway retries; for the platform token, a local login), nothing crashes the
 * process, nothing leaks a key or a token, and everything works again once Redis is back.
 */
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { GatewayClient } from '../../src/index.js';
import {
  RedisIdempotencyStore,
  RedisRateLimiter,
  RedisStatusStore,
  RedisStoreError,
  RedisTokenStore,
} from '../../src/redis/index.js';
import { statusEnvelope, statusObject } from '../../src/testing/webhook-fixtures.js';
import { createWebhookHandler } from '../../src/webhooks/index.js';
import { startServer } from '../helpers/http-server.js';
import { describeRedis, type RedisServer, startRedis } from '../helpers/redis-server.js';
import { startLoginPlatform } from './fixtures/login-platform.js';

let server: RedisServer;

function ready(redis: Redis): Promise<void> {
  if (redis.status === 'ready') return Promise.resolve();
  return new Promise((resolve) => redis.once('ready', () => resolve()));
}

function down(redis: Redis): Promise<void> {
  if (redis.status !== 'ready') return Promise.resolve();
  return new Promise((resolve) => redis.once('close', () => resolve()));
}

describeRedis('Redis stores when Redis goes away', () => {
  beforeAll(async () => {
    server = await startRedis();
  });
  afterAll(async () => {
    await server?.dispose();
  });

  it('each store answers a typed error while Redis is down, and works again after it restarts', async () => {
    const logger = { warn: vi.fn(), debug: vi.fn() };
    const consoleError = vi.spyOn(console, 'error');
    const redis = new Redis(server.url, { maxRetriesPerRequest: 1 });
    const gatewayHits: string[] = [];
    const gateway = await startServer((req, res) => {
      gatewayHits.push(req.url ?? '');
      res.writeHead(500).end();
    });
    try {
      await ready(redis);
      const dedupe = new RedisIdempotencyStore({ redis, logger });
      const tokens = new RedisTokenStore({ redis, logger });
      const statuses = new RedisStatusStore({ redis, logger });
      const limiter = new RedisRateLimiter({ redis, logger });
      expect(redis.listenerCount('error')).toBe(1); // one guard, however many stores share the client

      const closed = down(redis);
      await server.stop();
      await closed;

      const attempts: [string, Promise<unknown>][] = [
        ['claim', dedupe.claim('evt-SECRET', 5000)],
        ['token get', tokens.get()],
        ['token set', tokens.set({ token: 'tok-SECRET', expiresAt: Date.now() + 60_000 })],
        ['lock', tokens.lock(async () => 'ran')],
        ['status', statuses.update(statusObject('read', { id: 'wamid.SECRET' }))],
        ['limiter', limiter.acquire()],
      ];
      for (const [what, attempt] of attempts) {
        const error = await attempt.then(
          () => new Error(`${what} resolved while Redis was down`),
          (e: unknown) => e,
        );
        expect(error, what).toBeInstanceOf(RedisStoreError);
        expect((error as RedisStoreError).failure, what).toBe('unavailable');
        expect(JSON.stringify(error) + String(error), what).not.toMatch(/SECRET|dedup:|token:/);
      }

      // A send through the limiter is refused before any request: nothing reaches the gateway.
      const gw = new GatewayClient({
        apiKey: 'pk_test_faults_0123',
        baseUrl: gateway.url,
        rateLimit: limiter,
      });
      await expect(
        gw.messages.send({ to: '998901234567', type: 'text', text: { body: 'hi' } }),
      ).rejects.toBeInstanceOf(RedisStoreError);
      // In a batch, each such message is reported as certainly not sent.
      const batch = [];
      for await (const r of gw.messages.sendMany([
        { to: '998901234567', type: 'text', text: { body: 'a' } },
      ])) {
        batch.push(r);
      }
      expect(batch).toMatchObject([{ ok: false, notSent: true, error: { name: 'RedisStoreError' } }]);
      expect(gatewayHits).toEqual([]);

      // With onStoreUnavailable 'fail', the webhook handler answers 500 (the gateway retries) rather than running
      // the event without deduplication.
      const onEvent = vi.fn();
      const secret = 'whsec-faults-0123456789abcdefghijklmnop';
      const handler = createWebhookHandler({
        secret,
        onEvent,
        dedupe,
        logger: false,
        onStoreUnavailable: 'fail',
      });
      const response = await handler(
        new Request('http://localhost/webhook', {
          method: 'POST',
          headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
          body: JSON.stringify(statusEnvelope(statusObject('read', { id: 'wamid.down' }))),
        }),
      );
      expect(response.status).toBe(500);
      expect(onEvent).not.toHaveBeenCalled();

      const back = ready(redis);
      await server.start();
      await back;

      expect(await dedupe.claim('evt-after', 5000)).toBe('claimed');
      await tokens.set({ token: 'tok-after', expiresAt: Date.now() + 60_000 });
      expect((await tokens.get())?.token).toBe('tok-after');
      expect(await tokens.lock(async () => 'ran')).toBe('ran');
      expect((await statuses.update(statusObject('read', { id: 'wamid.after' }))).current?.status).toBe(
        'read',
      );
      (await limiter.acquire())();

      // ioredis prints unhandled 'error' events to the console; the guard routes them to the logger instead.
      expect(consoleError.mock.calls.flat().join(' ')).not.toContain('[ioredis]');
      // One line for the outage, however many reconnects failed: where, and why in words.
      const outage = logger.warn.mock.calls.filter(([m]) => String(m).includes('cannot reach Redis'));
      expect(outage).toEqual([
        [
          expect.stringMatching(
            /^wa-gateway-sdk: RedisIdempotencyStore: cannot reach Redis at 127\.0\.0\.1:\d+: connection refused: nothing listens/,
          ),
          expect.objectContaining({ code: 'ECONNREFUSED' }),
        ],
      ]);
      expect(logger.warn).toHaveBeenCalledWith(
        expect.stringMatching(/Redis at 127\.0\.0\.1:\d+ is reachable again, after \d+ s$/),
      );
    } finally {
      consoleError.mockRestore();
      redis.disconnect();
      await gateway.close();
    }
  }, 30_000);

  it('a Redis killed mid-run: every pending claim settles (a result or a typed error), then work resumes', async () => {
    const redis = new Redis(server.url, { maxRetriesPerRequest: 1 });
    try {
      await ready(redis);
      const logged: string[] = [];
      const store = new RedisIdempotencyStore({ redis, logger: { warn: (m) => void logged.push(m) } });
      const pending = Array.from({ length: 200 }, (_, i) => store.claim(`evt-${i}`, 5000));
      const closed = down(redis);
      await server.kill();
      await closed;
      const settled = await Promise.allSettled(pending);
      for (const s of settled) {
        if (s.status === 'fulfilled') expect(s.value).toBe('claimed');
        else expect(s.reason).toBeInstanceOf(RedisStoreError);
      }
      const back = ready(redis);
      await server.start();
      await back;
      // Data is gone with the killed server (no persistence): every key is free again.
      expect(await store.claim('evt-0', 5000)).toBe('claimed');
      // At most the outage and its end, if a reconnect failed while the server was down (ioredis' timing).
      expect(logged.length).toBeLessThanOrEqual(2);
      for (const line of logged) {
        expect(line).toMatch(
          /^wa-gateway-sdk: RedisIdempotencyStore: (cannot reach Redis at|Redis at .* is reachable again)/,
        );
      }
    } finally {
      redis.disconnect();
    }
  }, 30_000);

  it('PlatformClient keeps working when its RedisTokenStore is down: it logs in on its own', async () => {
    const logger = { warn: vi.fn() };
    const platform = await startLoginPlatform();
    const redis = new Redis(server.url, { maxRetriesPerRequest: 1 });
    try {
      await ready(redis);
      const closed = down(redis);
      await server.stop();
      await closed;
      const client = platform.client(new RedisTokenStore({ redis, logger }), logger);
      expect(await client.stats.get()).toEqual([]);
      expect(platform.logins()).toBe(1);
      const warnings = logger.warn.mock.calls.map(([m]) => String(m));
      expect(warnings).toContain('wa-gateway-sdk: the token store lock failed; logging in without it');
      expect(JSON.stringify(logger.warn.mock.calls)).not.toMatch(/SECRET|tok-1/);
      // The store may also have seen a reconnect fail meanwhile (ioredis' timing): then it said where and why.
      for (const line of warnings.filter((w) => w.includes('cannot reach'))) {
        expect(line).toMatch(/^wa-gateway-sdk: RedisTokenStore: cannot reach Redis at 127\.0\.0\.1:\d+: /);
      }
    } finally {
      redis.disconnect();
      await platform.close();
      await server.start();
    }
  }, 30_000);
});
