/**
 * The bounds of the router's in-memory defaults (anyone can message a business number, so their size is the
 * sender's to choose): `MemoryWindowStore` forgets a customer 48 hours after their last message and keeps at most
 * `maxKeys`; `MemorySessionStore` keeps at most `maxKeys` records and as many reply-ledger entries, and never drops
 * a record whose lock is held or awaited. Time is the stores' `now` option; the lock's wait runs on fake timers.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  ConfigurationError,
  checkServiceWindow,
  MemorySessionStore,
  MemoryWindowStore,
  SERVICE_WINDOW_MS,
  ServiceWindowClosedError,
} from '../../src/conversations/index.js';

const HOUR = 60 * 60 * 1000;
const T0 = Date.UTC(2025, 0, 1);

/** A clock the test moves. */
function clock(start = T0) {
  let t = start;
  return {
    now: () => t,
    advance: (ms: number) => {
      t += ms;
    },
  };
}

const refusal = (window: MemoryWindowStore, to: string, now: number) =>
  checkServiceWindow(window, { to, type: 'text' }, now).then(
    () => undefined,
    (e: unknown) => e,
  );

describe('MemoryWindowStore: forgets a customer whose window can no longer matter', () => {
  it('keeps a customer 48 hours after their last message, then forgets them', async () => {
    const time = clock();
    const window = new MemoryWindowStore({ now: time.now });
    await window.recordInbound('c1', T0);
    time.advance(SERVICE_WINDOW_MS + HOUR); // closed, and still told when it closed
    expect(await window.lastInbound('c1')).toBe(T0);
    const closed = await refusal(window, 'c1', time.now());
    expect(closed).toBeInstanceOf(ServiceWindowClosedError);
    expect((closed as ServiceWindowClosedError).closedAt).toEqual(new Date(T0 + SERVICE_WINDOW_MS));
    time.advance(SERVICE_WINDOW_MS - HOUR - 1);
    expect(await window.lastInbound('c1')).toBe(T0);
    time.advance(1); // 48 hours
    expect(await window.lastInbound('c1')).toBeUndefined();
    // Forgotten is never seen: refused as closed, without a closedAt.
    const forgotten = await refusal(window, 'c1', time.now());
    expect(forgotten).toBeInstanceOf(ServiceWindowClosedError);
    expect((forgotten as ServiceWindowClosedError).closedAt).toBeUndefined();
    expect(window.size).toBe(0);
  });

  // The gateway spec audit: a send to the number as a CRM writes it (Brazil's, without the digit the network adds)
  // found no window under the customer's wa_id, and the error said the customer had never written.
  it('a number written otherwise than the wa_id the customer wrote from: the error says to send to the wa_id', async () => {
    const window = new MemoryWindowStore();
    await window.recordInbound('551187654321', Date.now());
    await expect(checkServiceWindow(window, { to: '551187654321', type: 'text' })).resolves.toBeUndefined();
    const refused = await refusal(window, '5511987654321', Date.now());
    expect(refused).toBeInstanceOf(ServiceWindowClosedError);
    expect((refused as Error).message).toContain(
      "kept under the customer's wa_id (the `from` of their messages)",
    );
    expect((refused as Error).message).not.toContain('has not written');
    expect((refused as Error).message).not.toContain('5511987654321');
  });

  it('a later message keeps the customer 48 hours from it; a redelivered older one changes nothing', async () => {
    const time = clock();
    const window = new MemoryWindowStore({ now: time.now });
    await window.recordInbound('c1', T0);
    time.advance(40 * HOUR);
    await window.recordInbound('c1', time.now());
    await window.recordInbound('c1', T0); // late redelivery of the first message
    time.advance(40 * HOUR); // 80 h after the first message, 40 h after the second
    expect(await window.lastInbound('c1')).toBe(T0 + 40 * HOUR);
    expect(await refusal(window, 'c1', time.now())).toBeInstanceOf(ServiceWindowClosedError);
  });

  it('keeps a message delivered late for what is left of its 48 hours, one older not at all', async () => {
    const time = clock();
    const window = new MemoryWindowStore({ now: time.now });
    await window.recordInbound('late', T0 - 47 * HOUR);
    await window.recordInbound('stale', T0 - 48 * HOUR);
    await window.recordInbound('ahead', T0 + 72 * HOUR); // a clock 3 days ahead: its window closes at T0 + 96 h
    expect(await window.lastInbound('late')).toBe(T0 - 47 * HOUR);
    expect(await window.lastInbound('stale')).toBeUndefined();
    time.advance(HOUR);
    expect(await window.lastInbound('late')).toBeUndefined();
    time.advance(119 * HOUR - 1); // T0 + 120 h - 1
    expect(await window.lastInbound('ahead')).toBe(T0 + 72 * HOUR);
    time.advance(1);
    expect(await window.lastInbound('ahead')).toBeUndefined();
  });

  it('drops forgotten customers as new ones are recorded, so a stream of one-time senders stays flat', async () => {
    const time = clock();
    const window = new MemoryWindowStore({ now: time.now });
    for (let i = 0; i < 1_000; i++) {
      await window.recordInbound(`c${i}`, time.now());
      time.advance(5 * 60 * 1000); // one every 5 minutes: 576 in 48 hours
    }
    expect(window.size).toBeLessThanOrEqual(577);
    expect(await window.lastInbound('c0')).toBeUndefined();
    expect(await window.lastInbound('c999')).toBe(time.now() - 5 * 60 * 1000);
  });
});

