import { durationMs } from '../core/duration.js';
import { ConfigurationError } from '../core/errors.js';
import type { ClaimResult, IdempotencyStore } from '../webhooks/dedup.js';
import { DEFAULT_DEDUPE_TTL_MS } from '../webhooks/dedup.js';
import type { RedisClient } from './client.js';
import { hashId, type KeySpace } from './keys.js';
import { leaseToken, RedisLease } from './lease.js';
import { call, expectOneOf, unexpectedReply } from './replies.js';
import { Script, writes } from './script.js';
import { openStore, type RedisStoreOptions, retentionMs } from './store-options.js';

/**
 * The key holds `p:<token>` while a process works on the event (with the lease as its TTL, so a holder that
 * dies frees it by itself) and `done` once processed (kept for the TTL).
 */
const CLAIM = new Script(`
local v = redis.call('GET', KEYS[1])
if not v then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 'claimed'
end
if v == 'done' then return 'done' end
return 'in_progress'
`);

export interface RedisIdempotencyStoreOptions extends RedisStoreOptions {
  /** How long `done` is remembered when `complete` is called without a TTL. Default 24 h. */
  ttlMs?: number | undefined;
}

/**
 * An `IdempotencyStore` shared by every process that uses the same Redis and prefix: a retry of a webhook that
 * lands on another instance is recognised there.
 *
 * - `claim` is one atomic script: exactly one of many concurrent claims of a key answers `'claimed'`. The
 *   claim is a short lease (the handler's `claimLeaseMs`) that Redis expires by itself if the process dies.
 * - `renew` extends it while the holder's `onEvent` runs, only if this instance still holds it (a token check).
 * - `complete` marks the key `done` for the TTL (24 h by default).
 * - `release` frees the key only if this store still holds it (a token compare-and-delete), so a process
 *   whose lease ran out cannot free the claim of the process that took over.
 *
 * Keys: `<prefix>dedup:<sha256 of the idempotency key>`, one per event (so they spread over a cluster's slots by
 * themselves). Failures reject with `RedisStoreError`, which the webhook handlers answer with 500 (the gateway
 * retries).
 *
 * @example
 * import Redis from 'ioredis';
 * import { createNodeWebhookHandler } from 'wa-gateway-sdk/webhooks';
 * import { RedisIdempotencyStore } from 'wa-gateway-sdk/redis';
 * // commandTimeout: a Redis that never answers fails the call instead of holding it
 * const redis = new Redis(process.env.REDIS_URL!, { maxRetriesPerRequest: 1, commandTimeout: 2_000 });
 * const handler = createNodeWebhookHandler({ secret, onEvent, dedupe: new RedisIdempotencyStore({ redis }) });
 */
/** Claims between two sweeps of the ones whose lease ran out. */
const SWEEP_EVERY = 1024;

export class RedisIdempotencyStore implements IdempotencyStore {
  readonly #redis: RedisClient;
  readonly #keys: KeySpace;
  readonly #ttlMs: number;
  /**
   * The claims this instance holds (leases whose value is `p:<token>`), by idempotency key, with when each lease
   * runs out. One that ran out is of no use (Redis fences it), and a claim that ends by its lease (a crash's path)
   * is never completed or released: they are swept now and then, or the map grows with every such claim.
   */
  readonly #held = new Map<string, { lease: RedisLease; until: number }>();
  #claims = 0;

  constructor(options: RedisIdempotencyStoreOptions) {
    const op = 'new RedisIdempotencyStore';
    const { redis, keys } = openStore(options, op);
    this.#redis = redis;
    this.#keys = keys;
    this.#ttlMs = retentionMs(options.ttlMs, `${op}: \`ttlMs\``, DEFAULT_DEDUPE_TTL_MS);
  }

  /** Takes `key` for `leaseMs` if it is free; otherwise tells whether it is being processed or done. */
  async claim(key: string, leaseMs: number = this.#ttlMs): Promise<ClaimResult> {
    const op = 'RedisIdempotencyStore.claim';
    const lease = durationMs(leaseMs, `${op}: \`leaseMs\``, this.#ttlMs);
    const redisKey = this.#key(key);
    const value = `p:${leaseToken()}`;
    const answer = await call(op, () => CLAIM.run(this.#redis, [writes(redisKey, lease)], [value, lease]));
    const result = expectOneOf(op, answer, ['claimed', 'in_progress', 'done'] as const);
    if (result === 'claimed') {
      if (++this.#claims % SWEEP_EVERY === 0) this.#sweep();
      this.#held.set(key, {
        lease: RedisLease.held(this.#redis, redisKey, value, lease, 'RedisIdempotencyStore'),
        until: Date.now() + lease,
      });
    }
    return result;
  }

  /** Marks `key` processed for `ttlMs` (default the store's TTL), whoever holds it now: the work is done. */
  async complete(key: string, ttlMs: number = this.#ttlMs): Promise<void> {
    const op = 'RedisIdempotencyStore.complete';
    const ttl = durationMs(ttlMs, `${op}: \`ttlMs\``, this.#ttlMs);
    this.#held.delete(key);
    const answer = await call(op, () => this.#redis.set(this.#key(key), 'done', 'PX', ttl));
    expectOneOf(op, answer, ['OK'] as const);
  }

  /** Frees `key` after a failure, if this instance still holds it. */
  async release(key: string): Promise<void> {
    const held = this.#held.get(key);
    if (held === undefined) return;
    this.#held.delete(key);
    await held.lease.release();
  }

  /** Extends this instance's claim on `key` to `leaseMs` from now; `false` when it no longer holds it. */
  async renew(key: string, leaseMs: number): Promise<boolean> {
    const held = this.#held.get(key);
    if (held === undefined) return false;
    const ms = durationMs(leaseMs, 'RedisIdempotencyStore.renew: `leaseMs`', this.#ttlMs);
    const renewed = await held.lease.renew(ms);
    if (renewed) held.until = Math.max(held.until, Date.now() + ms);
    return renewed;
  }

  /** Drops the claims whose lease has run out (Redis answers for them no more). */
  #sweep(): void {
    const now = Date.now();
    for (const [key, held] of this.#held) if (held.until <= now) this.#held.delete(key);
  }

  /** The state of `key` in Redis, or `undefined` when it is free. */
  async peek(key: string): Promise<'in_progress' | 'done' | undefined> {
    const op = 'RedisIdempotencyStore.peek';
    const value = await call(op, () => this.#redis.get(this.#key(key)));
    if (value === null) return undefined;
    if (value === 'done') return 'done';
    if (typeof value === 'string' && value.startsWith('p:')) return 'in_progress';
    throw unexpectedReply(op, "'done' or a claim", value);
  }

  #key(key: string): string {
    if (typeof key !== 'string' || key === '') {
      throw new ConfigurationError('RedisIdempotencyStore: the idempotency key must be a non-empty string.');
    }
    return this.#keys.name('dedup', hashId(key));
  }
}
