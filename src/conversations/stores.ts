/**
 * The two stores the router keeps its state in, and their in-memory versions (one process; the defaults).
 * `wa-gateway-sdk/redis` has `RedisSessionStore` and `RedisWindowStore` for many processes.
 */
import { boundedDurationMs, countOption, MAX_TIMER_MS } from '../core/duration.js';
import { ConfigurationError } from '../core/errors.js';
import { LocalLocks } from '../core/local-locks.js';
import { MemoryLeases } from '../core/memory-leases.js';
import {
  checkInbound,
  checkWindowCustomer,
  SERVICE_WINDOW_MS,
  type WindowStore,
} from '../gateway/service-window.js';
import { ConversationError } from './errors.js';
import { checkSession } from './session-data.js';

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
  /** The value as JSON text, as `RedisSessionStore` and `DurableObjectSessionStore` keep it. */
  json: string;
  expiresAt: number;
}

/** Options of {@link MemorySessionStore}. */
export interface MemorySessionStoreOptions {
  /** How long `lock` waits before rejecting. Default 30,000 ms. */
  lockWaitMs?: number | undefined;
  /**
   * Most customers' records kept, and, apart from them, most reply-ledger entries; beyond it the oldest written
   * is dropped first, but never a record whose lock is held or awaited. Default 100,000.
   */
  maxKeys?: number | undefined;
  /** Clock in ms; default `Date.now()` read at each call (so fake timers apply). */
  now?: (() => number) | undefined;
}

/**
 * One process' sessions, locks and reply ledger, in memory: the router's default. Lost on restart and not
 * shared: use `RedisSessionStore` (`wa-gateway-sdk/redis`) when more than one process receives events.
 *
 * Bounded, since anyone can message a business number: at most `maxKeys` records (a customer's session, flow
 * position, takeover and last events handled) and, apart from them, at most `maxKeys` reply-ledger entries. Past
 * the bound the oldest written goes first, and a record whose lock is held or awaited is never dropped (the map
 * then holds those few more). A customer whose record was dropped starts again from `initialSession()`, out of
 * any flow and back with the bot if a person had taken them over. A ledger entry dropped before its TTL no longer
 * stops a retried event from sending that reply again: the ledger answers for the last `maxKeys` replies (see
 * docs/conversations.md, "The in-memory defaults are bounded").
 *
 * Values are kept as JSON text, as the Redis and Durable Object stores keep them: what they refuse (a BigInt, a
 * cycle) is refused here, a `ConversationError` (`invalid_session`) as theirs; what JSON changes (a Date, a Map)
 * comes back changed here too; each `get` is a copy that a handler may mutate. A test on this store sees what
 * production will.
 *
 * @example
 * import { createRouter, MemorySessionStore } from 'wa-gateway-sdk/conversations';
 * const router = createRouter({ gateway, sessions: new MemorySessionStore({ maxKeys: 50_000 }) });
 */
export class MemorySessionStore implements SessionStore {
  readonly maxKeys: number;
  readonly #values = new Map<string, Entry>();
  readonly #claims: MemoryLeases<true>;
  readonly #locks = new LocalLocks();
  readonly #locked = new Map<string, number>();
  readonly #lockWaitMs: number;
  readonly #now: () => number;
  /**
   * The records' iterator and the oldest record it stands on, kept between writes: a new iterator per write skips
   * every slot deleted at the Map's front since V8 last compacted it (MemoryLeases keeps one for the same reason).
   */
  #cursor: Iterator<[string, Entry]> | undefined;
  #head: [string, Entry] | undefined;

