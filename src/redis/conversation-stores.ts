/**
 * The conversations router's stores on Redis (`wa-gateway-sdk/conversations`): each customer's record, the
 * per-customer lock with a lease, the reply ledger, and each customer's last inbound time, shared by every
 * process on one Redis.
 */
import { ConversationError } from '../conversations/errors.js';
import type { SessionLock, SessionStore, WindowStore } from '../conversations/stores.js';
import { RedisStoreError } from './errors.js';
import {
  COMPARE_AND_DELETE,
  COMPARE_AND_PEXPIRE,
  call,
  expectNumber,
  hashedKey,
  leaseToken,
  type RedisClient,
  Script,
  unexpectedReply,
} from './replies.js';
import { DEFAULT_RETENTION_MS, openStore, positiveMs, type RedisStoreOptions } from './store-options.js';

/** Options of {@link RedisSessionStore}. */
export interface RedisSessionStoreOptions extends RedisStoreOptions {
  /**
   * How long `lock` waits for a customer's lock before rejecting with `RedisStoreError` (`lock_timeout`), which
   * fails the delivery so that it is retried. Default 3,000 ms: inside the webhook handler's 4 s deadline.
   */
  lockWaitMs?: number;
}

/**
 * Sessions, per-customer locks and the reply ledger of the conversations router, on Redis: what makes one
 * customer's events run one at a time across every instance and a retried event skip the replies already sent.
 *
 * The lock is `SET NX PX <lease>` with a random token; the holder renews it every third of the lease while it
 * runs and deletes it (only if still its own) when done, so a process that dies frees the customer after one
 * lease. Keys: `<prefix>conv:<sha256>`, `<prefix>conv-lock:<sha256>`, `<prefix>conv-reply:<sha256>`. Failures
 * reject with `RedisStoreError`.
 *
 * @example
 * import Redis from 'ioredis';
 * import { createRouter } from 'wa-gateway-sdk/conversations';
 * import { RedisSessionStore, RedisWindowStore } from 'wa-gateway-sdk/redis';
 * const redis = new Redis(process.env.REDIS_URL!);
 * const router = createRouter({ gateway, sessions: new RedisSessionStore({ redis }), window: new RedisWindowStore({ redis }) });
 */
export class RedisSessionStore implements SessionStore {
  readonly #redis: RedisClient;
  readonly #prefix: string;
  readonly #lockWaitMs: number;

  constructor(options: RedisSessionStoreOptions) {
    const op = 'new RedisSessionStore';
    const { redis, prefix } = openStore(options, op);
    this.#redis = redis;
    this.#prefix = prefix;
    this.#lockWaitMs = positiveMs(options.lockWaitMs, 3_000, 'lockWaitMs', op);
  }