describe('MemoryWindowStore: maxKeys', () => {
  it('keeps at most maxKeys customers, the one recorded first dropped first', async () => {
    const time = clock();
    const window = new MemoryWindowStore({ maxKeys: 3, now: time.now });
    for (const c of ['a', 'b', 'c']) await window.recordInbound(c, time.now());
    await window.recordInbound('a', time.now() + 1); // a newer message: 'a' is recorded last now
    await window.recordInbound('d', time.now());
    expect(window.size).toBe(3);
    expect(await window.lastInbound('b')).toBeUndefined();
    expect(await window.lastInbound('a')).toBe(T0 + 1);
    for (let i = 0; i < 1_000; i++) await window.recordInbound(`x${i}`, time.now());
    expect(window.size).toBe(3);
  });

  it('a customer dropped while their window was open is refused as never seen, until they write again', async () => {
    const time = clock();
    const window = new MemoryWindowStore({ maxKeys: 1, now: time.now });
    await window.recordInbound('a', time.now());
    await window.recordInbound('b', time.now());
    const refused = await refusal(window, 'a', time.now());
    expect(refused).toBeInstanceOf(ServiceWindowClosedError);
    expect((refused as ServiceWindowClosedError).closedAt).toBeUndefined();
    await window.recordInbound('a', time.now());
    expect(await refusal(window, 'a', time.now())).toBeUndefined();
  });

  it('defaults to 100,000 and refuses a count that is not one', () => {
    expect(new MemoryWindowStore().maxKeys).toBe(100_000);
    for (const maxKeys of [0, -1, 1.5, Number.NaN, '10']) {
      expect(() => new MemoryWindowStore({ maxKeys: maxKeys as number })).toThrow(ConfigurationError);
    }
    expect(() => new MemoryWindowStore({ maxKeys: 0 })).toThrow('new MemoryWindowStore: `maxKeys` must be');
  });
});

