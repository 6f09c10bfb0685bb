/**
 * Leases on Redis: the kit's one lock. A lease is a key holding its holder's value (a random token) with an expiry;
 * only that value can renew it, release it, or fence a write (see script.ts `runFenced`), so a holder whose lease
 * ran out can neither free nor extend its successor's, nor write over what the successor wrote. What happens while
 * a holder works, and when renewing fails, is the heartbeat's rule (core/lease.ts `keepRenewed`).
 *
 * Used by the token store's login lock, the router's per-customer lock and the idempotency store's claims; the
 * campaign queue's per-recipient leases and fenced ledger writes are built on it.
 */
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { type KeepRenewedOptions, keepRenewed, type LeaseKeeper } from '../core/lease.js';
import type { RedisClient } from './client.js';
import { RedisStoreError } from './errors.js';
import { call, expectNumber, unexpectedReply } from './replies.js';
import { reads, Script, writes } from './script.js';

/** A random token that proves who holds a lease. */
export function leaseToken(): string {
  return randomBytes(16).toString('base64url');
}

/** Extends the lease only while the key still holds the holder's value; 1 or 0. */
const RENEW = new Script(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 0
`);

/** Deletes the lease only while the key still holds the holder's value; 1 or 0. */
const RELEASE = new Script(`
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`);

/** How long to wait for a lease that is taken, and how. */
export interface LeaseWait {
  /** Give up after this long with `RedisStoreError` (`lock_timeout`). */
  waitMs: number;
  /** The message of that error, after the operation's name: what was taken, and what happens now. */
  timeoutMessage: string;
  /** First wait between two tries, ms, doubling up to `maxBackoffMs`; jittered. Default 5. */
  backoffMs?: number;
  /** Default 200. */
  maxBackoffMs?: number;
}

/**
 * A lease held in Redis. `acquire` takes it when free (`SET NX PX`), `wait` keeps trying with jittered backoff;
 * `renew`, `release` and fenced scripts act only while the key still holds this holder's value.
 *
 * @example
 * const lease = await RedisLease.wait(redis, 'wa:job-lock', 15_000, 'Jobs.run', { waitMs: 60_000, timeoutMessage: 'another process runs the job' });
 * const keeper = lease.keep();
 * try { await lease.fenced(SAVE, [writes(resultKey, dayMs)], [result]); } finally { keeper.stop(); await lease.release(); }
 */
export class RedisLease {
  private constructor(
    readonly redis: RedisClient,
    readonly key: string,
    /** What the key holds while this holder has it: the fence value of its writes. */
    readonly value: string,
    readonly leaseMs: number,
    readonly operation: string,
  ) {}

  /**
   * Takes `key` for `leaseMs` if it is free; `undefined` when another holder has it. `value` is what the key then
   * holds (default a random token).
   */
  static async acquire(
    redis: RedisClient,
    key: string,
    leaseMs: number,
    operation: string,
    value: string = leaseToken(),
  ): Promise<RedisLease | undefined> {
    const answer = await call(operation, () => redis.set(key, value, 'PX', leaseMs, 'NX'));
    if (answer === 'OK') return new RedisLease(redis, key, value, leaseMs, operation);
    if (answer !== null) throw unexpectedReply(operation, "'OK' or null", answer);
    return undefined;
  }

  /** A lease this holder already has, taken by a script of its own (an idempotency claim). */
  static held(
    redis: RedisClient,
    key: string,
    value: string,
    leaseMs: number,
    operation: string,
  ): RedisLease {
    return new RedisLease(redis, key, value, leaseMs, operation);
  }

  /**
   * Takes `key` as soon as it is free, trying again with jittered, growing waits (holders that wait together do
   * not all ask at the same instant); rejects with `RedisStoreError` (`lock_timeout`) after `wait.waitMs`.
   */
  static async wait(
    redis: RedisClient,
    key: string,
    leaseMs: number,
    operation: string,
    wait: LeaseWait,
  ): Promise<RedisLease> {
    const giveUpAt = Date.now() + wait.waitMs;
    let backoff = wait.backoffMs ?? 5;
    for (;;) {
      const lease = await RedisLease.acquire(redis, key, leaseMs, operation);
      if (lease) return lease;
      if (Date.now() >= giveUpAt) {
        throw new RedisStoreError(`${operation}: ${wait.timeoutMessage}`, {
          failure: 'lock_timeout',
          operation,
        });
      }
      await sleep(Math.min(backoff, Math.max(1, giveUpAt - Date.now())) * (0.5 + Math.random()));
      backoff = Math.min(backoff * 2, wait.maxBackoffMs ?? 200);
    }
  }

  /** Extends the lease to `leaseMs` from now; `false` when this holder no longer has it. */
  async renew(leaseMs: number = this.leaseMs): Promise<boolean> {
    const op = `${this.operation} renew`;
    const answer = await call(op, () =>
      RENEW.run(this.redis, [writes(this.key, leaseMs)], [this.value, leaseMs]),
    );
    return expectNumber(op, answer) === 1;
  }

  /** Frees the lease if this holder still has it; `false` when it had already run out (or been taken). */
  async release(): Promise<boolean> {
    const op = `${this.operation} release`;
    const answer = await call(op, () => RELEASE.run(this.redis, [reads(this.key)], [this.value]));
    return expectNumber(op, answer) === 1;
  }

  /**
   * Renews the lease every third of it while the holder works (core/lease.ts `keepRenewed`: a renewal answered
   * `false`, or a whole lease without a confirmed renewal, loses it and aborts the keeper's `signal`).
   */
  keep(options: Omit<KeepRenewedOptions, 'leaseMs' | 'renew'> = {}): LeaseKeeper {
    return keepRenewed({ ...options, leaseMs: this.leaseMs, renew: () => this.renew() });
  }

  /**
   * Runs `script` only while this holder has the lease (its key shares their slot); otherwise rejects with
   * `RedisStoreError` (`lease_lost`) and nothing is written.
   */
  fenced(
    script: Script,
    keys: Parameters<Script['run']>[1],
    args: Parameters<Script['run']>[2],
    operation: string = this.operation,
  ): Promise<unknown> {
    return call(operation, () =>
      script.runFenced(this.redis, { key: this.key, value: this.value }, keys, args),
    );
  }
}
