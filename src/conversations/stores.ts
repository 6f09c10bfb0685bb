/**
 * The two stores the router keeps its state in, and their in-memory versions (one process; the defaults).
 * `wa-gateway-sdk/redis` has `RedisSessionStore` and `RedisWindowStore` for many processes.
 */
import { LocalLocks } from '../core/local-locks.js';
import { checkInbound, checkWindowCustomer, type WindowStore } from '../gateway/service-window.js';
import { ConversationError } from './errors.js';

export type { WindowStore } from '../gateway/service-window.js';

/** A held per-customer lock. `release` is safe to call twice. */
export interface SessionLock {
  release(): Promise<void>;
  /**
   * Stores the locked key's value only if this lock is still held, in one step (a fenced write): a holder whose
   * lease ran out (a stalled process) then fails with `ConversationError` (`lock_lost`) instead of overwriting
   * what the next holder saved. Optional: without it the router writes with `set`.
   */
  save?(value: unknown, ttlMs: number): Promise<void>;
}

/**
 * Where the router keeps each customer's state (the application's session, the flow position, a person's
 * takeover), the per-customer lock that makes one customer's events run one at a time, and the reply ledger
 * that keeps a retried event from sending a reply twice. Values are plain JSON data.
 */
export interface SessionStore {
  /** The value stored under `key`, or `undefined`. */
  get(key: string): Promise<unknown>;
  /** Stores `value` under `key` for `ttlMs`. */
  set(key: string, value: unknown, ttlMs: number): Promise<void>;
  delete(key: string): Promise<void>;
  /**
   * Waits for and takes the lock of `key`. A holder that dies frees it after `leaseMs` (a live holder keeps
   * it as long as it runs). Rejects when it cannot be had in the store's wait time.
   */
  lock(key: string, leaseMs: number): Promise<SessionLock>;
  /** Records `id` for `ttlMs` if it is not recorded yet; `true` when this call recorded it. */
  claim(id: string, ttlMs: number): Promise<boolean>;
  /** Forgets a claim (a reply that certainly was not sent, so that the retry sends it). */
  unclaim(id: string): Promise<void>;
}

interface Entry {
  value: unknown;
  expiresAt: number;
}

/** Options of {@link MemorySessionStore}. */
export interface MemorySessionStoreOptions {
  /** How long `lock` waits before rejecting. Default 30,000 ms. */
  lockWaitMs?: number;
}

/**
 * One process' sessions, locks and reply ledger, in memory: the router's default. Lost on restart and not
 * shared: use `RedisSessionStore` (`wa-gateway-sdk/redis`) when more than one process receives events.
 *
 * @example
 * import { createRouter, MemorySessionStore } from 'wa-gateway-sdk/conversations';
 * const router = createRouter({ gateway, sessions: new MemorySessionStore() });
 */
export class MemorySessionStore implements SessionStore {
  readonly #values = new Map<string, Entry>();
  readonly #claims = new Map<string, number>();
  readonly #locks = new LocalLocks();
  readonly #lockWaitMs: number;
  #writes = 0;

  constructor(options: MemorySessionStoreOptions = {}) {
    this.#lockWaitMs = options.lockWaitMs ?? 30_000;
  }

  async get(key: string): Promise<unknown> {
    const entry = this.#values.get(key);
    if (entry === undefined) return undefined;
    if (entry.expiresAt <= Date.now()) {
      this.#values.delete(key);
      return undefined;
    }
    // A copy, as a store across a wire would give: a handler mutating it must not change what is stored.
    return structuredClone(entry.value);
  }

  async set(key: string, value: unknown, ttlMs: number): Promise<void> {
    this.#values.set(key, { value: structuredClone(value), expiresAt: Date.now() + ttlMs });
    this.#sweep();
  }

  async delete(key: string): Promise<void> {
    this.#values.delete(key);
  }

  /**
   * One holder per customer at a time, in call order (core/local-locks.ts). In one process nothing dies holding a
   * lock without the process dying with it, so there is no lease to keep.
   */
  async lock(key: string, _leaseMs: number): Promise<SessionLock> {
    const release = await this.#locks.acquire(key, {
      waitMs: this.#lockWaitMs,
      timeout: () =>
        new ConversationError(
          'lock_timeout',
          `the customer's lock was not free within ${this.#lockWaitMs} ms; the event will be retried.`,
        ),
    });
    return { release: async () => release() };
  }

  async claim(id: string, ttlMs: number): Promise<boolean> {
    const now = Date.now();
    const until = this.#claims.get(id);
    if (until !== undefined && until > now) return false;
    this.#claims.set(id, now + ttlMs);
    this.#sweep();
    return true;
  }

  async unclaim(id: string): Promise<void> {
    this.#claims.delete(id);
  }

  /** Drops expired entries now and then, so a long-running process does not keep every customer forever. */
  #sweep(): void {
    if (++this.#writes % 1024 !== 0) return;
    const now = Date.now();
    for (const [k, e] of this.#values) if (e.expiresAt <= now) this.#values.delete(k);
    for (const [k, until] of this.#claims) if (until <= now) this.#claims.delete(k);
  }
}

/**
 * One process' record of when each customer last wrote, in memory: the router's default. Use
 * `RedisWindowStore` (`wa-gateway-sdk/redis`) to share it between processes and keep it across restarts.
 *
 * @example
 * import { MemoryWindowStore } from 'wa-gateway-sdk/conversations';
 * const window = new MemoryWindowStore();
 * const gw = new GatewayClient({ apiKey, baseUrl, serviceWindow: window });
 */
export class MemoryWindowStore implements WindowStore {
  readonly #last = new Map<string, number>();

  async recordInbound(customer: string, atMs: number): Promise<void> {
    checkInbound('MemoryWindowStore.recordInbound', customer, atMs);
    const before = this.#last.get(customer);
    if (before === undefined || before < atMs) this.#last.set(customer, atMs);
  }

  async lastInbound(customer: string): Promise<number | undefined> {
    checkWindowCustomer('MemoryWindowStore.lastInbound', customer);
    return this.#last.get(customer);
  }
}
