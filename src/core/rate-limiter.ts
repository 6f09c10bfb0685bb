import { onAbort } from './abort.js';
import { ConfigurationError, TimeoutError } from './errors.js';
import { type Logger, log } from './logger.js';
import { hasMark, ONE_PROCESS_LIMITER } from './one-process.js';

/**
 * What `GatewayClient`'s `rateLimit` option accepts besides `{ perSecond }` and `false`: `RateLimiter` (one
 * process) or `RedisRateLimiter` from `wa-gateway-sdk/redis` (every process sharing a Redis key).
 */
export interface SendLimiter {
  /** The most requests that may arrive at the gateway in any 1,000 ms. */
  readonly perSecond: number;
  /**
   * Resolves with a `release` function when a request may start; rejects with the signal's reason if it aborts
   * first. `bulk` is set for the sends of `sendMany`: a limiter may refuse them (with the `PaymentRequiredError`
   * that stopped bulk sending) while single sends still go out. `maxWaitMs`, given on a call's last attempt, is
   * what is left of its timeout: a limiter that already knows its wait is longer may reject at once with a
   * `TimeoutError` (`mayHaveBeenSent: false`) rather than wait (the signal aborts at that deadline anyway). The
   * transport calls `release()` once the request is answered or has failed.
   */
  acquire(
    signal?: AbortSignal,
    context?: { bulk?: boolean | undefined; maxWaitMs?: number | undefined },
  ): Promise<() => void>;
  /**
   * Holds every request for `ms` from now: called with `retry_after` when the gateway answers `RATE_001`. A throw
   * (or a rejected promise) is logged as a warning and changes nothing: the caller still gets the gateway's error.
   */
  pause(ms: number): void;
  /**
   * Optional: called when the gateway answers `BILL_001`, so a shared limiter can stop every process's bulk sends.
   * A throw is logged, as for `pause`.
   */
  paymentRequired?(error: Error): void;
}

/**
 * The client-side send limiter: never more than `perSecond` requests *arriving at the server* in any
 * 1,000 ms span, at a sustained rate close to `perSecond`.
 *
 * Limiting starts is not enough: the gateway counts arrivals, and a burst of starts reaches it spread out by
 * connection set-up and queueing, so the next second's burst can land in the same window (docs/benchmarks.md,
 * rate-limiter). Two rules fix that:
 *
 * 1. Pacing: starts are spaced `1000 / perSecond` ms apart (on a virtual schedule that may catch up by a
 *    tenth of a window, so late timers and slow answers do not lower the rate), so no burst overloads a
 *    connection pool or the server.
 * 2. A window of `perSecond` slots where a slot is reusable only 1,000 ms after its request was *answered*
 *    (`release()`): a request arrives before it is answered, so two requests that share a slot arrive more
 *    than 1,000 ms apart. The cost is the round trip: the sustained rate is `perSecond / (1 + RTT in s)`.
 *
 * `pause(ms)` holds every waiter (on `RATE_001` with `retry_after`, so all of a client's concurrent senders
 * back off together instead of each discovering the limit on its own).
 *
 * @example
 * const limiter = new RateLimiter({ perSecond: 80 });
 * const release = await limiter.acquire(signal); // resolves when a request may start
 * try { await fetch(url) } finally { release() }  // call when the request was answered (or failed)
 */
export class RateLimiter implements SendLimiter {
  /**
   * `instanceof` that also recognises a limiter of another copy of the SDK (its ESM and CommonJS builds loaded side
   * by side): `CampaignQueue.work` refuses a client whose limiter serves one process, whichever build made it.
   */
  static [Symbol.hasInstance](value: unknown): boolean {
    // biome-ignore lint/complexity/noThisInStatic: `this` is the class `instanceof` was asked about.
    if (Function.prototype[Symbol.hasInstance].call(this, value)) return true;
    // biome-ignore lint/complexity/noThisInStatic: a subclass's own check stays the usual one.
    return this === RateLimiter && hasMark(value, ONE_PROCESS_LIMITER);
  }
  /** @internal The mark `instanceof` reads across copies. */
  get [ONE_PROCESS_LIMITER](): true {
    return true;
  }
  readonly perSecond: number;
  readonly windowMs: number;
  readonly #interval: number;
  /** When each slot becomes reusable: its request's answer time + window, or Infinity while in flight. */
  readonly #answeredAt: Float64Array;
  #next = 0;
  #used = 0;
  /** The pacing schedule: the earliest time the next start is due. */
  #due = Number.NEGATIVE_INFINITY;
  #pausedUntil = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  readonly #queue: Waiter[] = [];

