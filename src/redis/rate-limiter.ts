import { setTimeout as sleep } from 'node:timers/promises';
import { onAbort } from '../core/abort.js';
import { ConfigurationError, PaymentRequiredError } from '../core/errors.js';
import { type Logger, log } from '../core/logger.js';
import type { SendLimiter } from '../core/rate-limiter.js';
import type { RedisClient } from './client.js';
import { leaseToken } from './lease.js';
import { call, expectNumber, unexpectedReply } from './replies.js';
import { NOW_MS, reads, Script, writes } from './script.js';
import { checkName, openStore, type RedisStoreOptions, retentionMs, timerMs } from './store-options.js';

/**
 * One atomic step of the shared limiter, on Redis's own clock (`TIME`), so the processes' clocks never matter.
 *
 * KEYS: slots (sorted set: lease id → the time its slot is free again; expires `leaseMs` + 4 windows after its
 * last write), pause (epoch ms), due (pacing; expires 4 windows after its last write), bill.
 * ARGV: perSecond, windowMs, leaseMs, lease id, bulk ('1'/'0').
 * Answers {1, start in ms} granted (the caller starts its request that many ms from now), {0, wait ms} ask
 * again later, {2, 0} bulk sends stopped (BILL_001), {3, ms} paused (RATE_001) for that long.
 *
 * A slot is held while its request is in flight (score = start + lease: a process that dies mid-request frees it
 * after the lease) and becomes free `windowMs + 1` after the request was answered (`RELEASE`). A request
 * arrives before it is answered, so two requests sharing a slot arrive more than a window apart: at most
 * `perSecond` arrivals in any window, across every process. When every slot is taken but one of them is already
 * answered, that slot is handed over now for a start at the moment it frees, so the taker does not have to
 * ask again (one round trip per send, and no race at the instant it frees). Starts are also paced
 * `windowMs / perSecond` apart, with a catch-up of a tenth of a window, as the in-process limiter does.
 */
const ACQUIRE = new Script(`${NOW_MS}
local now = now_ms()
local n = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local lease = tonumber(ARGV[3])
if ARGV[5] == '1' and redis.call('EXISTS', KEYS[4]) == 1 then return {2, 0} end
local paused = tonumber(redis.call('GET', KEYS[2]) or '0')
if paused > now then return {3, paused - now} end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local start = now
if redis.call('ZCARD', KEYS[1]) >= n then
  local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  local free = tonumber(first[2])
  -- Above two windows ahead, the earliest slot is still in flight: ask again later.
  if free > now + 2 * window then return {0, window} end
  redis.call('ZREM', KEYS[1], first[1])
  start = free
end
local interval = window / n
local due = tonumber(redis.call('GET', KEYS[3]) or '0')
if due > start then start = due end
start = math.ceil(start)
local nextDue = math.max(due + interval, start + interval - window / 10)
redis.call('SET', KEYS[3], tostring(nextDue))
redis.call('ZADD', KEYS[1], start + lease, ARGV[4])
return {1, start - now}
`);

/** The request was answered: its slot is free `windowMs + 1` from now. XX: a lease that expired stays gone. */
const RELEASE = new Script(`${NOW_MS}
local now = now_ms()
return redis.call('ZADD', KEYS[1], 'XX', now + tonumber(ARGV[1]) + 1, ARGV[2])
`);

/** Holds every process until now + ms (never shortens a longer pause; the key expires with the pause). */
const PAUSE = new Script(`${NOW_MS}
local now = now_ms()
local untilMs = now + tonumber(ARGV[1])
local current = tonumber(redis.call('GET', KEYS[1]) or '0')
if current >= untilMs then return 0 end
redis.call('SET', KEYS[1], tostring(untilMs))
return 1
`);

export interface RedisRateLimiterOptions extends RedisStoreOptions {
  /** The most requests arriving at the gateway in any 1,000 ms, across every process. Default 80. */
  perSecond?: number | undefined;
  /**
   * Names the shared budget: every limiter with the same prefix and name shares it. One per gateway API key
   * (the gateway limits per key); use a label, not the key itself. Default `gateway`.
   */
  name?: string | undefined;
  /**
   * How long a slot stays taken when its process dies mid-request. Must exceed the client's `timeoutMs` by a
   * few seconds; at least 5,000 ms. Default 60,000 ms.
   */
  leaseMs?: number | undefined;
  /** How long every process's bulk sends stay stopped after a `BILL_001`, unless `resumeBulk()` is called. Default 10 minutes. */
  billingStopMs?: number | undefined;
  /** Longest wait between two asks to Redis while every slot is in flight. Default 10 ms. */
  pollMs?: number | undefined;
}

interface Waiter {
  resolve: (release: () => void) => void;
  reject: (reason: unknown) => void;
  signal: AbortSignal | undefined;
  stopListening: () => void;
  bulk: boolean;
  /** A slot granted to start later: its timer, so an abort meanwhile ends the wait at once. */
  later?: { timer: ReturnType<typeof setTimeout>; id: string } | undefined;
}

