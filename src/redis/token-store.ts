import { type Logger, log } from '../core/logger.js';
import { isRecord } from '../core/plain-data.js';
import { REDACTED } from '../core/secrets.js';
import type { TokenEntry, TokenStore } from '../platform/token-store.js';
import type { RedisClient } from './client.js';
import { RedisLease } from './lease.js';
import { call, unexpectedReply } from './replies.js';
import { checkName, openStore, type RedisStoreOptions, timerMs } from './store-options.js';

export interface RedisTokenStoreOptions extends RedisStoreOptions {
  /** Names the token among several accounts sharing a prefix (not the username: keys hold no credential). Default `platform`. */
  name?: string | undefined;
  /** How long the login lock holds if its holder dies; renewed while the holder works. Default 15,000 ms. */
  lockLeaseMs?: number | undefined;
  /** How long a process waits for the lock before giving up with `RedisStoreError` (`lock_timeout`). Default 60,000 ms. */
  lockWaitMs?: number | undefined;
}

const inspect = Symbol.for('nodejs.util.inspect.custom');

/**
 * A `TokenStore` shared by every process that uses the same Redis, prefix and name: the fleet logs in to the
 * platform once per token lifetime, not once per process or per cold start.
 *
 * - `get`/`set` keep the token in `<prefix>token:<name>`, expiring with the token (`PXAT`).
 * - `lock(task)` is a Redis lock with a lease (`SET NX PX` + a random token; released by a compare-and-delete
 *   script; renewed while the task runs). A process that finds it taken waits with backoff. `PlatformClient`
 *   reads the store under the lock before logging in, so N processes starting together log in once, and a 401
 *   seen by many processes causes one re-login: the first replaces the token, the others find a token different
 *   from the one refused.
 *
 * When Redis is down `get`, `set` and `lock` reject with `RedisStoreError`; `PlatformClient` then logs a
 * warning and logs in on its own, so calls keep working (each process may log in once).
 *
 * @example
 * import Redis from 'ioredis';
 * import { PlatformClient } from 'wa-gateway-sdk';
 * import { RedisTokenStore } from 'wa-gateway-sdk/redis';
 * // commandTimeout: a Redis that never answers fails the call instead of holding it
 * const redis = new Redis(process.env.REDIS_URL!, { maxRetriesPerRequest: 1, commandTimeout: 2_000 });
 * const platform = new PlatformClient({ platformUrl, streamUrl, username, password,
 *   tokenStore: new RedisTokenStore({ redis }) });
 */
export class RedisTokenStore implements TokenStore {
  readonly #redis: RedisClient;
  readonly #logger: Logger | undefined;
  readonly #key: string;
  readonly #lockKey: string;
  readonly #leaseMs: number;
  readonly #waitMs: number;

  constructor(options: RedisTokenStoreOptions) {
    const op = 'new RedisTokenStore';
    const { redis, keys, logger } = openStore(options, op);
    this.#redis = redis;
    this.#logger = logger;
    const name = checkName(options.name, 'platform', 'name', op);
    // Each key is used on its own (no script touches both), so neither needs a hash tag.
    this.#key = keys.name('token', name);
    this.#lockKey = keys.name('token-lock', name);
    this.#leaseMs = timerMs(options.lockLeaseMs, `${op}: \`lockLeaseMs\``, 15_000);
    this.#waitMs = timerMs(options.lockWaitMs, `${op}: \`lockWaitMs\``, 60_000);
  }

  async get(): Promise<TokenEntry | undefined> {
    const op = 'RedisTokenStore.get';
    const raw = await call(op, () => this.#redis.get(this.#key));
    if (raw === null) return undefined;
    let entry: unknown;
    try {
      entry = typeof raw === 'string' ? JSON.parse(raw) : raw;
    } catch {
      entry = undefined;
    }
    if (
      !isRecord(entry) ||
      typeof entry['token'] !== 'string' ||
      typeof entry['expiresAt'] !== 'number' ||
      !Number.isFinite(entry['expiresAt'])
    ) {
      throw unexpectedReply(op, 'a stored token entry', typeof raw === 'string' ? undefined : raw);
    }
    return { token: entry['token'], expiresAt: entry['expiresAt'] };
  }

  async set(entry: TokenEntry): Promise<void> {
    const op = 'RedisTokenStore.set';
    const value = JSON.stringify({ token: entry.token, expiresAt: entry.expiresAt });
    const answer = await call(op, () =>
      Number.isFinite(entry.expiresAt)
        ? this.#redis.set(this.#key, value, 'PXAT', Math.ceil(entry.expiresAt))
        : this.#redis.set(this.#key, value),
    );
    if (answer !== 'OK') throw unexpectedReply(op, "'OK'", answer);
  }

  /**
   * Runs `task` while holding the fleet-wide login lock (a lease, renewed while the task runs); waits, with
   * backoff, while another process holds it. A renewal that fails is logged; the login goes on (its outcome
   * matters more than the lock's), and the lease frees the lock by itself if this process dies.
   */
  async lock<T>(task: () => Promise<T>): Promise<T> {
    const op = 'RedisTokenStore.lock';
    const lease = await RedisLease.wait(this.#redis, this.#lockKey, this.#leaseMs, op, {
      waitMs: this.#waitMs,
      timeoutMessage: `another process held the platform login lock for more than ${this.#waitMs} ms.`,
    });
    const warn = (what: string) => (error: unknown) =>
      log(this.#logger, 'warn', `wa-gateway-sdk: could not ${what} the platform login lock`, {
        error: error instanceof Error ? error.name : typeof error,
      });
    const keeper = lease.keep({
      onRenewError: warn('renew'),
      onLost: (why) =>
        log(this.#logger, 'warn', 'wa-gateway-sdk: the platform login lock was lost while logging in', {
          why,
        }),
    });
    try {
      return await task();
    } finally {
      keeper.stop();
      // The lease frees it anyway; the task's own outcome matters more than the unlock's.
      await lease.release().catch(warn('release'));
    }
  }

  /** @internal */
  [inspect](): string {
    return `RedisTokenStore { key: '${this.#key}', token: '${REDACTED}' }`;
  }

  toJSON(): Record<string, unknown> {
    return { key: this.#key, token: REDACTED };
  }
}
