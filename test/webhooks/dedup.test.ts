import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { statusEnvelope, statusObject } from '../../src/testing/webhook-fixtures.js';
import { createWebhookHandler, MemoryIdempotencyStore } from '../../src/webhooks/index.js';

describe('MemoryIdempotencyStore', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.setSystemTime(new Date('2024-01-01T00:00:00Z'));
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('a key in progress or done is not claimed again', () => {
    const store = new MemoryIdempotencyStore();
    expect(store.claim('k', 1000)).toBe('claimed');
    expect(store.claim('k', 1000)).toBe('in_progress');
    store.complete('k', 1000);
    expect(store.claim('k', 1000)).toBe('done');
    expect(store.peek('k')).toBe('done');
  });

  it('release frees a key so the retry can claim it', () => {
    const store = new MemoryIdempotencyStore();
    expect(store.claim('k', 1000)).toBe('claimed');
    store.release('k');
    expect(store.peek('k')).toBeUndefined();
    expect(store.claim('k', 1000)).toBe('claimed');
  });

  it('forgets a key after its TTL', () => {
    const store = new MemoryIdempotencyStore();
    store.claim('k', 1000);
    store.complete('k', 1000);
    vi.advanceTimersByTime(999);
    expect(store.claim('k', 1000)).toBe('done');
    vi.advanceTimersByTime(1);
    expect(store.claim('k', 1000)).toBe('claimed');
  });

  it('uses its default TTL (24 h unless set) when none is given', () => {
    const store = new MemoryIdempotencyStore({ ttlMs: 5000 });
    store.claim('k');
    store.complete('k');
    vi.advanceTimersByTime(4999);
    expect(store.peek('k')).toBe('done');
    vi.advanceTimersByTime(1);
    expect(store.peek('k')).toBeUndefined();
    const dayStore = new MemoryIdempotencyStore();
    dayStore.claim('d');
    vi.advanceTimersByTime(24 * 3600 * 1000 - 1);
    expect(dayStore.peek('d')).toBe('in_progress');
    vi.advanceTimersByTime(1);
    expect(dayStore.peek('d')).toBeUndefined();
  });

  it('sweeps expired keys so the size does not grow with traffic', () => {
    const store = new MemoryIdempotencyStore();
    for (let i = 0; i < 100; i++) store.claim(`a${i}`, 1000);
    expect(store.size).toBe(100);
    vi.advanceTimersByTime(1000);
    store.claim('b', 1000);
    expect(store.size).toBe(1);
  });

  it('bounds its size by evicting the oldest keys', () => {
    const store = new MemoryIdempotencyStore({ maxKeys: 3 });
    for (const key of ['a', 'b', 'c', 'd']) store.claim(key, 60_000);
    expect(store.size).toBe(3);
    expect(store.peek('a')).toBeUndefined();
    expect(store.peek('d')).toBe('in_progress');
    // A completed key moves to the back: it is evicted last.
    store.complete('b', 60_000);
    store.claim('e', 60_000);
    expect(store.peek('c')).toBeUndefined();
    expect(store.peek('b')).toBe('done');
  });

  it('eviction and sweeping are O(1) amortised per claim (counted in Map iterator steps, not timed)', () => {
    // The store keeps its slots in a Map ordered by expiry; both the sweep and the eviction walk it from the
    // front. Counting the steps of every Map iterator proves each claim walks a bounded number of entries: a
    // scan of the whole Map per claim would take maxKeys steps each. A count does not depend on machine speed.
    const mapIterator = Object.getPrototypeOf(new Map().keys()) as { next: () => IteratorResult<unknown> };
    const next = mapIterator.next;
    let steps = 0;
    const store = new MemoryIdempotencyStore({ maxKeys: 1000 });
    const claims = 20_000;
    mapIterator.next = function (this: Iterator<unknown>) {
      steps++;
      return next.call(this);
    };
    try {
      for (let i = 0; i < claims; i++) store.claim(`key-${i}`, 60_000);
      // Every key expires at once, then one claim sweeps them all: each expired entry is visited once.
      vi.advanceTimersByTime(60_000);
      store.claim('after', 60_000);
    } finally {
      mapIterator.next = next;
    }
    expect(store.size).toBe(1);
    expect(steps).toBeGreaterThan(claims); // the walk happened and was counted
    expect(steps).toBeLessThan(3 * claims + 1000); // a full scan per claim would be ~20,000,000
  });
});

