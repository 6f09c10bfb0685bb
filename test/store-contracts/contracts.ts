/**
 * The stores' contract, one set of assertions for every implementation: memory (one process), Redis and
 * Durable Objects (many processes or isolates over one state). `storeContracts(backend)` registers the tests in
 * the calling file's `describe`. A test that needs what only a shared store has (two instances; a lease that a
 * dead holder's lock runs out on) runs on shared backends only.
 */
import { expect, it } from 'vitest';
import { TemplateCatalog } from '../../src/templates/catalog.js';
import { statusObject } from '../../src/testing/webhook-fixtures.js';
import { StatusTracker, type WebhookStatus } from '../../src/webhooks/index.js';
import { eventually, type StoreBackend, unique } from './backend.js';

const lockTimedOut = (error: unknown) => {
  const e = error as { reason?: unknown; failure?: unknown } | null;
  return e?.reason === 'lock_timeout' || e?.failure === 'lock_timeout';
};

/** The lock of `c`, retried past `lock_timeout` (each store waits `LOCK_WAIT_MS`) until a dead holder's lease ends. */
async function eventuallyLocked(backend: StoreBackend, c: string) {
  for (let attempt = 0; ; attempt++) {
    try {
      return await backend.sessions().lock(c, 10_000);
    } catch (error) {
      if (!lockTimedOut(error) || attempt >= 10) throw error;
    }
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function storeContracts(backend: StoreBackend): void {
  const shared = it.runIf(backend.shared);

  // Deduplication (IdempotencyStore).

  it('dedupe: exactly one of many concurrent claims wins; done is remembered', async () => {
    const key = unique('evt');
    const stores = Array.from({ length: 8 }, () => backend.dedupe());
    const answers = await Promise.all(stores.map((s) => s.claim(key, 10_000)));
    expect(answers.filter((a) => a === 'claimed')).toHaveLength(1);
    expect(answers.filter((a) => a === 'in_progress')).toHaveLength(7);
    const holder = stores[answers.indexOf('claimed')]!;
    expect(await holder.peek(key)).toBe('in_progress');
    await holder.complete?.(key, 60_000);
    expect(await stores[0]!.claim(key, 10_000)).toBe('done');
    expect(await stores[7]!.peek(key)).toBe('done');
    expect(await holder.renew?.(key, 10_000)).toBe(false); // done is not a claim to extend
  });

  it('dedupe: a released claim is free again for the retry', async () => {
    const key = unique('evt');
    const a = backend.dedupe();
    const b = backend.dedupe();
    expect(await a.claim(key, 60_000)).toBe('claimed');
    await a.release(key);
    expect(await b.peek(key)).toBeUndefined();
    expect(await b.claim(key, 60_000)).toBe('claimed');
  });

  shared('dedupe: only the holder releases or renews its claim', async () => {
    const key = unique('evt');
    const a = backend.dedupe();
    const b = backend.dedupe();
    expect(await a.claim(key, 60_000)).toBe('claimed');
    await b.release(key); // b does not hold it: nothing happens
    expect(await b.renew?.(key, 60_000)).toBe(false);
    expect(await b.claim(key, 60_000)).toBe('in_progress');
    expect(await a.renew?.(key, 60_000)).toBe(true);
    await a.release(key);
    expect(await b.claim(key, 60_000)).toBe('claimed');
  });

  it('dedupe: a lease ends by itself; a renewed one outlives the lease it was claimed with', async () => {
    const dying = unique('evt');
    const living = unique('evt');
    const holder = backend.dedupe();
    const other = backend.dedupe();
    const started = Date.now();
    expect(await holder.claim(living, 1_500)).toBe('claimed');
    expect(await holder.renew?.(living, 60_000)).toBe(true);
    expect(await holder.claim(dying, 150)).toBe('claimed'); // and never renewed: its holder died
    const taken = await eventually(
      () => Promise.resolve(other.claim(dying, 60_000)),
      (a) => a === 'claimed',
    );
    expect(taken).toBe('claimed');
    if (backend.shared) {
      // The dead holder's late release cannot free the claim its successor took.
      await holder.release(dying);
      expect(await holder.renew?.(dying, 60_000)).toBe(false);
      expect(await backend.dedupe().claim(dying, 60_000)).toBe('in_progress');
    }
    await sleep(Math.max(0, started + 1_700 - Date.now())); // past the lease `living` was claimed with
    expect(await other.claim(living, 60_000)).toBe('in_progress');
  });

  // Sessions: the per-customer lock, the fenced save, records and the reply ledger (SessionStore).

  it("sessions: one customer's lock is held by one holder at a time; another customer's is free", async () => {
    const [c1, c2] = [unique('c'), unique('c')];
    const a = backend.sessions();
    const b = backend.sessions();
    const order: string[] = [];
    const first = await a.lock(c1, 10_000);
    const waiting = b.lock(c1, 10_000).then((lock) => {
      order.push('second acquired');
      return lock;
    });
    const other = await b.lock(c2, 10_000); // not blocked by c1
    order.push('other acquired');
    await other.release();
    order.push('first released');
    await first.release();
    await (await waiting).release();
    expect(order).toEqual(['other acquired', 'first released', 'second acquired']);
  });

  it('sessions: a waiter past its wait time fails with lock_timeout; releasing twice is harmless', async () => {
    const c = unique('c');
    const held = await backend.sessions().lock(c, 10_000);
    const error = await backend
      .sessions()
      .lock(c, 10_000)
      .catch((e: unknown) => e);
    expect(lockTimedOut(error)).toBe(true);
    await held.release();
    await held.release();
    await (await backend.sessions().lock(c, 10_000)).release(); // free again, and not taken by the one that gave up
  });

  shared('sessions: a holder that died frees the customer after its lease', async () => {
    const c = unique('c');
    await backend.deadHolder!(c, 300);
    const lock = await eventuallyLocked(backend, c);
    await lock.save?.({ s: 'after the dead one' }, 60_000);
    await lock.release();
  });

  shared("sessions: a holder whose lease ran out cannot save over the next holder's record", async () => {
    const c = unique('c');
    const a = backend.sessions();
    const lease = 2_000;
    const lock = await a.lock(c, lease);
    await lock.save?.({ s: 'mine' }, 60_000);
    expect(await backend.sessions().get(c)).toEqual({ s: 'mine' });
    await backend.loseLease!(c, lease);
    const next = await backend.sessions().lock(c, 10_000);
    await next.save?.({ s: 'theirs' }, 60_000);
    const error = await lock.save?.({ s: 'stale' }, 60_000).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'ConversationError', reason: 'lock_lost' });
    expect(await a.get(c)).toEqual({ s: 'theirs' });
    await lock.release(); // frees nothing: the lock is not its own any more
    const third = await backend
      .sessions()
      .lock(c, 10_000)
      .catch((e: unknown) => e);
    expect(lockTimedOut(third)).toBe(true);
    await next.release();
  });

  it('sessions: records round-trip as JSON, expire with their TTL, and can be deleted', async () => {
    const [c, short] = [unique('c'), unique('c')];
    const store = backend.sessions();
    await store.set(c, { s: { slot: 'mon' }, seen: ['a'] }, 60_000);
    expect(await backend.sessions().get(c)).toEqual({ s: { slot: 'mon' }, seen: ['a'] });
    await store.delete(c);
    expect(await store.get(c)).toBeUndefined();
    await store.set(short, { s: 1 }, 100);
    expect(
      await eventually(
        () => store.get(short),
        (v) => v === undefined,
      ),
    ).toBeUndefined();
  });

  it("sessions: what JSON cannot write (a BigInt, a cycle) is refused by set and by a lock's save with ConversationError (invalid_session) naming where; nothing is stored", async () => {
    for (const via of ['set', 'save'] as const) {
      for (const [kind, where] of [
        ['bigint', 'value.s.total (a bigint)'],
        ['cycle', 'value.s.deep.self (a cycle)'],
      ] as const) {
        const c = unique('c');
        const error = await backend.saveOdd(c, kind, via).then(
          () => undefined,
          (e: unknown) => e,
        );
        // By name: inside workerd the error is another realm's class.
        expect((error as Error | undefined)?.name, `${via} ${kind}`).toBe('ConversationError');
        expect(error, `${via} ${kind}`).toMatchObject({ reason: 'invalid_session' });
        expect((error as Error).message, `${via} ${kind}`).toContain(where);
        expect(await backend.sessions().get(c)).toBeUndefined();
      }
    }
  });

  it("sessions: what JSON changes (a Date, a function) is stored as JSON makes it, by set and by a lock's save", async () => {
    for (const via of ['set', 'save'] as const) {
      const c = unique('c');
      await backend.saveOdd(c, 'date', via);
      expect(await backend.sessions().get(c), via).toEqual({ s: { at: '1970-01-01T00:00:00.000Z' } });
    }
  });

  it('sessions: the reply ledger claims an id once until it is unclaimed', async () => {
    const id = `reply:${unique('wamid')}#0`;
    const a = backend.sessions();
    const b = backend.sessions();
    const answers = await Promise.all([a.claim(id, 60_000), b.claim(id, 60_000), a.claim(id, 60_000)]);
    expect(answers.filter(Boolean)).toHaveLength(1);
    await b.unclaim(id);
    expect(await a.claim(id, 60_000)).toBe(true);
  });

  // The service window (WindowStore).

  it('window: keeps the latest inbound time; an unknown customer has none', async () => {
    const c = unique('c');
    const window = backend.window();
    // Recent times: a store may forget a time whose window can no longer matter (MemoryWindowStore, after 48 h).
    const t = Date.now() - 60_000;
    expect(await window.lastInbound(c)).toBeUndefined();
    await window.recordInbound(c, t + 2_000);
    await backend.window().recordInbound(c, t + 1_000); // a late redelivery does not move it back
    expect(await backend.window().lastInbound(c)).toBe(t + 2_000);
    await window.recordInbound(c, t + 3_000);
    expect(await window.lastInbound(c)).toBe(t + 3_000);
  });

  it('window: a customer that is not text, or a time that is not one, is refused before anything is stored', async () => {
    const window = backend.window();
    const c = unique('c');
    const refused = async (call: Promise<unknown>, path: string) => {
      const error = await call.then(
        () => undefined,
        (e: unknown) => e,
      );
      // By name: inside workerd the error is another realm's class.
      expect((error as Error).name).toBe('ConfigurationError');
      expect((error as Error).message).toContain(`\`${path}\` must be`);
    };
    await refused(window.recordInbound(null as never, 5_000), 'customer');
    await refused(window.recordInbound('  ', 5_000), 'customer');
    await refused(window.lastInbound(undefined as never), 'customer');
    for (const atMs of [null, undefined, '5000', Number.NaN, Number.POSITIVE_INFINITY])
      await refused(window.recordInbound(c, atMs as never), 'atMs');
    // Nothing was written under the customer, nor under a key spelt from null.
    expect(await window.lastInbound(c)).toBeUndefined();
    expect(await window.lastInbound('null')).toBeUndefined();
  });

  // Delivery statuses (StatusTracker's rules).

  const status = (wamid: string, value: string, ts: number, extra: Partial<WebhookStatus> = {}) =>
    statusObject(value, { id: wamid, timestamp: String(ts), ...extra });
  const billable = { pricing: { billable: true } } as Partial<WebhookStatus>;

  it('statuses: out of order and redelivered, the same results as StatusTracker', async () => {
    const W = unique('wamid');
    const events = [
      status(W, 'read', 110),
      status(W, 'sent', 100),
      status(W, 'delivered', 105, billable),
      status(W, 'delivered', 105, billable),
      status(W, 'weird', 111),
    ];
    const tracker = new StatusTracker();
    const a = backend.statuses();
    const b = backend.statuses();
    for (const [i, e] of events.entries()) {
      const stored = await (i % 2 ? a : b).update(e);
      expect(stored).toEqual(tracker.update(e));
    }
    expect(await a.get(W)).toEqual(tracker.get(W));
    // The update that moved the status, then the late delivered's billing (no status moved).
    expect(await b.changes()).toEqual(['read', 'read']);
  });

  it('statuses: concurrent updates never regress, failed is final, billing is new once', async () => {
    const W = unique('wamid');
    const stores = Array.from({ length: 4 }, () => backend.statuses());
    const batch = [
      status(W, 'sent', 100),
      status(W, 'delivered', 101, billable),
      status(W, 'read', 102),
      status(W, 'delivered', 101, billable),
    ];
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) => stores[i % 4]!.update(batch[i % batch.length]!)),
    );
    expect(results.filter((r) => r.newlyBillable)).toHaveLength(1);
    expect(await stores[0]!.get(W)).toMatchObject({
      status: 'read',
      delivered: true,
      billable: true,
      events: 40,
    });
    await stores[1]!.update(status(W, 'failed', 103));
    await stores[2]!.update(status(W, 'read', 104));
    expect((await stores[3]!.get(W))?.status).toBe('failed');
    expect(await stores[0]!.delete(W)).toBe(true);
    expect(await stores[1]!.get(W)).toBeUndefined();
    expect(await stores[1]!.delete(W)).toBe(false);
  });

  it('statuses: a status whose getter throws is a WebhookParseError, and nothing is written', async () => {
    const W = unique('wamid');
    const store = backend.statuses();
    await store.update(status(W, 'sent', 100));
    const error = await store.hostileUpdate(W).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'WebhookParseError' });
    expect(await store.get(W)).toMatchObject({ status: 'sent', events: 1 });
  });

  it('statuses: an onChange that fails undoes the change; the retry announces it', async () => {
    const W = unique('wamid');
    const store = backend.statuses({ failChanges: 1 });
    await store.update(status(W, 'sent', 100)).catch(() => undefined); // the first change's onChange fails
    expect(await store.get(W)).toBeUndefined();
    const retry = await store.update(status(W, 'sent', 100));
    expect(retry).toMatchObject({ changed: true, current: { status: 'sent', events: 1 } });
    expect(await backend.statuses().get(W)).toMatchObject({ status: 'sent' });
    expect(await store.changes()).toEqual(['sent']);
  });

  it('statuses: a billable delivered after its read is announced (billing to persist), its duplicate is not', async () => {
    const W = unique('wamid');
    const store = backend.statuses();
    await store.update(status(W, 'read', 110));
    const late = await store.update(status(W, 'delivered', 105, billable));
    expect(late).toMatchObject({
      changed: false,
      newlyBillable: true,
      current: { status: 'read', billable: true },
    });
    await store.update(status(W, 'delivered', 105, billable));
    expect(await store.changes()).toEqual(['read', 'read']);
  });

  it('statuses: an onChange that fails on billing undoes it; the retry marks it billable and announces it', async () => {
    const W = unique('wamid');
    await backend.statuses().update(status(W, 'read', 110));
    const store = backend.statuses({ failChanges: 1 });
    await expect(store.update(status(W, 'delivered', 105, billable))).rejects.toThrow();
    expect(await backend.statuses().get(W)).toMatchObject({ status: 'read', billable: false });
    const retry = await store.update(status(W, 'delivered', 105, billable));
    expect(retry).toMatchObject({ changed: false, newlyBillable: true });
    expect(await backend.statuses().get(W)).toMatchObject({ status: 'read', billable: true });
    expect(await store.changes()).toEqual(['read']);
  });

  it('statuses: a failed onChange takes back only its own change, not a billing written meanwhile', async () => {
    const W = unique('wamid');
    const countBefore = await backend.statuses().billableCount?.();
    await backend.statuses().update(status(W, 'sent', 100));
    // This read's onChange fails; while it runs, another instance applies the late billable delivered (its
    // onChange succeeds: billing to persist, no status moved).
    const failing = backend.statuses({
      failChanges: 1,
      inFailingChange: status(W, 'delivered', 105, billable),
    });
    await expect(failing.update(status(W, 'read', 110))).rejects.toThrow('on purpose');
    const undone = await backend.statuses().get(W);
    expect(undone).toMatchObject({
      status: 'sent',
      delivered: true,
      deliveredAt: 105,
      billable: true,
      events: 2,
    });
    expect(undone?.readAt).toBeUndefined();
    // The gateway's retry of the read, then a redelivery of the delivered: billed once, announced once.
    const store = backend.statuses();
    expect(await store.update(status(W, 'read', 110))).toMatchObject({ changed: true, newlyBillable: false });
    const again = await store.update(status(W, 'delivered', 105, billable));
    expect(again).toMatchObject({ changed: false, newlyBillable: false });
    expect(await store.get(W)).toMatchObject({ status: 'read', readAt: 110, billable: true, events: 4 });
    expect(await store.changes()).toEqual(['read']);
    if (countBefore !== undefined) expect(await store.billableCount?.()).toBe(countBefore + 1);
  });

  it('statuses: a failed onChange on a new message leaves what another instance wrote meanwhile', async () => {
    const W = unique('wamid');
    const countBefore = await backend.statuses().billableCount?.();
    const failing = backend.statuses({
      failChanges: 1,
      inFailingChange: status(W, 'delivered', 105, billable),
    });
    await expect(failing.update(status(W, 'read', 110))).rejects.toThrow('on purpose');
    expect(await backend.statuses().get(W)).toMatchObject({ status: 'sent', billable: true, events: 1 });
    const store = backend.statuses();
    expect(await store.update(status(W, 'read', 110))).toMatchObject({ changed: true, newlyBillable: false });
    expect(await store.update(status(W, 'delivered', 105, billable))).toMatchObject({ newlyBillable: false });
    expect(await store.changes()).toEqual(['read']);
    if (countBefore !== undefined) expect(await store.billableCount?.()).toBe(countBefore + 1);
  });

  // The template catalogue (TemplateStore).

  it('templates: merges fields, clears a reason, keeps a definition, lists', async () => {
    const name = unique('tpl').replace(/-/g, '_');
    const store = backend.templates();
    const definition = { name, language: 'en_US', category: 'UTILITY', body: { text: 'Hi' } };
    await store.update(name, 'en_US', { status: 'REJECTED', reason: 'INVALID_FORMAT', definition } as never);
    await backend.templates().update(name, 'en_US', { sourceId: '42' });
    const merged = await store.update(name, 'en_US', { status: 'APPROVED', reason: null });
    expect(merged).toMatchObject({ name, language: 'en_US', status: 'APPROVED', sourceId: '42', definition });
    expect(merged).not.toHaveProperty('reason');
    expect(await backend.templates().get(name, 'en_US')).toEqual(merged);
    expect(await store.get(name, 'fr')).toBeUndefined();
    await store.update(name, 'fr', { status: 'PENDING' });
    const languages = (await backend.templates().list())
      .filter((r) => r.name === name)
      .map((r) => r.language);
    expect(languages.sort()).toEqual(['en_US', 'fr']);
  });

  it('templates: a patch of the wrong types is refused with a ConfigurationError, and nothing is stored', async () => {
    const name = unique('tpl').replace(/-/g, '_');
    const store = backend.templates();
    const bad: [unknown, RegExp][] = [
      [{ status: 12345 }, /`status` must be a status's name .*; got 12345\./],
      [{ status: ' ' }, /`status` must be .*; got an empty string\./],
      [{ reason: 42 }, /`reason` must be text, or null to clear it; got 42\./],
      [{ sourceId: 7 }, /`sourceId` must be the upstream template id as text; got 7\./],
      [
        { definition: 'order_shipped' },
        /`definition` must be a template definition \(an object\); got a string\./,
      ],
      [null, /`patch` must be an object .*; got null\./],
      [[], /`patch` must be an object .*; got an array\./],
    ];
    for (const [patch, message] of bad) {
      const error = await store.update(name, 'en_US', patch as never).catch((e: unknown) => e);
      // By name: the Durable Object backends' errors come back from workerd.
      expect((error as Error).name).toBe('ConfigurationError');
      expect((error as Error).message).toMatch(message);
      expect((error as Error).message).toMatch(/TemplateStore\.update: /);
    }
    expect(await store.get(name, 'en_US')).toBeUndefined();
    expect((await store.list()).filter((r) => r.name === name)).toEqual([]);
  });

  it('templates: a PAUSED status applied through one catalogue refuses the send another checks', async () => {
    const name = unique('tpl').replace(/-/g, '_');
    const receiver = new TemplateCatalog({ store: backend.templates() });
    const sender = new TemplateCatalog({ store: backend.templates() });
    await receiver.record({ name, language: 'en_US', status: 'APPROVED', sourceId: 7 });
    const send = { name, language: { code: 'en_US' } };
    await sender.check(send);
    await receiver.apply({
      event: 'PAUSED',
      message_template_id: 7,
      message_template_name: name,
      message_template_language: 'en_US',
      reason: null,
    });
    await expect(sender.check(send)).rejects.toMatchObject({
      name: 'TemplateSendError',
      rule: 'template.status',
    });
  });
}
