/**
 * Each store's behaviour against a real Redis: one redis-server (stores.test.ts) and a Redis Cluster
 * (cluster.proof.test.ts), with the same tests.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { beforeEach, expect, it } from 'vitest';
import { ConversationError } from '../../../src/conversations/index.js';
import {
  ConfigurationError,
  GatewayClient,
  MessageValidationError,
  PaymentRequiredError,
} from '../../../src/index.js';
import {
  RedisCampaignStore,
  type RedisClient,
  RedisIdempotencyStore,
  RedisRateLimiter,
  RedisSessionStore,
  RedisStatusStore,
  RedisStoreError,
  RedisSuppressionList,
  RedisTemplateStore,
  RedisTokenStore,
  RedisWindowStore,
} from '../../../src/redis/index.js';
import { statusObject } from '../../../src/testing/webhook-fixtures.js';
import { StatusTracker, WebhookParseError, type WebhookStatus } from '../../../src/webhooks/index.js';
import { startServer } from '../../helpers/http-server.js';
import { envelope } from '../../helpers/msw.js';
import type { RedisTarget } from '../../helpers/redis-target.js';

/** The store tests, on `target` (registered inside a `describeRedis` that started it). */
export function storesSuite(target: () => RedisTarget): void {
  let redis: RedisClient;
  /** A limiter's key: its name is the hash tag of its keys on a cluster. */
  const limitKey = (name: string, part: string) =>
    target().kind === 'cluster' ? `wa:limit:{${name}}:${part}` : `wa:limit:${name}:${part}`;
  beforeEach(async () => {
    redis = target().redis;
    await target().flush();
  });

  it('RedisIdempotencyStore: exactly one of many concurrent claims wins; done is remembered', async () => {
    const stores = Array.from({ length: 8 }, () => new RedisIdempotencyStore({ redis }));
    const answers = await Promise.all(stores.map((s) => s.claim('evt-1', 10_000)));
    expect(answers.filter((a) => a === 'claimed')).toHaveLength(1);
    expect(answers.filter((a) => a === 'in_progress')).toHaveLength(7);
    const holder = stores[answers.indexOf('claimed')]!;
    await holder.complete('evt-1', 60_000);
    expect(await stores[0]!.claim('evt-1', 10_000)).toBe('done');
    expect(await holder.peek('evt-1')).toBe('done');
    const ttl = await redis.pttl((await target().keys('wa:dedup:*'))[0]!);
    expect(ttl).toBeGreaterThan(50_000);
  });

  it('RedisIdempotencyStore: only the holder releases; a lease ends by itself', async () => {
    const a = new RedisIdempotencyStore({ redis });
    const b = new RedisIdempotencyStore({ redis });
    expect(await a.claim('evt-2', 60_000)).toBe('claimed');
    await b.release('evt-2'); // b does not hold it: nothing happens
    expect(await b.claim('evt-2', 60_000)).toBe('in_progress');
    await a.release('evt-2');
    expect(await b.claim('evt-2', 60_000)).toBe('claimed');

    // A holder that died: its lease expires in Redis; a late release by it cannot free the successor's claim.
    const dead = new RedisIdempotencyStore({ redis });
    expect(await dead.claim('evt-3', 60_000)).toBe('claimed');
    const [key] = await target().keys('wa:dedup:*');
    await target().flush(); // the lease ran out (as PX would do)
    expect(await b.claim('evt-3', 60_000)).toBe('claimed');
    await dead.release('evt-3');
    expect(await a.claim('evt-3', 60_000)).toBe('in_progress');
    expect(key).toMatch(/^wa:dedup:[A-Za-z0-9_-]{43}$/);
  });

  it('RedisIdempotencyStore: keys are hashes under the prefix; an alien value is a typed error', async () => {
    const store = new RedisIdempotencyStore({ redis, prefix: 'app1:' });
    await store.claim('wamid.SECRET-PAYLOAD', 10_000);
    const keys = await target().keys('*');
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatch(/^app1:dedup:/);
    expect(keys[0]).not.toContain('SECRET');
    await redis.set(keys[0]!, 'something else');
    await expect(store.peek('wamid.SECRET-PAYLOAD')).rejects.toMatchObject({
      name: 'RedisStoreError',
      failure: 'unexpected_reply',
    });
    expect(() => new RedisIdempotencyStore({ redis, prefix: 'a b' })).toThrow(ConfigurationError);
    // A brace that opens no hash tag would take the stores' own tags into Redis's and split an operation's slots.
    for (const prefix of ['wa{:', '{}:', 'a{}b{c}:'])
      expect(() => new RedisIdempotencyStore({ redis, prefix }), prefix).toThrow(/without a hash tag/);
    // (A whole tag such as '{wa}:' is accepted too: its own test below, since on a cluster it warns once.)
    for (const prefix of ['wa}:', 'a-b:'])
      expect(() => new RedisIdempotencyStore({ redis, prefix }), prefix).not.toThrow();
    expect(() => new RedisIdempotencyStore({ redis: {} as RedisClient })).toThrow(ConfigurationError);
  });

  it('a duration beyond what Redis or a timer can hold is a ConfigurationError when the store is built', () => {
    const builds: [string, () => unknown][] = [
      ['limiter leaseMs', () => new RedisRateLimiter({ redis, leaseMs: 1e300 })],
      ['limiter billingStopMs', () => new RedisRateLimiter({ redis, billingStopMs: 1e300 })],
      ['limiter pollMs', () => new RedisRateLimiter({ redis, pollMs: 2 ** 31 })],
      ['token lockLeaseMs', () => new RedisTokenStore({ redis, lockLeaseMs: 1e10 })],
      ['token lockWaitMs', () => new RedisTokenStore({ redis, lockWaitMs: 1e10 })],
      ['window ttlMs', () => new RedisWindowStore({ redis, ttlMs: 1e300 })],
      ['status ttlMs', () => new RedisStatusStore({ redis, ttlMs: 1e300 })],
      ['dedupe ttlMs', () => new RedisIdempotencyStore({ redis, ttlMs: 1e300 })],
      ['sessions lockWaitMs', () => new RedisSessionStore({ redis, lockWaitMs: 1e10 })],
    ];
    for (const [what, build] of builds) expect(build, what).toThrow(/must be at most [\d,]+ ms/);
    // The largest values they take still build.
    expect(() => new RedisTokenStore({ redis, lockLeaseMs: 2 ** 31 - 1 })).not.toThrow();
    expect(() => new RedisStatusStore({ redis, ttlMs: 365 * 24 * 3_600_000 })).not.toThrow();
  });

  it('bad input is the caller’s typed error, never a bare TypeError or an outage', async () => {
    const sessions = new RedisSessionStore({ redis });
    const templates = new RedisTemplateStore({ redis, prefix: 'bad-ids:' });
    const statuses = new RedisStatusStore({ redis, prefix: 'bad-ids:' });
    const bad: [string, () => Promise<unknown>, new (...a: never[]) => Error][] = [
      ['session get(undefined)', () => sessions.get(undefined as never), ConfigurationError],
      // The router's one session rule (session-data.ts), used directly too.
      ['session set(BigInt)', () => sessions.set('k', { n: 1n }, 1000), ConversationError],
      [
        'window recordInbound(42)',
        () => new RedisWindowStore({ redis }).recordInbound(42 as never, Date.now()),
        ConfigurationError,
      ],
      [
        'campaign lookup(undefined)',
        () => new RedisCampaignStore({ redis }).lookup(undefined as never, () => ''),
        ConfigurationError,
      ],
      ...[undefined, null, 5, ''].flatMap(
        (id): [string, () => Promise<unknown>, typeof MessageValidationError][] => [
          [`template update(${id})`, () => templates.update(id as never, 'en', {}), MessageValidationError],
          [`template get('n', ${id})`, () => templates.get('n', id as never), MessageValidationError],
          [`status get(${id})`, () => statuses.get(id as never), MessageValidationError],
          [`status delete(${id})`, () => statuses.delete(id as never), MessageValidationError],
        ],
      ),
      ...[null, {}, 'US.123'].map((id): [string, () => Promise<unknown>, typeof ConfigurationError] => [
        `suppressions reasonFor(${JSON.stringify(id)})`,
        () => new RedisSuppressionList({ redis }).reasonFor(id as never),
        ConfigurationError,
      ]),
    ];
    for (const [what, run, type] of bad) {
      const error = await run().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error, what).toBeInstanceOf(type);
    }
    expect(await templates.list()).toEqual([]); // nothing written under a name spelt from undefined
    await expect(sessions.set('k', { n: 1n }, 1000)).rejects.toThrow(
      'RedisSessionStore.set: the value cannot be saved: the stores keep JSON, which cannot write value.n (a bigint).',
    );
  });

  it('RedisTokenStore: get/set round-trip with the token expiry; garbage is a typed error', async () => {
    const store = new RedisTokenStore({ redis });
    expect(await store.get()).toBeUndefined();
    const expiresAt = Date.now() + 60_000;
    await store.set({ token: 'tok-1', expiresAt });
    expect(await store.get()).toEqual({ token: 'tok-1', expiresAt });
    const ttl = await redis.pttl('wa:token:platform');
    expect(ttl).toBeGreaterThan(50_000);
    expect(ttl).toBeLessThanOrEqual(60_000);
    await redis.set('wa:token:platform', '{"token":1}');
    const error = await store.get().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RedisStoreError);
    expect(String((error as Error).message)).not.toContain('token":1');
    expect(JSON.stringify(store)).not.toContain('tok-1');
  });

  it('RedisTokenStore.lock: one holder at a time across clients; the lock is released after a failure', async () => {
    const other = await target().newClient();
    {
      const a = new RedisTokenStore({ redis });
      const b = new RedisTokenStore({ redis: other });
      let inside = 0;
      let most = 0;
      const task = async () => {
        inside++;
        most = Math.max(most, inside);
        await new Promise((r) => setImmediate(r));
        await redis.ping();
        inside--;
        return 'ok';
      };
      const results = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).lock(task)));
      expect(results).toEqual(Array(10).fill('ok'));
      expect(most).toBe(1);
      await expect(a.lock(async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
      expect(await redis.exists('wa:token-lock:platform')).toBe(0);
    }
  });

  it("RedisTokenStore.lock: a dead holder's lock frees itself; a live holder's lease is renewed", async () => {
    await redis.set('wa:token-lock:platform', 'a-process-that-died', 'PX', 100);
    const store = new RedisTokenStore({ redis, lockLeaseMs: 300 });
    const seen = await store.lock(async () => {
      // Without renewal the lease only counts down; wait until it has been pushed back up at least once.
      let previous = await redis.pttl('wa:token-lock:platform');
      for (;;) {
        await new Promise((r) => setTimeout(r, 20));
        const ttl = await redis.pttl('wa:token-lock:platform');
        if (ttl > previous) return ttl;
        previous = ttl;
      }
    });
    expect(seen).toBeGreaterThan(0);
    expect(await redis.exists('wa:token-lock:platform')).toBe(0);
  });

  it('RedisTokenStore.lock: a holder that never lets go makes the waiter fail with lock_timeout', async () => {
    await redis.set('wa:token-lock:platform', 'someone-else', 'PX', 60_000);
    const store = new RedisTokenStore({ redis, lockWaitMs: 50 });
    await expect(store.lock(async () => 'never')).rejects.toMatchObject({
      name: 'RedisStoreError',
      failure: 'lock_timeout',
    });
  });

  const W = 'wamid.shared';
  const status = (value: string, ts: number, extra: Partial<WebhookStatus> = {}) =>
    statusObject(value, { id: W, timestamp: String(ts), ...extra });

  it('RedisStatusStore: gives the same results as StatusTracker, shared by two stores', async () => {
    const events = [
      status('read', 110),
      status('sent', 100),
      status('delivered', 105, { pricing: { billable: true } } as Partial<WebhookStatus>),
      status('delivered', 105, { pricing: { billable: true } } as Partial<WebhookStatus>),
      status('weird', 111),
    ];
    const tracker = new StatusTracker();
    const a = new RedisStatusStore({ redis });
    const b = new RedisStatusStore({ redis });
    for (const [i, e] of events.entries()) {
      const shared = await (i % 2 ? a : b).update(e);
      const local = tracker.update(e);
      expect(shared).toEqual(local);
    }
    expect(await a.get(W)).toEqual(tracker.get(W));
    expect(await b.billableCount()).toBe(1);
  });

  it('RedisStatusStore: concurrent updates never regress, failed is final, billing counted once', async () => {
    const stores = Array.from({ length: 4 }, () => new RedisStatusStore({ redis }));
    const batch = [
      status('sent', 100),
      status('delivered', 101, { pricing: { billable: true } } as Partial<WebhookStatus>),
      status('read', 102),
      status('delivered', 101, { pricing: { billable: true } } as Partial<WebhookStatus>),
    ];
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) => stores[i % 4]!.update(batch[i % batch.length]!)),
    );
    expect(results.filter((r) => r.newlyBillable)).toHaveLength(1);
    const final = await stores[0]!.get(W);
    expect(final).toMatchObject({ status: 'read', delivered: true, billable: true, events: 40 });
    await stores[1]!.update(status('failed', 103));
    await stores[2]!.update(status('read', 104));
    expect((await stores[3]!.get(W))?.status).toBe('failed');
    expect(await stores[0]!.billableCount()).toBe(1);
    expect(await stores[0]!.delete(W)).toBe(true);
    expect(await stores[0]!.get(W)).toBeUndefined();
  });

  it('RedisStatusStore: a status whose getter throws is a WebhookParseError, and nothing is written', async () => {
    const store = new RedisStatusStore({ redis });
    await store.update(status('sent', 100));
    const hostile = {
      id: W,
      get status(): string {
        throw new Error('boom');
      },
    };
    await expect(store.update(hostile as never)).rejects.toBeInstanceOf(WebhookParseError);
    expect(await store.get(W)).toMatchObject({ status: 'sent', events: 1 });
  });

  it('RedisStatusStore: a stored value of another shape is a typed error', async () => {
    const store = new RedisStatusStore({ redis });
    await store.update(status('sent', 100));
    const [key] = await target().keys('wa:status:*');
    await redis.set(key!, '{"wamid":"x","status":"sent"}');
    await expect(store.update(status('delivered', 101))).rejects.toMatchObject({
      name: 'RedisStoreError',
      failure: 'unexpected_reply',
    });
  });

  it('RedisRateLimiter: never more than N slots in any window; a slot frees a window after its answer', async () => {
    const a = new RedisRateLimiter({ redis, perSecond: 3, name: 't1' });
    const b = new RedisRateLimiter({ redis, perSecond: 3, name: 't1' });
    const releases = await Promise.all([a.acquire(), b.acquire(), a.acquire()]);
    expect(await redis.zcard(limitKey('t1', 'slots'))).toBe(3);
    let fourth = false;
    const next = b.acquire().then((release) => {
      fourth = true;
      return release;
    });
    // Still held: every slot is in flight, so the fourth must wait however long we look.
    for (let i = 0; i < 5; i++) await redis.ping();
    expect(fourth).toBe(false);
    const answeredAt = Date.now();
    releases[0]!();
    (await next)();
    expect(Date.now() - answeredAt).toBeGreaterThanOrEqual(1000);
    for (const r of releases) r();
  });

  it('RedisRateLimiter: a pause reaches every process; a BILL_001 stops bulk sends only, until resumed', async () => {
    const a = new RedisRateLimiter({ redis, perSecond: 50, name: 't2' });
    const b = new RedisRateLimiter({ redis, perSecond: 50, name: 't2' });
    a.pause(60_000);
    await expect.poll(() => redis.exists(limitKey('t2', 'pause'))).toBe(1);
    const stop = new AbortController();
    const waiting = b.acquire(stop.signal);
    stop.abort(new Error('gave up'));
    await expect(waiting).rejects.toThrow('gave up');
    await redis.del(limitKey('t2', 'pause'));

    a.paymentRequired(new Error('BILL_001'));
    await expect.poll(() => b.bulkStopped()).toBe(true);
    await expect(b.acquire(undefined, { bulk: true })).rejects.toBeInstanceOf(PaymentRequiredError);
    (await b.acquire(undefined, { bulk: false }))();
    await b.resumeBulk();
    (await a.acquire(undefined, { bulk: true }))();
  });

  it("through GatewayClient: one client's BILL_001 stops another's sendMany; its RATE_001 pauses the other", async () => {
    const hits: number[] = [];
    let answer: 'bill' | 'rate-once' | 'ok' = 'bill';
    let limitedAt = 0;
    const gateway = await startServer((_req, res, body) => {
      hits.push(Date.now());
      if (answer === 'bill' || answer === 'rate-once') {
        const rate = answer === 'rate-once';
        if (rate) {
          answer = 'ok';
          limitedAt = Date.now();
        }
        res.writeHead(rate ? 429 : 402, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify(
            rate
              ? envelope('RATE_001', 'TOO_MANY_REQUESTS', 'slow down', {
                  limit_type: 'sec',
                  retry_after: '1s',
                })
              : envelope('BILL_001', 'PAYMENT_REQUIRED', 'Balance is zero'),
          ),
        );
        return;
      }
      const to = (JSON.parse(body) as { to: string }).to;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          isSuccess: true,
          data: { contacts: [{ input: to, wa_id: to }], messages: [{ id: 'wamid.ok' }] },
        }),
      );
    });
    const otherRedis = await target().newClient();
    const logged: string[] = [];
    const logger = { warn: (m: string) => void logged.push(m) };
    try {
      const client = (r: RedisClient) =>
        new GatewayClient({
          apiKey: 'pk_test_shared_0123',
          baseUrl: gateway.url,
          logger,
          rateLimit: new RedisRateLimiter({ redis: r, name: 'gw' }),
        });
      const a = client(redis);
      const b = client(otherRedis);
      const text = (i: number) => ({ to: '998901234567', type: 'text' as const, text: { body: `m${i}` } });

      await expect(a.messages.send(text(0))).rejects.toBeInstanceOf(PaymentRequiredError);
      await expect.poll(() => redis.exists(limitKey('gw', 'bill'))).toBe(1);
      const stopLeft = await redis.pttl(limitKey('gw', 'bill'));
      await sleep(50);
      const results = [];
      for await (const r of b.messages.sendMany([1, 2, 3, 4, 5].map(text))) results.push(r);
      expect(results.map((r) => (r.ok ? 'ok' : r.notSent && r.error.name))).toEqual(
        Array(5).fill('PaymentRequiredError'),
      );
      expect(hits).toHaveLength(1); // b sent nothing
      // The sends the limiter refused did not renew the stop: it ends billingStopMs after the gateway's BILL_001,
      // not after the last refused send.
      expect(await redis.pttl(limitKey('gw', 'bill'))).toBeLessThanOrEqual(stopLeft - 40);

      await (b.rateLimiter as RedisRateLimiter).resumeBulk();
      answer = 'rate-once';
      const first = a.messages.send(text(6)); // 429, then retried after retry_after
      await expect.poll(() => redis.exists(limitKey('gw', 'pause'))).toBe(1);
      await b.messages.send(text(7));
      await first;
      expect(hits).toHaveLength(4);
      // b's send waited out the pause a's RATE_001 set (without it, it would have gone at once).
      expect(Math.min(hits[2]!, hits[3]!) - limitedAt).toBeGreaterThanOrEqual(900);
      // a's RATE_001 is retried, and says so; the clients share one limiter, so no shared-key warning.
      expect(logged).toEqual(['wa-gateway-sdk: retrying request']);
    } finally {
      await gateway.close();
    }
  });

  it('GatewayClient accepts a RedisRateLimiter as rateLimit', () => {
    const limiter = new RedisRateLimiter({ redis });
    const gw = new GatewayClient({
      apiKey: 'pk_test_0123456789',
      baseUrl: 'http://127.0.0.1:9',
      rateLimit: limiter,
    });
    expect(gw.rateLimiter).toBe(limiter);
    expect(() => new RedisRateLimiter({ redis, perSecond: 0 })).toThrow(ConfigurationError);
  });
}
