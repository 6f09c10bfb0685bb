/**
 * The conversations router's stores on Redis (`wa-gateway-sdk/conversations`): each customer's record, the
 * per-customer lock with a lease, the reply ledger, and each customer's last inbound time, shared by every
 * process on one Redis.
 */

import { ConversationError } from '../conversations/errors.js';
import { checkSession } from '../conversations/session-data.js';
import type { SessionLock, SessionStore, WindowStore } from '../conversations/stores.js';
import type { Logger } from '../core/logger.js';
import { storableJson } from '../core/serialise.js';
import { checkInbound, checkWindowCustomer } from '../gateway/service-window.js';
import type { RedisClient } from './client.js';
import { RedisStoreError } from './errors.js';
import { hashId, type KeySpace } from './keys.js';
import { RedisLease } from './lease.js';
import { call, expectNumber, unexpectedReply } from './replies.js';
import { Script, writes } from './script.js';
import {
  DEFAULT_RETENTION_MS,
  openStore,
  type RedisStoreOptions,
  retentionMs,
  timerMs,
} from './store-options.js';

/** Options of {@link RedisSessionStore}. */
export interface RedisSessionStoreOptions extends RedisStoreOptions {
  /**
   * How long `lock` waits for a customer's lock before rejecting with `RedisStoreError` (`lock_timeout`), which
   * fails the delivery so that it is retried. Default 3,000 ms: inside the webhook handler's 4 s deadline.
   */
  lockWaitMs?: number | undefined;
}

/**
 * Sessions, per-customer locks and the reply ledger of the conversations router, on Redis: what makes one
 * customer's events run one at a time across every instance and a retried event skip the replies already sent.
 *
 * The lock is a lease (`SET NX PX <lease>` with a random token); the holder renews it every third of the lease
 * while it runs and deletes it (only if still its own) when done, so a process that dies frees the customer after
 * one lease, and its save is refused once the lease is gone (a write fenced by the lease). Keys:
 * `<prefix>conv:<sha256>` and `<prefix>conv-lock:<sha256>` (on a Redis Cluster both hash-tagged by the customer,
 * `conv:{<sha256>}`, so the fenced save stays in one slot), `<prefix>conv-reply:<sha256>`. Failures reject with
 * `RedisStoreError`.
 *
 * @example
 * import Redis from 'ioredis';
 * import { createRouter } from 'wa-gateway-sdk/conversations';
 * import { RedisSessionStore, RedisWindowStore } from 'wa-gateway-sdk/redis';
 * // commandTimeout: a Redis that never answers fails the call instead of holding it
 * const redis = new Redis(process.env.REDIS_URL!, { maxRetriesPerRequest: 1, commandTimeout: 2_000 });
 * const router = createRouter({ gateway, sessions: new RedisSessionStore({ redis }), window: new RedisWindowStore({ redis }) });
 */
export class RedisSessionStore implements SessionStore {
  readonly #redis: RedisClient;
  readonly #keys: KeySpace;
  readonly #lockWaitMs: number;
  readonly #logger: Logger | undefined;
  /** Whether a value JSON changes was warned of (once per store). */
  readonly #warned = { session: false };

  constructor(options: RedisSessionStoreOptions) {
    const op = 'new RedisSessionStore';
    const { redis, keys, logger } = openStore(options, op);
    this.#redis = redis;
    this.#keys = keys;
    this.#logger = logger;
    this.#lockWaitMs = timerMs(options.lockWaitMs, `${op}: \`lockWaitMs\``, 3_000);
  }

