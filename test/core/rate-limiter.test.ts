import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { RateLimiter } from '../../src/core/rate-limiter.js';

/** The largest number of timestamps within any closed span of `windowMs`. */
function maxInWindow(times: number[], windowMs = 1000): number {
  const sorted = [...times].sort((a, b) => a - b);
  let best = 0;
  let lo = 0;
  for (let hi = 0; hi < sorted.length; hi++) {
    while (sorted[hi]! - sorted[lo]! > windowMs) lo++;
    best = Math.max(best, hi - lo + 1);
  }
  return best;
}

describe('RateLimiter', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('never starts more than N in any 1,000 ms span, and sustains N per second', async () => {
    const limiter = new RateLimiter({ perSecond: 80 });
    const starts: number[] = [];
    const all = Array.from({ length: 400 }, () =>
      limiter.acquire().then(() => starts.push(performance.now())),
    );
    await vi.advanceTimersByTimeAsync(10_000);
    await Promise.all(all);
    expect(starts).toHaveLength(400);
    expect(maxInWindow(starts)).toBe(80);
    // 400 starts at 80/s: the first 80 at once, then one batch per second: done a little after 4 s.
    const span = starts.at(-1)! - starts[0]!;
    expect(span).toBeGreaterThanOrEqual(4000);
    expect(span).toBeLessThan(4100);
  });

  it('serves waiters in FIFO order', async () => {
    const limiter = new RateLimiter({ perSecond: 2 });
    const order: number[] = [];
    const all = [0, 1, 2, 3, 4].map((i) => limiter.acquire().then(() => order.push(i)));
    await vi.advanceTimersByTimeAsync(5000);
    await Promise.all(all);
    expect(order).toEqual([0, 1, 2, 3, 4]);
  });

  it('pause() holds every waiter for the given time', async () => {
    const limiter = new RateLimiter({ perSecond: 100 });
    limiter.pause(2000);
    let started = 0;
    const all = Array.from({ length: 5 }, () => limiter.acquire().then(() => started++));
    await vi.advanceTimersByTimeAsync(1999);
    expect(started).toBe(0);
    await vi.advanceTimersByTimeAsync(2);
    await Promise.all(all);
    expect(started).toBe(5);
  });

  it('rejects a waiter with the signal reason when aborted, and keeps serving the others', async () => {
    const limiter = new RateLimiter({ perSecond: 1 });
    await limiter.acquire();
    const controller = new AbortController();
    const aborted = limiter.acquire(controller.signal);
    const next = limiter.acquire();
    const reason = new Error('caller gave up');
    controller.abort(reason);
    await expect(aborted).rejects.toBe(reason);
    expect(limiter.pending).toBe(1);
    await vi.advanceTimersByTimeAsync(1100);
    await expect(next).resolves.toBeUndefined();
  });

  it('rejects a bad perSecond', () => {
    expect(() => new RateLimiter({ perSecond: 0 })).toThrow(/positive integer/);
    expect(() => new RateLimiter({ perSecond: 1.5 })).toThrow(/positive integer/);
  });
});