/**
 * The send limiter shared by every process that uses the same Redis, prefix and name: at most `perSecond`
 * requests *arrive* at the gateway in any 1,000 ms, however many processes send. Pass it as `GatewayClient`'s
 * `rateLimit`.
 *
 * - The budget lives in one atomic Lua script (a sorted set of slot leases on Redis's clock); no library was
 *   used because the ones measured count starts in a window, not arrivals, and a slot here frees only a
 *   window after its request was answered.
 * - A `RATE_001` seen by any process pauses all of them for its `retry_after` (a shared pause key).
 * - A `BILL_001` seen by any process stops every process's bulk sends (`sendMany`) for `billingStopMs` or until
 *   `resumeBulk()`; single sends still go out (the gateway answers them itself).
 * - Redis down: `acquire` rejects with `RedisStoreError` and nothing is sent (fail closed: going on without the
 *   budget would break the guarantee). Each process asks Redis for at most one slot at a time.
 *
 * @example
 * import Redis from 'ioredis';
 * import { GatewayClient } from 'wa-gateway-sdk';
 * import { RedisRateLimiter } from 'wa-gateway-sdk/redis';
 * // commandTimeout: a Redis that never answers fails the call instead of holding it
 * const redis = new Redis(process.env.REDIS_URL!, { maxRetriesPerRequest: 1, commandTimeout: 2_000 });
 * const gw = new GatewayClient({ apiKey, baseUrl, rateLimit: new RedisRateLimiter({ redis, perSecond: 80 }) });
 */
export class RedisRateLimiter implements SendLimiter {
  readonly perSecond: number;
  readonly windowMs = 1000;
  readonly #redis: RedisClient;
  readonly #logger: Logger | undefined;
  readonly #keys: { slots: string; pause: string; due: string; bill: string };
  readonly #leaseMs: number;
  readonly #billingStopMs: number;
  readonly #pollMs: number;
  readonly #queue: Waiter[] = [];
  #pumping = false;

  constructor(options: RedisRateLimiterOptions) {
    const op = 'new RedisRateLimiter';
    const { redis, keys, logger } = openStore(options, op);
    this.#redis = redis;
    this.#logger = logger;
    const perSecond = options.perSecond ?? 80;
    if (!Number.isInteger(perSecond) || perSecond < 1) {
      throw new ConfigurationError(`${op}: \`perSecond\` must be a positive integer.`);
    }
    this.perSecond = perSecond;
    // One limiter's keys share its name as their hash tag on a cluster: ACQUIRE touches all four.
    const tag = keys.tag(checkName(options.name, 'gateway', 'name', op));
    const key = (part: string) => keys.name('limit', tag, part);
    this.#keys = { slots: key('slots'), pause: key('pause'), due: key('due'), bill: key('bill') };
    this.#leaseMs = timerMs(options.leaseMs, `${op}: \`leaseMs\``, 60_000);
    if (this.#leaseMs < 5 * this.windowMs) {
      // The script tells an answered slot from one in flight by how far ahead it frees.
      throw new ConfigurationError(
        `${op}: \`leaseMs\` must be at least 5,000 ms (and above the client's timeoutMs).`,
      );
    }
    this.#billingStopMs = retentionMs(options.billingStopMs, `${op}: \`billingStopMs\``, 10 * 60_000);
    this.#pollMs = timerMs(options.pollMs, `${op}: \`pollMs\``, 10);
  }

  /** Requests of this process waiting for a slot. */
  get pending(): number {
    return this.#queue.length;
  }