  async get(key: string): Promise<unknown> {
    const op = 'RedisSessionStore.get';
    const raw = await call(op, () => this.#redis.get(this.#record(key)));
    if (raw === null) return undefined;
    try {
      return JSON.parse(raw) as unknown;
    } catch {
      throw unexpectedReply(op, 'a stored session', 'unparsable text');
    }
  }

  async set(key: string, value: unknown, ttlMs: number): Promise<void> {
    const op = 'RedisSessionStore.set';
    const ms = retentionMs(ttlMs, `${op}: \`ttlMs\``);
    const text = this.#json(value, op);
    await call(op, () => this.#redis.set(this.#record(key), text, 'PX', ms));
  }

  async delete(key: string): Promise<void> {
    await call('RedisSessionStore.delete', () => this.#redis.del(this.#record(key)));
  }

  async lock(key: string, leaseMs: number): Promise<SessionLock> {
    const op = 'RedisSessionStore.lock';
    const lease = await RedisLease.wait(
      this.#redis,
      this.#lockKey(key),
      timerMs(leaseMs, `${op}: \`leaseMs\``),
      op,
      {
        waitMs: this.#lockWaitMs,
        timeoutMessage: `another instance held the customer's lock for over ${this.#lockWaitMs} ms; the event fails so that it is delivered again.`,
        // Short, growing waits: a customer's next event usually follows the one being handled closely.
        maxBackoffMs: 100,
      },
    );
    // A renewal that fails leaves the lease to run out; the save below is then refused, and the release frees
    // the key when it can.
    const keeper = lease.keep();
    let released = false;
    const recordKey = this.#record(key);
    return {
      release: async () => {
        if (released) return;
        released = true;
        keeper.stop();
        await call('RedisSessionStore.unlock', () => lease.release());
      },
      save: async (value, ttlMs) => {
        const saveOp = 'RedisSessionStore.save';
        const ms = retentionMs(ttlMs, `${saveOp}: \`ttlMs\``);
        try {
          await lease.fenced(SAVE, [writes(recordKey, ms)], [this.#json(value, saveOp)], saveOp);
        } catch (error) {
          if (!(error instanceof RedisStoreError) || error.failure !== 'lease_lost') throw error;
          throw new ConversationError(
            'lock_lost',
            `${saveOp}: this instance's lease on the customer ran out before the event was saved (another may hold it now); the event fails so that it is delivered again.`,
          );
        }
      },
    };
  }

  async claim(id: string, ttlMs: number): Promise<boolean> {
    const op = 'RedisSessionStore.claim';
    const ms = retentionMs(ttlMs, `${op}: \`ttlMs\``);
    const got = await call(op, () =>
      this.#redis.set(this.#keys.name('conv-reply', hashId(id)), '1', 'PX', ms, 'NX'),
    );
    return got === 'OK';
  }

  async unclaim(id: string): Promise<void> {
    await call('RedisSessionStore.unclaim', () => this.#redis.del(this.#keys.name('conv-reply', hashId(id))));
  }

  /**
   * A value as the JSON text kept, by the router's one rule (session-data.ts): what JSON cannot write is refused with
   * `ConversationError` (`invalid_session`) naming where; what it changes (a Date, a function) is kept as JSON
   * makes it, warned of once per store through its logger. The router's records were checked already.
   */
  #json(value: unknown, op: string): string {
    checkSession(value, 'value', this.#logger, this.#warned, op);
    return storableJson(value, op);
  }

  /** A customer's record: `conv:<hash>` (`conv:{<hash>}` on a cluster, beside its lock). */
  #record(key: string): string {
    return this.#keys.name('conv', this.#keys.tag(hashId(key)));
  }

  #lockKey(key: string): string {
    return this.#keys.name('conv-lock', this.#keys.tag(hashId(key)));
  }
}

/** Writes the customer's record (run fenced by the customer's lease: only while this holder has it). */
const SAVE = new Script(`
redis.call('SET', KEYS[1], ARGV[1])
return 1
`);

/** Keeps the later of the stored time and ARGV[1] (its expiry, the store's TTL, runs from the latest). */
const KEEP_LATEST = new Script(`
local cur = tonumber(redis.call('GET', KEYS[1]))
if cur == nil or cur < tonumber(ARGV[1]) then
  redis.call('SET', KEYS[1], ARGV[1])
  return 1
end
return 0
`);

/** Options of {@link RedisWindowStore}. */
export interface RedisWindowStoreOptions extends RedisStoreOptions {
  /** How long a customer's last inbound time is kept (so `closedAt` can be told). Default 30 days. */
  ttlMs?: number | undefined;
}

/**
 * Each customer's last inbound time on Redis, for the router's service window and `GatewayClient`'s
 * `serviceWindow` guard in every process. Key: `<prefix>window:<sha256 of the customer>`.
 *
 * @example
 * import { RedisWindowStore } from 'wa-gateway-sdk/redis';
 * const window = new RedisWindowStore({ redis });
 * const gw = new GatewayClient({ apiKey, baseUrl, serviceWindow: window });
 */
export class RedisWindowStore implements WindowStore {
  readonly #redis: RedisClient;
  readonly #keys: KeySpace;
  readonly #ttlMs: number;

  constructor(options: RedisWindowStoreOptions) {
    const op = 'new RedisWindowStore';
    const { redis, keys } = openStore(options, op);
    this.#redis = redis;
    this.#keys = keys;
    this.#ttlMs = retentionMs(options.ttlMs, `${op}: \`ttlMs\``, DEFAULT_RETENTION_MS);
  }

  async recordInbound(customer: string, atMs: number): Promise<void> {
    const op = 'RedisWindowStore.recordInbound';
    checkInbound(op, customer, atMs);
    const key = this.#key(customer);
    await call(op, () => KEEP_LATEST.run(this.#redis, [writes(key, this.#ttlMs)], [Math.floor(atMs)]));
  }

  async lastInbound(customer: string): Promise<number | undefined> {
    const op = 'RedisWindowStore.lastInbound';
    checkWindowCustomer(op, customer);
    const raw = await call(op, () => this.#redis.get(this.#key(customer)));
    return raw === null ? undefined : expectNumber(op, raw);
  }

  #key(customer: string): string {
    return this.#keys.name('window', hashId(customer));
  }
}
