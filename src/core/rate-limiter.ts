/**
 * A sliding-window limiter: never more than `perSecond` starts within any 1,000 ms span, in FIFO order.
 *
 * It keeps the start times of the last `perSecond` requests in a ring buffer: a new request may start once
 * the oldest of them is more than a second old. Unlike a token bucket this never allows a burst of 2N across
 * a window boundary, which is what the gateway's per-second window counts.
 *
 * `pause(ms)` holds every waiter (used when the server answers RATE_001 with `retry_after`, so all of a
 * client's concurrent senders back off together instead of each discovering the limit on its own).
 *
 * @example
 * const limiter = new RateLimiter({ perSecond: 80 });
 * await limiter.acquire(signal); // resolves when a request may start
 */
export class RateLimiter {
  readonly perSecond: number;
  readonly windowMs: number;
  readonly #starts: Float64Array;
  #next = 0;
  #count = 0;
  #pausedUntil = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  readonly #queue: Waiter[] = [];

  constructor({ perSecond, windowMs = 1000 }: { perSecond: number; windowMs?: number }) {
    if (!Number.isInteger(perSecond) || perSecond < 1) {
      throw new RangeError(`rateLimit.perSecond must be a positive integer; got ${String(perSecond)}.`);
    }
    this.perSecond = perSecond;
    this.windowMs = windowMs;
    this.#starts = new Float64Array(perSecond);
  }

  /** Resolves when a request may start; rejects with the signal's reason if the signal aborts first. */
  acquire(signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.#queue.length === 0 && this.#waitMs(performance.now()) === 0) {
      this.#record(performance.now());
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = { resolve, reject, signal, onAbort: undefined };
      if (signal) {
        waiter.onAbort = () => {
          const at = this.#queue.indexOf(waiter);
          if (at >= 0) this.#queue.splice(at, 1);
          reject(signal.reason);
        };
        signal.addEventListener('abort', waiter.onAbort, { once: true });
      }
      this.#queue.push(waiter);
      this.#schedule();
    });
  }

  /** Holds every request for `ms` from now (or longer if already paused longer). */
  pause(ms: number): void {
    this.#pausedUntil = Math.max(this.#pausedUntil, performance.now() + ms);
    if (this.#timer) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
    this.#schedule();
  }

  /** Requests waiting for a slot right now. */
  get pending(): number {
    return this.#queue.length;
  }

  #waitMs(now: number): number {
    const pauseWait = this.#pausedUntil - now;
    // +1 ms: the window is closed at both ends, so the (N+1)th start must be strictly more than 1 s later.
    const windowWait = this.#count < this.perSecond ? 0 : this.#starts[this.#next]! + this.windowMs + 1 - now;
    return Math.max(0, pauseWait, windowWait);
  }

  #record(now: number): void {
    this.#starts[this.#next] = now;
    this.#next = (this.#next + 1) % this.perSecond;
    if (this.#count < this.perSecond) this.#count++;
  }

  #schedule(): void {
    if (this.#timer || this.#queue.length === 0) return;
    const wait = this.#waitMs(performance.now());
    // Not unref'd: a script whose only pending work is a queued send must not exit before sending it.
    this.#timer = setTimeout(() => this.#drain(), Math.ceil(wait));
  }

  #drain(): void {
    this.#timer = undefined;
    while (this.#queue.length > 0) {
      const now = performance.now();
      // Timers can fire a fraction of a millisecond early: re-check instead of trusting them.
      if (this.#waitMs(now) > 0) break;
      const waiter = this.#queue.shift()!;
      if (waiter.signal && waiter.onAbort) waiter.signal.removeEventListener('abort', waiter.onAbort);
      this.#record(now);
      waiter.resolve();
    }
    this.#schedule();
  }
}

interface Waiter {
  resolve: () => void;
  reject: (reason: unknown) => void;
  signal: AbortSignal | undefined;
  onAbort: (() => void) | undefined;
}
