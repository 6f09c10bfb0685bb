import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { TimeoutError } from '../../src/core/errors.js';
import { RateLimiter } from '../../src/core/rate-limiter.js';
import { maxInWindow } from '../helpers/arrivals.js';

/** Mean starts per second over the whole seconds after the first (the first holds the catch-up burst). */
function sustainedRate(times: number[]): number {
  const sorted = [...times].sort((a, b) => a - b);
  const from = sorted[0]! + 1000;
  const seconds = Math.floor((sorted.at(-1)! - from) / 1000);
  return sorted.filter((t) => t >= from && t < from + seconds * 1000).length / seconds;
}

describe('RateLimiter', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('refuses at once a wait known to outlast maxWaitMs (a pause), and waits one that fits', async () => {
    const limiter = new RateLimiter({ perSecond: 5 });
    limiter.pause(10_000);
    const e = await limiter.acquire(undefined, { maxWaitMs: 5_000 }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(TimeoutError);
    expect((e as TimeoutError).mayHaveBeenSent).toBe(false);
    expect((e as Error).message).toMatch(/holds requests for another 10000 ms, longer than the 5000 ms/);
    expect(limiter.pending).toBe(0);
    const fits = limiter.acquire(undefined, { maxWaitMs: 15_000 });
    expect(limiter.pending).toBe(1);
    await vi.advanceTimersByTimeAsync(10_001);
    (await fits)();
    expect(limiter.pending).toBe(0);
  });

  it('never lets more than N arrive in any 1,000 ms span, whatever the latency, and sustains ~N/s', async () => {
    const limiter = new RateLimiter({ perSecond: 80 });
    const starts: number[] = [];
    const arrivals: number[] = [];
    // Each request reaches the server somewhere within its round trip (0–60 ms) and is answered at its end.
    const send = async () => {
      const release = await limiter.acquire();
      const start = performance.now();
      const rtt = Math.random() * 60;
      starts.push(start);
      arrivals.push(start + Math.random() * rtt);
      setTimeout(release, rtt);
    };
    const all = Array.from({ length: 800 }, send);
    await vi.advanceTimersByTimeAsync(20_000);
    await Promise.all(all);
    expect(starts).toHaveLength(800);
    expect(maxInWindow(starts)).toBeLessThanOrEqual(80);
    expect(maxInWindow(arrivals)).toBeLessThanOrEqual(80);
    // Paced, not bursty: no more than 9 starts (a tenth of a window of catch-up) within any 12.5 ms.
    const sorted = [...starts].sort((a, b) => a - b);
    expect(maxInWindow(sorted, 12.4)).toBeLessThanOrEqual(9);
    // Sustained: about N / (1 + RTT in seconds); the slowest recent answer bounds it from below.
    const rate = sustainedRate(sorted);
    expect(rate).toBeGreaterThan(80 / 1.07);
    expect(rate).toBeLessThanOrEqual(80);
  });

  it('a slot still in flight is not reused until 1 s after its answer', async () => {
    const limiter = new RateLimiter({ perSecond: 2 });
    const r1 = await limiter.acquire();
    await vi.advanceTimersByTimeAsync(500);
    const r2 = await limiter.acquire();
    let third = false;
    const p = limiter.acquire().then((release) => {
      third = true;
      return release;
    });
    await vi.advanceTimersByTimeAsync(5000);
    expect(third).toBe(false); // slot 1 is still in flight after 5.5 s
    r1();
    await vi.advanceTimersByTimeAsync(1000);
    expect(third).toBe(false);
    await vi.advanceTimersByTimeAsync(2);
    expect(third).toBe(true);
    r2();
    (await p)();
  });

  it('serves waiters in FIFO order', async () => {
    const limiter = new RateLimiter({ perSecond: 2 });
    const order: number[] = [];
    const all = [0, 1, 2, 3, 4].map((i) =>
      limiter.acquire().then((release) => {
        order.push(i);
        release();
      }),
    );
    await vi.advanceTimersByTimeAsync(5000);
    await Promise.all(all);
    expect(order).toEqual([0, 1, 2, 3, 4]);
  });

  it('pause() holds every waiter for the given time, then releases them paced', async () => {
    const limiter = new RateLimiter({ perSecond: 100 });
    limiter.pause(2000);
    let started = 0;
    const all = Array.from({ length: 30 }, () => limiter.acquire().then(() => started++));
    await vi.advanceTimersByTimeAsync(1999);
    expect(started).toBe(0);
    await vi.advanceTimersByTimeAsync(2);
    // At most a tenth of a window back to back, then 10 ms apart.
    expect(started).toBeGreaterThan(0);
    expect(started).toBeLessThanOrEqual(11);
    await vi.advanceTimersByTimeAsync(300);
    await Promise.all(all);
    expect(started).toBe(30);
  });

  it('rejects a waiter with the signal reason when aborted, and keeps serving the others', async () => {
    const limiter = new RateLimiter({ perSecond: 1 });
    (await limiter.acquire())();
    const controller = new AbortController();
    const aborted = limiter.acquire(controller.signal);
    const next = limiter.acquire();
    const reason = new Error('caller gave up');
    controller.abort(reason);
    await expect(aborted).rejects.toBe(reason);
    expect(limiter.pending).toBe(1);
    await vi.advanceTimersByTimeAsync(1100);
    await expect(next).resolves.toBeTypeOf('function');
  });

  it('rejects a bad perSecond', () => {
    expect(() => new RateLimiter({ perSecond: 0 })).toThrow(/positive integer/);
    expect(() => new RateLimiter({ perSecond: 1.5 })).toThrow(/positive integer/);
  });
});
