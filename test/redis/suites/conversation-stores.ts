/**
 * RedisSessionStore and RedisWindowStore on a real redis-server: the per-customer lock (waits, frees, outlives a
 * dead holder by one lease, gives up with a typed error), the reply ledger, records, and the window's latest time.
 */
import { createHash } from 'node:crypto';
import { beforeAll, expect, it } from 'vitest';
import { ConversationError, createRouter } from '../../../src/conversations/index.js';
import {
  type RedisClient,
  RedisSessionStore,
  RedisStoreError,
  RedisWindowStore,
} from '../../../src/redis/index.js';
import { messageEnvelope, textMessage } from '../../../src/testing/webhook-fixtures.js';
import { parseWebhook } from '../../../src/webhooks/index.js';
import type { RedisTarget } from '../../helpers/redis-target.js';

/** The conversation stores' tests, on `target` (one redis-server, or a cluster). */
export function conversationStoresSuite(target: () => RedisTarget): void {
  let redis: RedisClient;
  beforeAll(() => {
    redis = target().redis;
  });
  /** A customer's record or lock: on a cluster both carry the customer's hash as their hash tag. */
  const key = (kind: string, id: string) => {
    const hash = createHash('sha256').update(id).digest('base64url');
    return target().kind === 'cluster' ? `t:${kind}:{${hash}}` : `t:${kind}:${hash}`;
  };

  it("one customer's lock is held by one holder at a time; another customer's is free", async () => {
    const a = new RedisSessionStore({ redis, prefix: 't:' });
    const b = new RedisSessionStore({ redis, prefix: 't:' });
    const order: string[] = [];
    const first = await a.lock('c1', 5_000);
    const waiting = b.lock('c1', 5_000).then((l) => {
      order.push('second acquired');
      return l;
    });
    const other = await b.lock('c2', 5_000); // not blocked by c1
    order.push('other acquired');
    await other.release();
    order.push('first released');
    await first.release();
    await (await waiting).release();
    expect(order).toEqual(['other acquired', 'first released', 'second acquired']);
  });

  it('a holder that died frees the customer after its lease; a live holder past the wait time is a typed error', async () => {
    const store = new RedisSessionStore({ redis, prefix: 't:', lockWaitMs: 10_000 });
    await redis.set(key('conv-lock', 'c3'), 'a dead instance', 'PX', 200); // no one renews it
    await (await store.lock('c3', 5_000)).release();

    const impatient = new RedisSessionStore({ redis, prefix: 't:', lockWaitMs: 50 });
    const held = await store.lock('c4', 5_000);
    const error = await impatient.lock('c4', 5_000).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RedisStoreError);
    expect(error).toMatchObject({ failure: 'lock_timeout', operation: 'RedisSessionStore.lock' });
    await held.release();
    await held.release(); // twice is harmless
  });

  it("a holder whose lease was taken over cannot save over the next holder's record", async () => {
    const store = new RedisSessionStore({ redis, prefix: 't:' });
    const lock = await store.lock('c8', 5_000);
    await lock.save?.({ s: 'mine' }, 60_000);
    expect(await store.get('c8')).toEqual({ s: 'mine' });
    await redis.set(key('conv-lock', 'c8'), 'the next holder', 'PX', 5_000); // the lease ran out and was taken
    await store.set('c8', { s: 'theirs' }, 60_000);
    const error = await lock.save?.({ s: 'stale' }, 60_000).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConversationError);
    expect(error).toMatchObject({ reason: 'lock_lost' });
    expect(await store.get('c8')).toEqual({ s: 'theirs' });
    await lock.release(); // frees nothing: the lock is not its own any more
    expect(await redis.get(key('conv-lock', 'c8'))).toBe('the next holder');
  });

  it('records round-trip as JSON with their TTL; a foreign value is a typed error', async () => {
    const store = new RedisSessionStore({ redis, prefix: 't:' });
    await store.set('c5', { s: { slot: 'mon' }, seen: ['a'] }, 60_000);
    expect(await store.get('c5')).toEqual({ s: { slot: 'mon' }, seen: ['a'] });
    expect(await redis.pttl(key('conv', 'c5'))).toBeGreaterThan(50_000);
    await store.delete('c5');
    expect(await store.get('c5')).toBeUndefined();
    await redis.set(key('conv', 'c6'), '{not json');
    await expect(store.get('c6')).rejects.toMatchObject({ failure: 'unexpected_reply' });
  });

  it('a value JSON changes is saved as JSON makes it, with one warning per store naming where', async () => {
    const lines: string[] = [];
    const logger = { warn: (m: string) => void lines.push(m), error: (m: string) => void lines.push(m) };
    const store = new RedisSessionStore({ redis, prefix: 't:', logger });
    await store.set('c9', { s: { at: new Date(0) } }, 60_000);
    const lock = await store.lock('c9', 5_000);
    await lock.save?.({ s: { at: new Date(0), format: () => 'x' } }, 60_000);
    await lock.release();
    expect(await store.get('c9')).toEqual({ s: { at: '1970-01-01T00:00:00.000Z' } });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^RedisSessionStore\.set: the value holds a value JSON changes \(value\.s\.at: a Date\)/,
    );
  });

  it("through the router, a session JSON changes is one warning (the router's), not a second from the store", async () => {
    const lines: string[] = [];
    const logger = { warn: (m: string) => void lines.push(m), error: (m: string) => void lines.push(m) };
    const router = createRouter<Record<string, unknown>>({
      gateway: { messages: { send: async () => ({ messageId: 'wamid.OUT' }) } },
      sessions: new RedisSessionStore({ redis, prefix: 't:', logger }),
      window: new RedisWindowStore({ redis, prefix: 't:' }),
      logger,
    });
    router.otherwise((ctx) => {
      ctx.session['at'] = new Date(0);
    });
    const customer = '998900000010';
    for (const id of ['wamid.IN1', 'wamid.IN2']) {
      const [event] = parseWebhook(
        messageEnvelope(textMessage({ id, from: customer, text: { body: 'hi' } })),
      );
      await router.handle(event!);
    }
    expect(await router.session(customer)).toEqual({ at: '1970-01-01T00:00:00.000Z' });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^wa-gateway-sdk router: the session holds a value JSON changes/);
  });

  it('the reply ledger claims an id once until it is unclaimed', async () => {
    const store = new RedisSessionStore({ redis, prefix: 't:' });
    expect(await store.claim('reply:e1#0', 60_000)).toBe(true);
    expect(await store.claim('reply:e1#0', 60_000)).toBe(false);
    await store.unclaim('reply:e1#0');
    expect(await store.claim('reply:e1#0', 60_000)).toBe(true);
  });

  it('the window keeps the latest inbound time; an unknown customer has none', async () => {
    const window = new RedisWindowStore({ redis, prefix: 't:' });
    expect(await window.lastInbound('c7')).toBeUndefined();
    await window.recordInbound('c7', 2_000);
    await window.recordInbound('c7', 1_000); // a late redelivery does not move it back
    expect(await window.lastInbound('c7')).toBe(2_000);
    await window.recordInbound('c7', 3_000);
    expect(await window.lastInbound('c7')).toBe(3_000);
  });

  it('refuses a missing client with a ConfigurationError', () => {
    expect(() => new RedisSessionStore({} as never)).toThrow(/ioredis client/);
    expect(() => new RedisWindowStore({ redis, ttlMs: -1 })).toThrow(/ttlMs/);
  });
}
