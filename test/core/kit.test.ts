/**
 * The kit's runtime-neutral half (core/): the duration rule, the lease heartbeat, memory leases, local locks and
 * the bounded compare-and-set. Timers are Vitest's fake ones, so nothing here depends on machine speed.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { compareAndSet, LOST_RACE } from '../../src/core/compare-and-set.js';
import { durationMs } from '../../src/core/duration.js';
import { keepRenewed } from '../../src/core/lease.js';
import { LocalLocks } from '../../src/core/local-locks.js';
import { MemoryLeases } from '../../src/core/memory-leases.js';
import {
  type CampaignStore,
  CampaignTracker,
  ConfigurationError,
  ContentionError,
  MemoryCampaignStore,
} from '../../src/index.js';
import { statusObject } from '../../src/testing/webhook-fixtures.js';
import { MemoryIdempotencyStore } from '../../src/webhooks/index.js';

describe('durationMs: one rule for every duration option', () => {
  it('takes the fallback for undefined, rounds up to a whole ms, and refuses anything else by name', () => {
    expect(durationMs(undefined, 'x', 500)).toBe(500);
    expect(durationMs(1.2, 'x')).toBe(2);
    for (const bad of [0, -1, Number.NaN, Number.POSITIVE_INFINITY, '5', null, {}]) {
      expect(() => durationMs(bad, 'new Thing: `leaseMs`', 500)).toThrow(ConfigurationError);
    }
    expect(() => durationMs(undefined, 'claim: `ttlMs`')).toThrow(
      /claim: `ttlMs` must be a positive number of milliseconds; got undefined/,
    );
    expect(() => durationMs('5', 'x')).toThrow(/got a string/);
  });

  it('is the rule of the stores and handlers that used to differ (one fell back silently)', () => {
    expect(() => new MemoryIdempotencyStore({ ttlMs: -1 })).toThrow(/ttlMs/);
    expect(() => new MemoryCampaignStore({ parkMs: 0 })).toThrow(/parkMs/);
  });
});

describe('keepRenewed: the lease heartbeat', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('renews every third of the lease, one renewal at a time, until stopped', async () => {
    let calls = 0;
    let answer!: (held: boolean) => void;
    const keeper = keepRenewed({
      leaseMs: 300,
      renew: () => {
        calls++;
        return new Promise<boolean>((resolve) => {
          answer = resolve;
        });
      },
    });
    await vi.advanceTimersByTimeAsync(100);
    expect(calls).toBe(1);
    await vi.advanceTimersByTimeAsync(100); // the first is still unanswered: not asked again
    expect(calls).toBe(1);
    answer(true);
    await vi.advanceTimersByTimeAsync(100);
    expect(calls).toBe(2);
    answer(true);
    keeper.stop();
    await vi.advanceTimersByTimeAsync(1000);
    expect(calls).toBe(2);
    expect(keeper.lost).toBeUndefined();
  });

  it('a renewal that never answers (a partitioned client) still loses the lease a whole lease later', async () => {
    const lost: string[] = [];
    let calls = 0;
    const keeper = keepRenewed({
      leaseMs: 300,
      renew: () => {
        calls++;
        return new Promise<boolean>(() => {});
      },
      onLost: (w) => lost.push(w),
    });
    await vi.advanceTimersByTimeAsync(250);
    expect(lost).toEqual([]);
    await vi.advanceTimersByTimeAsync(150);
    expect(lost).toEqual(['expired']);
    expect(keeper.signal.aborted).toBe(true);
    expect(calls).toBe(1);
  });

  it('a renewal answered false loses the lease: onLost once, its signal aborts, renewing stops', async () => {
    const lost: string[] = [];
    let calls = 0;
    const keeper = keepRenewed({ leaseMs: 300, renew: () => ++calls < 2, onLost: (w) => lost.push(w) });
    await vi.advanceTimersByTimeAsync(250);
    expect(lost).toEqual(['taken']);
    expect(keeper.signal.aborted).toBe(true);
    await vi.advanceTimersByTimeAsync(1000);
    expect(calls).toBe(2);
  });

  it('renewals that fail are reported and retried; a whole lease without a confirmed one loses it (expired)', async () => {
    const errors: unknown[] = [];
    const lost: string[] = [];
    const keeper = keepRenewed({
      leaseMs: 300,
      renew: () => Promise.reject(new Error('unreachable')),
      onRenewError: (e) => errors.push(e),
      onLost: (w) => lost.push(w),
    });
    await vi.advanceTimersByTimeAsync(299);
    expect(errors.length).toBe(2);
    expect(lost).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(lost).toEqual(['expired']);
    expect(keeper.lost).toBe('expired');
  });

  it("stops at the holder's signal (a delivery's deadline)", async () => {
    let calls = 0;
    const deadline = new AbortController();
    keepRenewed({ leaseMs: 300, renew: () => ++calls > 0, signal: deadline.signal });
    await vi.advanceTimersByTimeAsync(100);
    deadline.abort();
    await vi.advanceTimersByTimeAsync(1000);
    expect(calls).toBe(1);
  });
});

describe('MemoryLeases: the memory counterpart of the Redis lease', () => {
  it('a lease lost to expiry can neither renew nor release its successor’s', () => {
    let now = 0;
    const leases = new MemoryLeases<string>({ now: () => now });
    const first = leases.acquire('k', 'busy', 100);
    expect(first).toBeDefined();
    expect(leases.acquire('k', 'busy', 100)).toBeUndefined();
    now = 100;
    const second = leases.acquire('k', 'busy', 100);
    expect(second).toBeDefined();
    expect(leases.renew('k', first!, 1000)).toBe(false);
    expect(leases.release('k', first!)).toBe(false);
    expect(leases.get('k')).toMatchObject({ value: 'busy', token: second });
    expect(leases.renew('k', second!, 1000)).toBe(true);
    now = 1099;
    expect(leases.release('k', second!)).toBe(true);
    expect(leases.get('k')).toBeUndefined();
  });
});

describe('MemoryLeases at its bound and past expiry: oldest first, through one kept iterator', () => {
  it('drops the oldest written, skipping entries written again (now the newest) and entries deleted', () => {
    const leases = new MemoryLeases<number>({ maxKeys: 3, now: () => 0 });
    leases.set('a', 1, 1000);
    leases.set('b', 2, 1000);
    leases.set('c', 3, 1000);
    leases.set('d', 4, 1000); // drops a
    expect(leases.get('a')).toBeUndefined();
    leases.set('b', 22, 1000); // b is the newest now: c is the oldest
    leases.set('e', 5, 1000); // drops c
    expect([leases.get('b')?.value, leases.get('c'), leases.get('d')?.value]).toEqual([22, undefined, 4]);
    leases.delete('d');
    leases.set('f', 6, 1000);
    leases.set('g', 7, 1000); // three held (b, e, f): drops b, the oldest written
    expect(['b', 'e', 'f', 'g'].map((k) => leases.get(k)?.value)).toEqual([undefined, 5, 6, 7]);
    expect(leases.size).toBe(3);
  });

  it('sweeps what expired, oldest first, also after the iterator ran off the end and new entries came', () => {
    let now = 0;
    const leases = new MemoryLeases<string>({ now: () => now });
    leases.set('x', 'x', 10);
    leases.set('y', 'y', 20);
    now = 25; // both expired: the next write sweeps them, and the iterator runs off the end
    leases.set('z', 'z', 10);
    expect(leases.size).toBe(1);
    leases.set('w', 'w', 100);
    now = 40; // z expired, w not: a write sweeps z only
    expect(leases.acquire('v', 'v', 10)).toBeDefined();
    expect([leases.get('z'), leases.get('w')?.value, leases.get('v')?.value]).toEqual([undefined, 'w', 'v']);
    expect(leases.size).toBe(2);
  });
});

describe('LocalLocks: the memory counterpart of the Redis lock', () => {
  it('one holder per key, in call order; a waiter that gives up does not let the next jump the holder', async () => {
    const locks = new LocalLocks();
    const order: string[] = [];
    const first = await locks.acquire('k');
    const impatient = locks.acquire('k', { waitMs: 10, timeout: () => new Error('gave up') });
    const third = locks.acquire('k').then((release) => {
      order.push('third');
      return release;
    });
    await expect(impatient).rejects.toThrow('gave up');
    await new Promise((r) => setTimeout(r, 20));
    expect(order).toEqual([]);
    first();
    (await third)();
    expect(order).toEqual(['third']);
    const other = await locks.acquire('other'); // another key is free at once
    other();
  });
});

describe('compareAndSet: bounded, ending in a typed error', () => {
  it('stops at the first round that does not lose; a loop that keeps losing throws ContentionError', async () => {
    let rounds = 0;
    expect(await compareAndSet('op', async () => (++rounds < 3 ? LOST_RACE : 'won'))).toBe('won');
    expect(rounds).toBe(3);
    const error = await compareAndSet('op', async () => LOST_RACE, { maxAttempts: 4 }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ContentionError);
    expect(error).toMatchObject({ operation: 'op', attempts: 4 });
  });

  it("the campaign tracker's apply: a store whose compare-and-set always loses gives ContentionError", async () => {
    const store = new MemoryCampaignStore();
    const losing: CampaignStore = {
      sending: (c) => store.sending(c),
      record: (c, batch) => store.record(c, batch),
      lookup: (wamid, park) => store.lookup(wamid, park),
      commit: async () => false, // another writer always got there first
      totals: (c) => store.totals(c),
      refusals: (c) => store.refusals(c),
      failedRetries: (c) => store.failedRetries(c),
      campaigns: () => store.campaigns(),
    };
    const tracker = new CampaignTracker({ store: losing });
    await tracker.record('c', [
      { result: { index: 0, ok: true, messageId: 'wamid.1', contacts: [] }, to: '1' },
    ]);
    const error = await tracker.apply(statusObject('delivered', { id: 'wamid.1' })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ContentionError);
    expect(error).toMatchObject({ operation: 'tracker.apply', attempts: 50 });
  });
});