describe('claims are leases, and unknown store answers are errors', () => {
  it('a claim whose holder crashed is taken over by the retry once the lease ends', async () => {
    const store = new MemoryIdempotencyStore();
    const secret = 'lease-test-secret-0123456789abcdef';
    const body = JSON.stringify(statusEnvelope(statusObject('read', { id: 'wamid.lease' })));
    const request = () =>
      new Request('https://hook.test/', {
        method: 'POST',
        headers: { authorization: `Bearer ${secret}` },
        body,
      });
    const warned: string[] = [];
    const logger = { warn: (m: string) => void warned.push(m), error: (m: string) => void warned.push(m) };
    // Process A claims the event and never finishes (a crash, a frozen serverless instance).
    const stuck = createWebhookHandler({
      secret,
      logger,
      dedupe: store,
      deadlineMs: 50,
      claimLeaseMs: 100,
      onEvent: () => new Promise(() => {}),
    });
    expect((await stuck(request())).status).toBe(503);
    let ran = 0;
    const healthy = createWebhookHandler({
      secret,
      logger,
      dedupe: store,
      deadlineMs: 50,
      claimLeaseMs: 100,
      onEvent: () => void ran++,
    });
    expect((await healthy(request())).status).toBe(503); // still held: the gateway will come back
    await new Promise((r) => setTimeout(r, 120));
    expect((await healthy(request())).status).toBe(200); // lease over: the retry processes it
    expect(ran).toBe(1);
    // The stuck one's deadline; then the healthy one answers 503 for the held event, which is no failure to log.
    expect(warned).toEqual([
      'Webhook deadline passed before processing finished; answering 503 so the gateway retries',
    ]);
  });

  it("a store answering something else ('OK', null) fails the delivery with 500 instead of skipping it", async () => {
    for (const answer of ['OK', null]) {
      const errors: unknown[] = [];
      const logged: string[] = [];
      const handler = createWebhookHandler({
        secret: 'store-test-secret-0123456789abcdef',
        logger: { warn: (m) => void logged.push(m), error: (m) => void logged.push(m) },
        dedupe: { claim: () => answer as never, release: () => {} },
        onEvent: () => {},
        onError: (e) => void errors.push(e),
      });
      const res = await handler(
        new Request('https://hook.test/', {
          method: 'POST',
          headers: { authorization: 'Bearer store-test-secret-0123456789abcdef' },
          body: JSON.stringify(statusEnvelope(statusObject('read'))),
        }),
      );
      expect(res.status).toBe(500);
      expect(String(errors[0])).toMatch(/must answer 'claimed', 'in_progress', 'done', true or false/);
      expect(logged).toEqual([
        expect.stringMatching(/^The dedupe store failed to claim an event; answering 500/),
      ]);
    }
  });

  it('a store that throws is named in the log line (its class, and how to see the error), never its message', async () => {
    // What a dedupe store bound to the wrong Durable Object class looks like from here: a typed error each claim.
    class MisboundStoreError extends Error {
      override name = 'MisboundStoreError';
    }
    const logged: { message: string; meta: unknown }[] = [];
    const handler = createWebhookHandler({
      secret: 'store-test-secret-0123456789abcdef',
      logger: { warn: (message, meta) => void logged.push({ message, meta }) },
      dedupe: {
        claim: () => {
          throw new MisboundStoreError('the binding answered wamid.HBgLOTk4OTAxMjM0NTY3');
        },
        release: () => {},
      },
      onEvent: () => {},
    });
    const res = await handler(
      new Request('https://hook.test/', {
        method: 'POST',
        headers: { authorization: 'Bearer store-test-secret-0123456789abcdef' },
        body: JSON.stringify(statusEnvelope(statusObject('read'))),
      }),
    );
    expect(res.status).toBe(200); // onStoreUnavailable 'process': run without deduplication rather than lose it
    expect(logged).toEqual([
      {
        message: expect.stringMatching(
          /^The dedupe store failed to claim an event \(stage dedupe\); running onEvent without deduplication\. The error is not logged .*pass `onError/,
        ),
        meta: { kind: 'status', type: 'read', index: 0, errorName: 'MisboundStoreError' },
      },
    ]);
    expect(JSON.stringify(logged)).not.toContain('wamid');
  });
});
