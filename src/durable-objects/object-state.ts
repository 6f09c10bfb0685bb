/**
 * What one `WaGatewayDurableObject` holds and does. Each object serves one kind of key (its name says which: an
 * idempotency key, a customer's session, a customer's window, a message's status, the template catalogue), so
 * each holds a handful of entries, all kept in memory as well as in storage.
 *
 * Every operation is synchronous over that memory: it reads, decides and writes with no `await` between, so two
 * calls can never interleave inside one (the object runs one event at a time; this keeps it so without relying
 * on input gates). Writes are not awaited: the runtime's output gate holds the object's answer until they are
 * stored, so a caller is never told `claimed` or `saved` for a write that was lost. A failed write resets the
 * object, and the answers it held fail instead.
 *
 * Expiry is read lazily (an entry past its `expiresAt` counts as absent). An alarm frees the storage: it is set an
 * hour past the latest expiry, and when it rings on an object whose entries have all expired it deletes them all
 * (`deleteAll`, which also drops a SQLite-backed object's own metadata), so a million events leave nothing stored
 * a day later.
 */
import { mergeTemplateRecord, type TemplateRecord, type TemplateRecordPatch } from '../templates/catalog.js';
import type { ClaimResult } from '../webhooks/dedup.js';
import type { StatusEvent } from '../webhooks/events.js';
import type { WebhookStatus } from '../webhooks/schemas.js';
import {
  applyStatus,
  type StatusUpdateResult,
  type TrackedStatus,
  undoneStatus,
} from '../webhooks/status-tracker.js';

/**
 * The storage API the object uses: a `DurableObjectStorage`, key-value or SQLite-backed alike.
 *
 * @example
 * const storage: DurableObjectStorageLike = ctx.storage;
 */
export interface DurableObjectStorageLike {
  get<T = unknown>(keys: string[]): Promise<Map<string, T>>;
  list<T = unknown>(options: { prefix: string }): Promise<Map<string, T>>;
  put<T>(key: string, value: T): Promise<void>;
  delete(key: string): Promise<boolean>;
  deleteAll(): Promise<void>;
  getAlarm(): Promise<number | null>;
  setAlarm(scheduledTime: number): Promise<void>;
}

/**
 * What the runtime gives the object's constructor: a `DurableObjectState` (`ctx`).
 *
 * @example
 * class Mine extends WaGatewayDurableObject { constructor(ctx: DurableObjectState, env: Env) { super(ctx, env) } }
 */
export interface DurableObjectStateLike {
  readonly storage: DurableObjectStorageLike;
  blockConcurrencyWhile<T>(callback: () => Promise<T>): Promise<T>;
}

interface Expiring {
  expiresAt: number;
}
/** An idempotency key or a reply: `in_progress` under a holder's token, or `done`. */
interface Cell extends Expiring {
  state: 'in_progress' | 'done';
  token: string;
}
interface Entries {
  cell: Cell;
  record: Expiring & { value: unknown };
  lock: Expiring & { token: string };
  window: Expiring & { at: number };
  status: Expiring & { snapshot: TrackedStatus };
}
type EntryKey = keyof Entries;
const ENTRY_KEYS: readonly EntryKey[] = ['cell', 'record', 'lock', 'window', 'status'];
const TEMPLATE_PREFIX = 'template:';

/** How long past the latest expiry the alarm rings: renewals and saves within it set no new alarm. */
const ALARM_SLACK_MS = 60 * 60 * 1000;
/** The longest a lock request waits in the object, whatever the store asks. */
const MAX_LOCK_WAIT_MS = 60_000;

interface Waiter {
  token: string;
  leaseMs: number;
  grant(taken: boolean): void;
  timer: ReturnType<typeof setTimeout>;
}

export class ObjectState {
  readonly #storage: DurableObjectStorageLike;
  readonly #entries = new Map<EntryKey, Expiring>();
  #templates: Promise<Map<string, TemplateRecord>> | undefined;
  #alarmAt: number | null = null;
  /** Requests waiting for the lock, first come first served. */
  readonly #waiters: Waiter[] = [];
  #wake: ReturnType<typeof setTimeout> | undefined;

  private constructor(storage: DurableObjectStorageLike) {
    this.#storage = storage;
  }