  constructor(options: MemorySessionStoreOptions = {}) {
    this.#lockWaitMs = boundedDurationMs(
      options.lockWaitMs,
      'new MemorySessionStore: `lockWaitMs`',
      30_000,
      MAX_TIMER_MS,
    );
    this.maxKeys = countOption(options.maxKeys, 'new MemorySessionStore: `maxKeys`', 100_000);
    this.#now = options.now ?? (() => Date.now());
    this.#claims = new MemoryLeases({ maxKeys: this.maxKeys, now: this.#now });
  }

  /** Customers' records held (expired ones are dropped lazily). */
  get size(): number {
    return this.#values.size;
  }

  /** Reply-ledger entries held (expired ones are dropped lazily). */
  get ledgerSize(): number {
    return this.#claims.size;
  }

  async get(key: string): Promise<unknown> {
    const entry = this.#values.get(key);
    if (entry === undefined) return undefined;
    if (entry.expiresAt <= this.#now()) {
      this.#values.delete(key);
      return undefined;
    }
    return JSON.parse(entry.json);
  }

  async set(key: string, value: unknown, ttlMs: number): Promise<void> {
    // The stores' one rule (session-data.ts): what JSON cannot write is refused. No logger here: what JSON changes
    // is kept as JSON makes it, silently (the router says it).
    checkSession(value, 'value', undefined, undefined, 'MemorySessionStore.set');
    let json: string | undefined;
    try {
      json = JSON.stringify(value);
    } catch {}
    if (json === undefined) {
      throw new ConfigurationError(
        'MemorySessionStore.set: the value cannot be stored as JSON (its toJSON threw, or answered nothing).',
      );
    }
    const now = this.#now();
    const entry = { json, expiresAt: now + ttlMs };
    this.#values.delete(key); // re-inserted at the end: the Map stays in write order
    this.#makeRoom(now);
    this.#values.set(key, entry);
  }

  /**
   * Drops the expired records, oldest written first, then the oldest beyond `maxKeys`; never a record whose lock
   * is held or awaited (`#locked` counts, per key, the `lock` calls not released yet: the holder saves its record
   * whole, but a waiter about to load it must find it). Such a record is stepped over, and the map then holds those
   * few more. At most one pass over the records.
   */
  #makeRoom(now: number): void {
    for (let left = this.#values.size; left > 0; left--) {
      let head = this.#head;
      while (head === undefined || this.#values.get(head[0]) !== head[1]) {
        this.#cursor ??= this.#values.entries();
        let next = this.#cursor.next();
        if (next.done) {
          // A finished iterator stays finished: the records written since are read by a new one.
          this.#cursor = this.#values.entries();
          next = this.#cursor.next();
        }
        if (next.done) return;
        head = next.value;
        this.#head = head;
      }
      const [key, entry] = head;
      const live = entry.expiresAt > now;
      if (live && this.#values.size < this.maxKeys) return;
      if (!live || !this.#locked.has(key)) this.#values.delete(key);
      else this.#head = undefined;
    }
  }

  async delete(key: string): Promise<void> {
    this.#values.delete(key);
  }

  /**
   * One holder per customer at a time, in call order (core/local-locks.ts). In one process nothing dies holding a
   * lock without the process dying with it, so there is no lease to keep.
   */
  async lock(key: string, _leaseMs: number): Promise<SessionLock> {
    this.#locked.set(key, (this.#locked.get(key) ?? 0) + 1);
    let release: () => void;
    try {
      release = await this.#locks.acquire(key, {
        waitMs: this.#lockWaitMs,
        timeout: () =>
          new ConversationError(
            'lock_timeout',
            `the customer's lock was not free within ${this.#lockWaitMs} ms; the event will be retried.`,
          ),
      });
    } catch (error) {
      this.#unlocked(key);
      throw error;
    }
    let released = false;
    return {
      release: async () => {
        if (released) return;
        released = true;
        release();
        this.#unlocked(key);
      },
    };
  }

  async claim(id: string, ttlMs: number): Promise<boolean> {
    if (this.#claims.get(id) !== undefined) return false;
    this.#claims.set(id, true, ttlMs);
    return true;
  }

  async unclaim(id: string): Promise<void> {
    this.#claims.delete(id);
  }

  #unlocked(key: string): void {
    const left = (this.#locked.get(key) ?? 1) - 1;
    if (left > 0) this.#locked.set(key, left);
    else this.#locked.delete(key);
  }
}

/** How long a customer's last inbound time is kept: their 24-hour window, and a day more to tell its `closedAt`. */
const WINDOW_KEPT_MS = 2 * SERVICE_WINDOW_MS;

/** Options of {@link MemoryWindowStore}. */
export interface MemoryWindowStoreOptions {
  /** Most customers kept; beyond it the one whose last message was recorded first is dropped. Default 100,000. */
  maxKeys?: number | undefined;
  /** Clock in ms; default `Date.now()` read at each call (so fake timers apply). */
  now?: (() => number) | undefined;
}

/**
 * One process' record of when each customer last wrote, in memory: the router's default. Use
 * `RedisWindowStore` (`wa-gateway-sdk/redis`) to share it between processes and keep it across restarts.
 *
 * Bounded, since anyone can message a business number: a customer is kept until 48 hours after their last message
 * (its own time: the 24-hour window, and a day more in which `closedAt` is still told), and at most `maxKeys`, the
 * one recorded first dropped first. A customer no longer kept is one never seen:
 * `lastInbound` answers `undefined`, and a free-form send to them is refused before any request with
 * `ServiceWindowClosedError` (`closedAt` `undefined`), as for a closed window; the router then sends its
 * `fallbackTemplate`, or reports the refusal to `onError`. Past 48 hours that is what the window said anyway.
 * A customer dropped by the bound while their window was open is refused too (never sent on a guess, so never a
 * `GW_001`): give `maxKeys` more than the customers who write in a day. Their next message records them again.
 *
 * @example
 * import { MemoryWindowStore } from 'wa-gateway-sdk/conversations';
 * const window = new MemoryWindowStore({ maxKeys: 200_000 });
 * const gw = new GatewayClient({ apiKey, baseUrl, serviceWindow: window });
 */
export class MemoryWindowStore implements WindowStore {
  readonly maxKeys: number;
  readonly #now: () => number;
  readonly #last: MemoryLeases<number>;

  constructor(options: MemoryWindowStoreOptions = {}) {
    this.maxKeys = countOption(options.maxKeys, 'new MemoryWindowStore: `maxKeys`', 100_000);
    this.#now = options.now ?? (() => Date.now());
    this.#last = new MemoryLeases({ maxKeys: this.maxKeys, now: this.#now });
  }

  /** Customers held (forgotten ones are dropped lazily). */
  get size(): number {
    return this.#last.size;
  }

  async recordInbound(customer: string, atMs: number): Promise<void> {
    checkInbound('MemoryWindowStore.recordInbound', customer, atMs);
    const before = this.#last.get(customer)?.value;
    if (before !== undefined && before >= atMs) return;
    // Until 48 hours after the message's own time: one delivered late is kept less, one older not at all.
    const keepMs = atMs + WINDOW_KEPT_MS - this.#now();
    if (keepMs > 0) this.#last.set(customer, atMs, keepMs);
  }

  async lastInbound(customer: string): Promise<number | undefined> {
    checkWindowCustomer('MemoryWindowStore.lastInbound', customer);
    return this.#last.get(customer)?.value;
  }
}
