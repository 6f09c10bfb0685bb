/**
 * Idempotency stores: the gateway may deliver an event more than once (and retries every 5xx), so the webhook
 * handlers claim each event's `idempotencyKey` before running `onEvent` and only run it when the claim is theirs.
 *
 * The life of a key: `claim` (in progress) → `complete` (done, kept for the TTL) or `release` (forgotten, after a
 * failed `onEvent`, so the gateway's retry processes the event). A key in progress or done is never processed again.
 * While `onEvent` runs, the handler `renew`s the claim's short lease, so a live holder keeps it and a dead one
 * loses it before the gateway's next attempt.
 */

import { countOption, durationMs } from '../core/duration.js';
import { ConfigurationError } from '../core/errors.js';
import { MemoryLeases } from '../core/memory-leases.js';

/**
 * What a claim found:
 * - `claimed`: the key was free and is now held by the caller, who must `complete` or `release` it;
 * - `in_progress`: someone else holds it and has not finished (a concurrent duplicate, or a retry of a delivery
 *   whose processing outlived its deadline);
 * - `done`: it was processed successfully within the TTL.
 */
export type ClaimResult = 'claimed' | 'in_progress' | 'done';

/**
 * Where the webhook handlers record which events were processed. Implement it over Redis, a database, Durable
 * Objects, ... to dedupe across processes; `RedisIdempotencyStore` (`wa-gateway-sdk/redis`) is one, ready made.
 *
 * `claim` must be atomic (two concurrent claims of one key: exactly one gets `claimed`). A store that cannot tell
 * "in progress" from "done" may answer a boolean: `true` is `claimed`, `false` is `done`.
 */
export interface IdempotencyStore {
  /**
   * Atomically takes `key` if it is free. `ttlMs` is a *lease*: if the holder neither completes nor releases the
   * key within it (it crashed), the key is free again so a retry can process the event.
   */
  claim(key: string, ttlMs: number): ClaimResult | boolean | Promise<ClaimResult | boolean>;
  /** Marks a claimed key as successfully processed, to be remembered for `ttlMs`. Optional for boolean stores. */
  complete?(key: string, ttlMs: number): void | Promise<void>;
  /** Forgets a claimed key after a failure, so the next delivery of the event is processed. */
  release(key: string): void | Promise<void>;
  /**
   * Extends the lease of a key this holder claimed to `leaseMs` from now; `false` when the claim is no longer held
   * (it expired, or another holder took it). The handler calls it every third of the lease while `onEvent` runs.
   * Optional: without it a claim lasts one lease, and an `onEvent` running longer than that may meet a concurrent
   * duplicate of its event on another instance.
   */
  renew?(key: string, leaseMs: number): boolean | Promise<boolean>;
}

/** Maps a store's answer to a `ClaimResult`. @internal */
export function toClaimResult(answer: ClaimResult | boolean): ClaimResult {
  if (answer === true) return 'claimed';
  if (answer === false) return 'done';
  if (answer === 'claimed' || answer === 'in_progress' || answer === 'done') return answer;
  // Reading an unknown answer as 'done' would answer 200 to every event and run none ('OK' and null, what a
  // plain Redis SET NX returns, were both read that way). A store error instead answers 500: the gateway retries.
  throw new ConfigurationError(
    `IdempotencyStore.claim must answer 'claimed', 'in_progress', 'done', true or false; got ${
      answer === null
        ? 'null'
        : typeof answer === 'string'
          ? `'${String(answer).slice(0, 20)}'`
          : typeof answer
    }.`,
  );
}

/** Twenty-four hours: far beyond the gateway's retry window (three attempts within seconds). */
export const DEFAULT_DEDUPE_TTL_MS = 24 * 60 * 60 * 1000;

/**
 * The default claim lease: under the gateway's first retry gap (1 s). A holder that dies stops renewing, so its
 * claim is gone before the gateway's next attempt, which a live instance then processes.
 */
export const DEFAULT_CLAIM_LEASE_MS = 800;

export interface MemoryIdempotencyStoreOptions {
  /** TTL used when `claim`/`complete` are called without one. Default 24 h. */
  ttlMs?: number | undefined;
  /** Upper bound on remembered keys; the oldest is evicted beyond it. Default 100,000. */
  maxKeys?: number | undefined;
  /** Clock in milliseconds; default `Date.now()` read at each call (so fake timers apply). */
  now?: (() => number) | undefined;
}

/**
 * An in-process `IdempotencyStore`: the kit's memory leases (core/memory-leases.ts) with a TTL per key and a bound
 * on its size, the same claim, renewal and release as `RedisIdempotencyStore`: a claim is a lease held by a
 * token, and only that token renews or releases it. Eviction is O(1) amortised: the keys are kept in write order,
 * so the oldest (and, with one TTL, the first to expire) sit at the front.
 *
 * It dedupes within one process only. Behind a load balancer, or on serverless where instances come and go, use a
 * shared store (`RedisIdempotencyStore` from `wa-gateway-sdk/redis`; see docs/running-many-instances.md).
 *
 * @example
 * const store = new MemoryIdempotencyStore({ maxKeys: 50_000 });
 * const handler = createWebhookHandler({ secret, onEvent, dedupe: store });
 */
export class MemoryIdempotencyStore implements IdempotencyStore {
  readonly ttlMs: number;
  readonly maxKeys: number;
  /**
   * The keys, and each live claim's token. The token is read back from the lease, never kept beside it: a map of
   * them grew by every claim that ended by its lease (a crash's path), whatever `maxKeys` said.
   */
  readonly #leases: MemoryLeases<'in_progress' | 'done'>;

  constructor(options: MemoryIdempotencyStoreOptions = {}) {
    const op = 'new MemoryIdempotencyStore';
    // `null` (a JS caller's) is no options, as `undefined` is.
    options ??= {};
    this.ttlMs = durationMs(options.ttlMs, `${op}: \`ttlMs\``, DEFAULT_DEDUPE_TTL_MS);
    const maxKeys = countOption(options.maxKeys, `${op}: \`maxKeys\``, 100_000);
    this.maxKeys = maxKeys;
    this.#leases = new MemoryLeases({ maxKeys, ...(options.now ? { now: options.now } : {}) });
  }

  /** Number of keys held (expired ones are dropped lazily). */
  get size(): number {
    return this.#leases.size;
  }

  claim(key: string, ttlMs: number = this.ttlMs): ClaimResult {
    const lease = durationMs(ttlMs, 'MemoryIdempotencyStore.claim: `ttlMs`');
    return this.#leases.acquire(key, 'in_progress', lease) === undefined
      ? (this.#leases.get(key)?.value ?? 'in_progress')
      : 'claimed';
  }

  complete(key: string, ttlMs: number = this.ttlMs): void {
    this.#leases.set(key, 'done', durationMs(ttlMs, 'MemoryIdempotencyStore.complete: `ttlMs`'));
  }

  release(key: string): void {
    const token = this.#leases.get(key)?.token;
    if (token !== undefined) this.#leases.release(key, token);
  }

  renew(key: string, leaseMs: number = this.ttlMs): boolean {
    const token = this.#leases.get(key)?.token;
    return (
      token !== undefined &&
      this.#leases.renew(key, token, durationMs(leaseMs, 'MemoryIdempotencyStore.renew: `leaseMs`'))
    );
  }

  /** The state of a key, or `undefined` when it is free. */
  peek(key: string): 'in_progress' | 'done' | undefined {
    return this.#leases.get(key)?.value;
  }

  clear(): void {
    this.#leases.clear();
  }
}