describe('MemorySessionStore: maxKeys on the records', () => {
  it('keeps at most maxKeys records, the oldest written dropped first', async () => {
    const time = clock();
    const store = new MemorySessionStore({ maxKeys: 3, now: time.now });
    for (const k of ['a', 'b', 'c']) await store.set(k, { k }, HOUR);
    await store.set('a', { k: 'a2' }, HOUR); // rewritten: now the newest
    await store.set('d', { k: 'd' }, HOUR);
    expect(store.size).toBe(3);
    expect(await store.get('b')).toBeUndefined();
    expect(await store.get('a')).toEqual({ k: 'a2' });
    for (let i = 0; i < 1_000; i++) await store.set(`x${i}`, { i }, HOUR);
    expect(store.size).toBe(3);
    expect(await store.get('x999')).toEqual({ i: 999 });
  });

  it('never drops a record whose lock is held or awaited; drops it once the last lock call is done', async () => {
    const time = clock();
    const store = new MemorySessionStore({ maxKeys: 2, now: time.now });
    await store.set('a', { k: 'a' }, HOUR);
    await store.set('b', { k: 'b' }, HOUR);
    const holder = await store.lock('a', 5_000);
    const waiter = store.lock('a', 5_000);
    for (const k of ['c', 'd', 'e']) await store.set(k, { k }, HOUR);
    expect(await store.get('a')).toEqual({ k: 'a' });
    expect(await store.get('d')).toBeUndefined();
    await holder.release();
    await holder.release(); // twice: counts once
    const next = await waiter;
    await store.set('f', { k: 'f' }, HOUR);
    expect(await store.get('a')).toEqual({ k: 'a' }); // the waiter holds it now
    await next.release();
    await store.set('g', { k: 'g' }, HOUR);
    expect(await store.get('a')).toBeUndefined();
    expect(store.size).toBe(2);
  });

  describe('with fake timers', () => {
    afterEach(() => {
      vi.useRealTimers();
    });

    it('a waiter that timed out no longer keeps the record', async () => {
      vi.useFakeTimers();
      const time = clock();
      const store = new MemorySessionStore({ maxKeys: 1, lockWaitMs: 1_000, now: time.now });
      await store.set('a', { k: 'a' }, HOUR);
      const holder = await store.lock('a', 5_000);
      const waiter = store.lock('a', 5_000).catch((e: unknown) => e);
      await vi.advanceTimersByTimeAsync(1_000);
      expect(await waiter).toMatchObject({ name: 'ConversationError', reason: 'lock_timeout' });
      await store.set('b', { k: 'b' }, HOUR);
      expect(await store.get('a')).toEqual({ k: 'a' }); // still held
      await holder.release();
      await store.set('c', { k: 'c' }, HOUR);
      expect(await store.get('a')).toBeUndefined();
    });
  });

  it('drops expired records at the front as it writes', async () => {
    const time = clock();
    const store = new MemorySessionStore({ now: time.now });
    for (let i = 0; i < 100; i++) await store.set(`k${i}`, { i }, HOUR);
    time.advance(HOUR);
    expect(await store.get('k99')).toBeUndefined();
    await store.set('new', {}, HOUR);
    expect(store.size).toBe(1);
  });

  it('defaults to 100,000 and refuses a count that is not one', () => {
    expect(new MemorySessionStore().maxKeys).toBe(100_000);
    for (const maxKeys of [0, 2.5, '100', null]) {
      expect(() => new MemorySessionStore({ maxKeys: maxKeys as number })).toThrow(
        'new MemorySessionStore: `maxKeys` must be',
      );
    }
  });
});

describe('MemorySessionStore: maxKeys on the reply ledger', () => {
  it('keeps the last maxKeys replies apart from the records; an older one can be claimed again', async () => {
    const time = clock();
    const store = new MemorySessionStore({ maxKeys: 3, now: time.now });
    for (let i = 0; i < 3; i++) expect(await store.claim(`reply:e${i}#0`, HOUR)).toBe(true);
    for (const k of ['a', 'b', 'c', 'd']) await store.set(k, {}, HOUR); // records do not push replies out
    expect(await store.claim('reply:e0#0', HOUR)).toBe(false);
    expect(await store.claim('reply:e3#0', HOUR)).toBe(true);
    expect(store.ledgerSize).toBe(3);
    expect(await store.claim('reply:e0#0', HOUR)).toBe(true); // beyond the bound: the documented trade
    expect(await store.claim('reply:e3#0', HOUR)).toBe(false);
    for (let i = 0; i < 1_000; i++) await store.claim(`reply:x${i}#0`, HOUR);
    expect(store.ledgerSize).toBe(3);
  });

  it('a claim lasts its TTL and can be unclaimed', async () => {
    const time = clock();
    const store = new MemorySessionStore({ now: time.now });
    expect(await store.claim('r', HOUR)).toBe(true);
    time.advance(HOUR - 1);
    expect(await store.claim('r', HOUR)).toBe(false);
    time.advance(1);
    expect(await store.claim('r', HOUR)).toBe(true);
    await store.unclaim('r');
    expect(await store.claim('r', HOUR)).toBe(true);
  });
});