  async get(key: string): Promise<unknown> {
    const op = 'RedisSessionStore.get';
    const raw = await call(op, () => this.#redis.get(hashedKey(this.#prefix, 'conv', key)));
    if (raw === null) return undefined;
    try {
      return JSON.parse(raw) as unknown;
    } catch {
      throw unexpectedReply(op, 'a stored session', 'unparsable text');
    }
  }

  async set(key: string, value: unknown, ttlMs: number): Promise<void> {
    const op = 'RedisSessionStore.set';
    const ms = wholeMs(ttlMs);
    await call(op, () =>
      this.#redis.set(hashedKey(this.#prefix, 'conv', key), JSON.stringify(value), 'PX', ms),
    );
  }

  async delete(key: string): Promise<void> {
    await call('RedisSessionStore.delete', () => this.#redis.del(hashedKey(this.#prefix, 'conv', key)));
  }

  async lock(key: string, leaseMs: number): Promise<SessionLock> {
    const op = 'RedisSessionStore.lock';
    const lockKey = hashedKey(this.#prefix, 'conv-lock', key);
    const token = leaseToken();
    const lease = wholeMs(leaseMs);
    const giveUpAt = Date.now() + this.#lockWaitMs;
    for (let attempt = 0; ; attempt++) {
      const got = await call(op, () => this.#redis.set(lockKey, token, 'PX', lease, 'NX'));
      if (got === 'OK') break;
      if (Date.now() >= giveUpAt) {
        throw new RedisStoreError(
          `${op}: another instance held the customer's lock for over ${this.#lockWaitMs} ms; the event fails so that it is delivered again.`,
          { failure: 'lock_timeout', operation: op },
        );
      }
      // Short, growing, jittered waits: a customer's next event usually follows the one being handled closely.
      await new Promise((r) =>
        setTimeout(r, Math.min(100, 5 * 2 ** Math.min(attempt, 5)) * (0.5 + Math.random())),
      );
    }
    const renew = setInterval(
      () => {
        COMPARE_AND_PEXPIRE.run(this.#redis, [lockKey], [token, lease]).catch(() => {
          // A renewal that fails leaves the lease to run out; the release below still frees it when it can.
        });
      },
      Math.max(1, Math.floor(lease / 3)),
    );
    (renew as { unref?: () => void }).unref?.();
    let released = false;
    const recordKey = hashedKey(this.#prefix, 'conv', key);
    return {
      release: async () => {
        if (released) return;
        released = true;
        clearInterval(renew);
        await call('RedisSessionStore.unlock', () => COMPARE_AND_DELETE.run(this.#redis, [lockKey], [token]));
      },
      save: async (value, ttlMs) => {
        const saveOp = 'RedisSessionStore.save';
        const ms = wholeMs(ttlMs);
        const written = await call(saveOp, () =>
          FENCED_SET.run(this.#redis, [lockKey, recordKey], [token, JSON.stringify(value), ms]),
        );
        if (expectNumber(saveOp, written) !== 1) {
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
    const ms = wholeMs(ttlMs);
    const got = await call(op, () =>
      this.#redis.set(hashedKey(this.#prefix, 'conv-reply', id), '1', 'PX', ms, 'NX'),
    );
    return got === 'OK';
  }

  async unclaim(id: string): Promise<void> {
    await call('RedisSessionStore.unclaim', () => this.#redis.del(hashedKey(this.#prefix, 'conv-reply', id)));
  }
}

/** A duration the router computed, as Redis's `PX` takes it: whole milliseconds, at least 1. */
function wholeMs(ms: number): number {
  return Math.max(1, Math.ceil(ms));
}

/** Writes KEYS[2] only while KEYS[1] (the lock) still holds this holder's token ARGV[1]; 1 or 0. */
const FENCED_SET = new Script(`
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[2], ARGV[2], 'PX', ARGV[3])
return 1
`);

/** Keeps the later of the stored time and ARGV[1], expiring ARGV[2] ms after the latest. */
const KEEP_LATEST = new Script(`
local cur = tonumber(redis.call('GET', KEYS[1]))
if cur == nil or cur < tonumber(ARGV[1]) then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
  return 1
end
return 0
`);

/** Options of {@link RedisWindowStore}. */
export interface RedisWindowStoreOptions extends RedisStoreOptions {
  /** How long a customer's last inbound time is kept (so `closedAt` can be told). Default 30 days. */
  ttlMs?: number;
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
  readonly #prefix: string;
  readonly #ttlMs: number;

  constructor(options: RedisWindowStoreOptions) {
    const op = 'new RedisWindowStore';
    const { redis, prefix } = openStore(options, op);
    this.#redis = redis;
    this.#prefix = prefix;
    this.#ttlMs = positiveMs(options.ttlMs, DEFAULT_RETENTION_MS, 'ttlMs', op);
  }

  async recordInbound(customer: string, atMs: number): Promise<void> {
    const op = 'RedisWindowStore.recordInbound';
    const key = hashedKey(this.#prefix, 'window', customer);
    await call(op, () => KEEP_LATEST.run(this.#redis, [key], [Math.floor(atMs), this.#ttlMs]));
  }

  async lastInbound(customer: string): Promise<number | undefined> {
    const op = 'RedisWindowStore.lastInbound';
    const raw = await call(op, () => this.#redis.get(hashedKey(this.#prefix, 'window', customer)));
    return raw === null ? undefined : expectNumber(op, raw);
  }
}