  constructor({ perSecond, windowMs = 1000 }: { perSecond: number; windowMs?: number | undefined }) {
    if (!Number.isInteger(perSecond) || perSecond < 1) {
      throw new ConfigurationError(
        `rateLimit.perSecond must be a positive integer; got ${String(perSecond)}.`,
      );
    }
    if (typeof windowMs !== 'number' || !(windowMs > 0) || !Number.isFinite(windowMs)) {
      throw new ConfigurationError(`rateLimit.windowMs must be a positive number; got ${String(windowMs)}.`);
    }
    this.perSecond = perSecond;
    this.windowMs = windowMs;
    this.#interval = windowMs / perSecond;
    this.#answeredAt = new Float64Array(perSecond);
  }

  /**
   * Resolves with a `release` function when a request may start; rejects with the signal's reason if the
   * signal aborts first, and at once with a `TimeoutError` when the wait is known to outlast `maxWaitMs` (a
   * pause for a `RATE_001`'s `retry_after`). Call `release()` once the request is answered or has failed.
   */
  acquire(signal?: AbortSignal, context?: { maxWaitMs?: number | undefined }): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    const now = performance.now();
    const wait = this.#waitMs(now);
    if (this.#queue.length === 0 && wait === 0) return Promise.resolve(this.#start(now));
    // A lower bound (waiters ahead add to it); Infinity is a slot still in flight, whose answer may come any time.
    const most = context?.maxWaitMs;
    if (most !== undefined && wait > most && wait !== Number.POSITIVE_INFINITY) {
      return Promise.reject(
        new TimeoutError(
          `The rate limiter holds requests for another ${Math.ceil(wait)} ms, longer than the ${Math.round(most)} ms ` +
            'this one may wait. Nothing was sent.',
          { mayHaveBeenSent: false, timeoutMs: most },
        ),
      );
    }
    return new Promise<() => void>((resolve, reject) => {
      const waiter: Waiter = { resolve, stopListening: undefined };
      waiter.stopListening = onAbort(signal, () => {
        const at = this.#queue.indexOf(waiter);
        if (at >= 0) this.#queue.splice(at, 1);
        reject(signal?.reason);
        this.#reschedule();
      });
      this.#queue.push(waiter);
      this.#schedule();
    });
  }

  /** Holds every request for `ms` from now (or longer if already paused longer). */
  pause(ms: number): void {
    onRateLimited.get(this)?.();
    this.#pausedUntil = Math.max(this.#pausedUntil, performance.now() + ms);
    this.#reschedule();
  }

  /** Requests waiting for a slot right now. */
  get pending(): number {
    return this.#queue.length;
  }