  /** Reads what the object stored (one `get` of its few keys, and its alarm). */
  static async load(storage: DurableObjectStorageLike): Promise<ObjectState> {
    const state = new ObjectState(storage);
    const [entries, alarm] = await Promise.all([storage.get<Expiring>([...ENTRY_KEYS]), storage.getAlarm()]);
    for (const [key, value] of entries) state.#entries.set(key as EntryKey, value);
    state.#alarmAt = alarm;
    return state;
  }

  #live<K extends EntryKey>(key: K): Entries[K] | undefined {
    const entry = this.#entries.get(key) as Entries[K] | undefined;
    return entry !== undefined && entry.expiresAt > Date.now() ? entry : undefined;
  }

  #write<K extends EntryKey>(key: K, value: Entries[K]): void {
    this.#entries.set(key, value);
    void this.#storage.put(key, value);
    if (this.#alarmAt === null || this.#alarmAt < value.expiresAt) {
      this.#alarmAt = value.expiresAt + ALARM_SLACK_MS;
      void this.#storage.setAlarm(this.#alarmAt);
    }
  }

  #delete(key: EntryKey): void {
    if (this.#entries.delete(key)) void this.#storage.delete(key);
  }

  /** The alarm: drops what expired; an object left with nothing deletes its storage whole. */
  async alarm(): Promise<void> {
    this.#alarmAt = null;
    const now = Date.now();
    let latest: number | undefined;
    for (const [key, entry] of this.#entries) {
      if (entry.expiresAt <= now) this.#delete(key);
      else latest = Math.max(latest ?? 0, entry.expiresAt);
    }
    if (latest !== undefined) {
      this.#alarmAt = latest + ALARM_SLACK_MS;
      await this.#storage.setAlarm(this.#alarmAt);
    } else if (this.#waiters.length === 0 && (await this.#templateRecords()).size === 0) {
      await this.#storage.deleteAll();
    }
  }

  // Idempotency keys and the reply ledger.

  /** Takes the cell for `ms` (`done` for the ledger) if it is free; a repeat of the holder's own call is `claimed`. */
  claim(token: string, ms: number, done: boolean): ClaimResult {
    const cell = this.#live('cell');
    if (cell !== undefined) {
      return cell.state === 'in_progress' && cell.token === token ? 'claimed' : cell.state;
    }
    this.#write('cell', { state: done ? 'done' : 'in_progress', token, expiresAt: Date.now() + ms });
    return 'claimed';
  }

  complete(ttlMs: number): null {
    this.#write('cell', { state: 'done', token: '', expiresAt: Date.now() + ttlMs });
    return null;
  }

  /** Frees the cell only for the holder whose token it still carries. */
  release(token: string): null {
    const cell = this.#live('cell');
    if (cell?.state === 'in_progress' && cell.token === token) this.#delete('cell');
    return null;
  }

  renew(token: string, leaseMs: number): boolean {
    const cell = this.#live('cell');
    if (cell?.state !== 'in_progress' || cell.token !== token) return false;
    this.#write('cell', { ...cell, expiresAt: Date.now() + leaseMs });
    return true;
  }

  peek(): 'in_progress' | 'done' | null {
    return this.#live('cell')?.state ?? null;
  }

  forget(): null {
    this.#delete('cell');
    return null;
  }

  // A customer's record and lock.

  getRecord(): { value?: unknown } {
    const record = this.#live('record');
    return record === undefined ? {} : { value: record.value };
  }

  setRecord(value: unknown, ttlMs: number): null {
    this.#write('record', { value, expiresAt: Date.now() + ttlMs });
    return null;
  }

  deleteRecord(): null {
    this.#delete('record');
    return null;
  }

  /** The fenced write: stores the record only while `token` holds the lock. */
  saveRecord(token: string, value: unknown, ttlMs: number): boolean {
    if (this.#live('lock')?.token !== token) return false;
    this.setRecord(value, ttlMs);
    return true;
  }

  /**
   * Takes the lock now, or queues for it (first come, first served) until the holder releases it or its lease
   * runs out; `false` after `waitMs`. A repeat of the holder's own call keeps it.
   */
  takeLock(token: string, leaseMs: number, waitMs: number): boolean | Promise<boolean> {
    const held = this.#live('lock');
    if (held?.token === token || (held === undefined && this.#waiters.length === 0)) {
      this.#write('lock', { token, expiresAt: Date.now() + leaseMs });
      return true;
    }
    return new Promise<boolean>((grant) => {
      const waiter: Waiter = {
        token,
        leaseMs,
        grant,
        timer: setTimeout(
          () => {
            const at = this.#waiters.indexOf(waiter);
            if (at >= 0) this.#waiters.splice(at, 1);
            grant(false);
          },
          Math.min(waitMs, MAX_LOCK_WAIT_MS),
        ),
      };
      this.#waiters.push(waiter);
      this.#schedule();
    });
  }

  renewLock(token: string, leaseMs: number): boolean {
    if (this.#live('lock')?.token !== token) return false;
    this.#write('lock', { token, expiresAt: Date.now() + leaseMs });
    this.#schedule();
    return true;
  }

  releaseLock(token: string): null {
    if ((this.#entries.get('lock') as Entries['lock'] | undefined)?.token === token) this.#delete('lock');
    this.#schedule();
    return null;
  }

  /** Hands the lock to the first waiter when it is free, else wakes when the holder's lease ends. */
  #schedule(): void {
    clearTimeout(this.#wake);
    this.#wake = undefined;
    const next = this.#waiters[0];
    if (next === undefined) return;
    const held = this.#live('lock');
    if (held !== undefined) {
      this.#wake = setTimeout(() => this.#schedule(), Math.max(0, held.expiresAt - Date.now()) + 1);
      return;
    }
    this.#waiters.shift();
    clearTimeout(next.timer);
    this.#write('lock', { token: next.token, expiresAt: Date.now() + next.leaseMs });
    next.grant(true);
    this.#schedule();
  }

  // A customer's last inbound time.

  recordInbound(atMs: number, retainMs: number): null {
    const last = this.#live('window');
    if (last === undefined || last.at < atMs)
      this.#write('window', { at: atMs, expiresAt: Date.now() + retainMs });
    return null;
  }

  lastInbound(): number | null {
    return this.#live('window')?.at ?? null;
  }

  // An outbound message's status.

  /** `StatusTracker`'s step (`applyStatus`) over the stored snapshot, and the write, in one event. */
  updateStatus(input: Record<string, unknown>, retainMs: number): StatusUpdateResult {
    const previous = this.#live('status')?.snapshot;
    const result = applyStatus(previous, input as unknown as StatusEvent | WebhookStatus);
    if (!result.ignored && result.current !== undefined) {
      this.#write('status', { snapshot: result.current, expiresAt: Date.now() + retainMs });
    }
    return result;
  }

  /** Undoes an update (`previous` to `current`) whose `onChange` failed, by `undoneStatus`'s rule. */
  undoStatus(current: TrackedStatus | null, previous: TrackedStatus | null, retainMs: number): boolean {
    const stored = this.#live('status')?.snapshot;
    if (current === null) return false;
    const undone = undoneStatus(stored, previous ?? undefined, current);
    if (undone === stored) return false;
    if (undone === undefined) this.#delete('status');
    else this.#write('status', { snapshot: undone, expiresAt: Date.now() + retainMs });
    return true;
  }

  getStatus(): TrackedStatus | null {
    return this.#live('status')?.snapshot ?? null;
  }

  deleteStatus(): boolean {
    const existed = this.#live('status') !== undefined;
    this.#delete('status');
    return existed;
  }

  // The template catalogue.

  #templateRecords(): Promise<Map<string, TemplateRecord>> {
    this.#templates ??= this.#storage.list<TemplateRecord>({ prefix: TEMPLATE_PREFIX });
    return this.#templates;
  }

  async getTemplate(name: string, language: string): Promise<TemplateRecord | null> {
    return (await this.#templateRecords()).get(templateKey(name, language)) ?? null;
  }

  async updateTemplate(name: string, language: string, patch: TemplateRecordPatch): Promise<TemplateRecord> {
    const records = await this.#templateRecords();
    const key = templateKey(name, language);
    const next = mergeTemplateRecord(records.get(key), name, language, patch, Date.now());
    records.set(key, next);
    void this.#storage.put(key, next);
    return next;
  }

  async listTemplates(): Promise<TemplateRecord[]> {
    return [...(await this.#templateRecords()).values()];
  }
}

function templateKey(name: string, language: string): string {
  return `${TEMPLATE_PREFIX}${name}\u0000${language}`;
}