  acquire(signal?: AbortSignal, context?: { bulk?: boolean | undefined }): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        resolve,
        reject,
        signal,
        stopListening: () => {},
        bulk: context?.bulk === true,
      };
      waiter.stopListening = onAbort(signal, () => {
        const later = waiter.later;
        if (later === undefined) return this.#settle(this.#take(waiter), { error: signal?.reason });
        // Granted to start later: stop waiting now; the slot goes back as one used (#grant).
        clearTimeout(later.timer);
        this.#grant(waiter, later.id);
      });
      this.#queue.push(waiter);
      void this.#pump();
    });
  }

  pause(ms: number): void {
    if (!(ms > 0) || !Number.isFinite(ms)) return;
    const pauseMs = Math.ceil(ms);
    PAUSE.run(this.#redis, [writes(this.#keys.pause, pauseMs)], [pauseMs]).catch((error: unknown) =>
      this.#warn('could not share a RATE_001 pause', error),
    );
  }

  paymentRequired(_error: Error): void {
    this.#redis
      .set(this.#keys.bill, 'BILL_001', 'PX', this.#billingStopMs)
      .catch((error: unknown) => this.#warn('could not share a BILL_001 stop', error));
  }

  /** Whether bulk sends are stopped by a `BILL_001` (in any process). */
  async bulkStopped(): Promise<boolean> {
    const op = 'RedisRateLimiter.bulkStopped';
    return expectNumber(op, await call(op, () => this.#redis.exists(this.#keys.bill))) > 0;
  }

  /** Lets bulk sends go again (after the account was topped up), in every process. */
  async resumeBulk(): Promise<void> {
    const op = 'RedisRateLimiter.resumeBulk';
    expectNumber(op, await call(op, () => this.#redis.del(this.#keys.bill)));
  }

  async #pump(): Promise<void> {
    if (this.#pumping) return;
    this.#pumping = true;
    try {
      for (;;) {
        const head = this.#queue[0];
        if (!head) return;
        const id = leaseToken();
        let answer: unknown;
        try {
          answer = await call('RedisRateLimiter.acquire', () =>
            ACQUIRE.run(
              this.#redis,
              [
                writes(this.#keys.slots, this.#slotsTtlMs()),
                reads(this.#keys.pause),
                writes(this.#keys.due, this.windowMs * 4),
                reads(this.#keys.bill),
              ],
              [this.perSecond, this.windowMs, this.#leaseMs, id, head.bulk ? '1' : '0'],
            ),
          );
          if (
            !Array.isArray(answer) ||
            answer.length !== 2 ||
            typeof answer[0] !== 'number' ||
            typeof answer[1] !== 'number'
          ) {
            throw unexpectedReply('RedisRateLimiter.acquire', 'a pair of numbers', answer);
          }
        } catch (error) {
          // Redis is down or answered nonsense: every waiter fails now rather than each after its own timeout.
          for (const waiter of [...this.#queue]) this.#settle(this.#take(waiter), { error });
          return;
        }
        const [verdict, waitMs] = answer as [number, number];
        if (verdict === 1) {
          // The slot is this waiter's; it starts when the slot frees. Meanwhile the next waiter can ask.
          const waiter = this.#take(head);
          if (waitMs <= 0) this.#grant(waiter, id);
          // +1: Redis's clock is read in whole ms and a timer may fire a fraction of a ms early.
          else {
            const timer = setTimeout(() => this.#grant(waiter, id), waitMs + 1);
            if (waiter) waiter.later = { timer, id };
          }
        } else if (verdict === 2) {
          this.#settle(this.#take(head), { error: billingStopped() });
        } else if (verdict === 3) {
          // Paused: ask about once a second rather than every poll (a pause only ever grows, or is deleted).
          await sleep(Math.min(Math.max(1, waitMs), this.windowMs));
        } else {
          await sleep(Math.min(Math.max(1, waitMs), this.#pollMs));
        }
      }
    } finally {
      this.#pumping = false;
    }
  }

  #grant(waiter: Waiter | undefined, id: string): void {
    // Aborted meanwhile: the slot goes back (it frees a window later, as if used).
    if (!waiter || waiter.signal?.aborted) {
      this.#releaser(id)();
      this.#settle(waiter, { error: waiter?.signal?.reason });
      return;
    }
    this.#settle(waiter, { release: this.#releaser(id) });
  }

  /**
   * Ends a waiter, on every path (granted, aborted, refused, Redis failed): its abort listener comes off the
   * caller's signal first, so a long-lived signal passed to many sends does not collect one per refused send.
   */
  #settle(waiter: Waiter | undefined, outcome: { release: () => void } | { error: unknown }): void {
    if (!waiter) return;
    waiter.stopListening();
    if ('release' in outcome) waiter.resolve(outcome.release);
    else waiter.reject(outcome.error);
  }

  #take(waiter: Waiter): Waiter | undefined {
    const at = this.#queue.indexOf(waiter);
    if (at < 0) return undefined;
    this.#queue.splice(at, 1);
    return waiter;
  }

  #releaser(id: string): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      RELEASE.run(this.#redis, [writes(this.#keys.slots, this.#slotsTtlMs())], [this.windowMs, id]).catch(
        (error: unknown) =>
          // The slot then frees when its lease runs out: slower, never over the limit.
          this.#warn('could not release a send slot', error),
      );
    };
  }

  /** The slots outlive the longest lease by four windows: idle, they go. */
  #slotsTtlMs(): number {
    return this.#leaseMs + this.windowMs * 4;
  }

  #warn(what: string, error: unknown): void {
    log(this.#logger, 'warn', `wa-gateway-sdk: RedisRateLimiter ${what}`, {
      error: error instanceof Error ? error.name : typeof error,
    });
  }
}

function billingStopped(): PaymentRequiredError {
  return new PaymentRequiredError(
    {
      status: 402,
      code: 'BILL_001',
      group: null,
      description:
        'Bulk sending is stopped: a process sharing this limiter was refused with BILL_001 (balance exhausted). ' +
        'Top up, then call resumeBulk(), or wait for billingStopMs.',
      body: undefined,
    },
    'BILL_001: bulk sending is stopped across every process sharing the rate limiter (balance exhausted); ' +
      'nothing was sent. Top up, then call RedisRateLimiter.resumeBulk().',
  );
}
