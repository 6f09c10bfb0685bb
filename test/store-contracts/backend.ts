/**
 * What the contract suite runs on: a backend hands out stores the way separate processes or isolates would get
 * them over one shared state (Redis, Durable Objects), or the one in-process store (memory).
 */
import type { SessionStore, WindowStore } from '../../src/conversations/index.js';
import type { TemplateStore } from '../../src/index.js';
import type {
  IdempotencyStore,
  StatusUpdateResult,
  TrackedStatus,
  WebhookStatus,
} from '../../src/webhooks/index.js';
import type { OddSession } from './odd-sessions.js';

export interface DedupeUnderTest extends IdempotencyStore {
  peek(key: string): Promise<'in_progress' | 'done' | undefined> | 'in_progress' | 'done' | undefined;
}

export interface StatusesUnderTest {
  update(input: WebhookStatus): Promise<StatusUpdateResult>;
  get(wamid: string): Promise<TrackedStatus | undefined>;
  delete(wamid: string): Promise<boolean>;
  /** The statuses `onChange` was told of, in order. */
  changes(): Promise<string[]>;
  /** `update` with a status object whose `status` getter throws. */
  hostileUpdate(wamid: string): Promise<unknown>;
  /** Billable messages counted across instances, where the store keeps a count (the Durable Objects' has none). */
  billableCount?(): Promise<number>;
}

export interface StatusesOptions {
  /** The first `failChanges` calls of `onChange` throw. */
  failChanges?: number;
  /**
   * Inside the first failing `onChange`, before it throws, another instance applies this status: the write that
   * lands while a change's `onChange` runs.
   */
  inFailingChange?: WebhookStatus;
}

export interface StoreBackend {
  readonly name: string;
  /** Each call is another instance over the same state (`true`), or the same in-process store (`false`). */
  readonly shared: boolean;
  dedupe(): DedupeUnderTest;
  /** A session store whose `lock` waits `LOCK_WAIT_MS` at most. */
  sessions(): SessionStore;
  window(): WindowStore;
  statuses(options?: StatusesOptions): StatusesUnderTest;
  templates(): TemplateStore;
  /**
   * Saves a session value that is not plain JSON data (odd-sessions.ts) under `key` with one of the backend's
   * session stores, built where that store runs: by `set`, or by a held lock's `save`.
   */
  saveOdd(key: string, kind: OddSession, via: 'set' | 'save'): Promise<void>;
  /**
   * Leased locks only (shared backends): a holder took `key`'s lock for `leaseMs` and died (no renewal, no
   * release).
   */
  deadHolder?(key: string, leaseMs: number): Promise<void>;
  /**
   * Leased locks only: the holder of `key`'s lock stalls past its lease; resolves once the lease is over, so the
   * next holder can take the lock.
   */
  loseLease?(key: string, leaseMs: number): Promise<void>;
}

/** How long every backend's session store waits for a lock: what the lock_timeout tests wait. */
export const LOCK_WAIT_MS = 1_000;

/** A unique key per test and backend: backends share nothing between tests but their state. */
export function unique(what: string): string {
  return `${what}-${Math.random().toString(36).slice(2, 10)}`;
}

/** Polls `check` until it holds; the bound only turns a hang into a failure. */
export async function eventually<T>(
  read: () => Promise<T>,
  holds: (value: T) => boolean,
  boundMs = 15_000,
): Promise<T> {
  const until = Date.now() + boundMs;
  for (;;) {
    const value = await read();
    if (holds(value) || Date.now() > until) return value;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