  #waitMs(now: number): number {
    const pause = this.#pausedUntil - now;
    const pacing = this.#due - now;
    // +1 ms: the span is closed at both ends, so reuse must come strictly more than a window later.
    const window = this.#used < this.perSecond ? 0 : this.#answeredAt[this.#next]! + this.windowMs + 1 - now;
    return Math.max(0, pause, pacing, window);
  }

  #start(now: number): () => void {
    const slot = this.#next;
    this.#answeredAt[slot] = Number.POSITIVE_INFINITY;
    this.#next = (slot + 1) % this.perSecond;
    if (this.#used < this.perSecond) this.#used++;
    // Keep to the virtual schedule when a start comes late (a late timer, a slot whose answer was slow), so
    // the delay of one slot does not push back every later one; but catch up by at most a tenth of a window,
    // so a limiter that was idle releases at most perSecond/10 starts back to back.
    this.#due = Math.max(this.#due + this.#interval, now + this.#interval - this.windowMs / 10);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#answeredAt[slot] = performance.now();
      this.#schedule();
    };
  }

  #reschedule(): void {
    if (this.#timer) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
    this.#schedule();
  }

  #schedule(): void {
    if (this.#timer || this.#queue.length === 0) return;
    const wait = this.#waitMs(performance.now());
    // Infinity: the slot's request is still in flight; its release() calls back here.
    if (wait === Number.POSITIVE_INFINITY) return;
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
      waiter.stopListening?.();
      waiter.resolve(this.#start(now));
    }
    this.#schedule();
  }
}

interface Waiter {
  resolve: (release: () => void) => void;
  stopListening: (() => void) | undefined;
}

/**
 * How many clients with a limiter of their own exist, by credential fingerprint: counted up when one is made, down
 * when its limiter is collected (a client replaced on a config reload stops counting once it is gone). Hashes, not
 * keys: this map outlives the clients, and no key should stay in memory after its last client is gone. Never logged.
 */
const ownLimiters = new Map<string, number>();
const collected = new FinalizationRegistry<string>((print) => ownLimiterGone(print));

/** @internal Counts down the clients for fingerprint `print`: one client's own limiter was collected. */
export function ownLimiterGone(print: string): void {
  const left = (ownLimiters.get(print) ?? 1) - 1;
  if (left > 0) ownLimiters.set(print, left);
  else ownLimiters.delete(print);
}
/** What a client's own limiter does on `RATE_001` (its `pause`), besides pausing. */
const onRateLimited = new WeakMap<RateLimiter, () => void>();
let sharedKeyWarned = false;

/**
 * @internal 64-bit FNV-1a of a string, in two 32-bit halves: a map key, not a secret (collisions only cost a
 * warning).
 */
export function fingerprint(text: string): string {
  let a = 0x811c9dc5;
  let b = 0x050c5d1f;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x01000193) ^ (a >>> 15);
  }
  return `${(a >>> 0).toString(36)}.${(b >>> 0).toString(36)}`;
}

/**
 * @internal Called by a client that built `limiter` for itself, for `credential`. The gateway counts its limit per
 * key, across every client: several clients with limiters of their own on one key (typically a client per request)
 * do not add up, and `RATE_001` follows. So the first `RATE_001` met by such a client, while several of them exist
 * for its key, is warned about, once per process, naming neither the key nor its fingerprint. (At `RATE_001` and
 * not at construction: clients that never meet the limit have nothing to fix.) "Exist" means not yet collected: a
 * client dropped (a config reload) counts until the garbage collector takes its limiter, so a warning may still
 * name it shortly after; one made per request keeps the count up, which is what the warning is for.
 */
export function noteOwnLimiter(
  limiter: RateLimiter,
  credential: string,
  logger: Logger | undefined,
  client: string,
): void {
  const print = fingerprint(credential);
  ownLimiters.set(print, (ownLimiters.get(print) ?? 0) + 1);
  collected.register(limiter, print);
  onRateLimited.set(limiter, () => {
    if (sharedKeyWarned || (ownLimiters.get(print) ?? 0) < 2) return;
    sharedKeyWarned = true;
    log(
      logger,
      'warn',
      `wa-gateway-sdk: RATE_001, and ${ownLimiters.get(print)} ${client}s exist in this process for this API key, ` +
        'each with a rate limiter of its own: the gateway counts its limit per key, so together they exceed it. ' +
        `Create one ${client} and share it (it is safe to use concurrently), or pass them one limiter: ` +
        '`rateLimit: new RateLimiter({ perSecond: 80 })` shared in this process, a `RedisRateLimiter` ' +
        '(wa-gateway-sdk/redis) across processes. (Warned once per process.)',
    );
  });
}
