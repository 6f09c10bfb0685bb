/**
 * The campaign store: what `CampaignTracker` keeps, as a handful of primitive operations that a store can make
 * atomic (`MemoryCampaignStore` here, `RedisCampaignStore` in `wa-gateway-sdk/redis`). The tracker owns every
 * rule (what a status does to a message, which counter moves); a store only keeps values and applies a change
 * all at once, so the in-process and the shared store cannot disagree.
 */
import { durationMs, nonNegativeInt } from '../core/duration.js';
import { ConfigurationError } from '../core/errors.js';

/**
 * One batch of `sendMany` results of one campaign: the accepted wamids with their recipient, the refusals,
 * and the counters they move.
 */
export interface CampaignRecordBatch {
  /** Accepted messages: the wamid and the encoded message state the tracker keeps for it. */
  readonly accepted: readonly { readonly wamid: string; readonly state: string }[];
  /** Refusals, encoded by the tracker (a JSON object each): kept in order for the report's lists. */
  readonly refused: readonly string[];
  /** Counter increments (`accepted`, `notSent`, `r:BILL_001`...). */
  readonly counts: Readonly<Record<string, number>>;
  /** Example values set only when the field has none yet (the first refusal of each code). */
  readonly examples: Readonly<Record<string, string>>;
  /** Earliest and latest time of the batch, ms since the epoch. */
  readonly firstAt: number;
  readonly lastAt: number;
}

/** A change of one message's state and the counters it moves, applied only if the state is still `expected`. */
export interface CampaignCommit {
  readonly campaign: string;
  readonly wamid: string;
  /** The stored state the change was computed from. */
  readonly expected: string;
  /** The state to store (may equal `expected` when only the event times move). */
  readonly next: string;
  readonly counts: Readonly<Record<string, number>>;
  readonly examples: Readonly<Record<string, string>>;
  /** The status event's time in ms since the epoch, when it carried one. */
  readonly eventAt: number | undefined;
  /**
   * The message failed: its entry for the retry list (encoded by the tracker), kept whatever its code, since the
   * tracker that reads a report decides which codes are retried.
   */
  readonly retry: string | undefined;
}

/** What a store holds about a campaign: its counters, examples and times. */
export interface CampaignTotals {
  readonly counts: Readonly<Record<string, number>>;
  readonly examples: Readonly<Record<string, string>>;
}

/**
 * Where a `CampaignTracker` keeps campaigns. Every method may be called by many processes at once (for a
 * shared store); `record` and `commit` must each apply all of their change or none of it.
 */
export interface CampaignStore {
  /**
   * How long after the last `sending` (or `record`) a status for an unknown wamid is parked, in ms. A tracker
   * writes each send result at most half of it after the result arrived. Default, when a store does not say:
   * 120,000.
   */
  readonly parkMs?: number;
  /**
   * Notes that a campaign send is under way: until `parkMs` after the last call, a status for a wamid the store
   * does not know yet is parked by `lookup` (its send result may still be on its way), not dropped. A recorder
   * calls it when it opens and again while it stays open.
   */
  sending(campaign: string): Promise<void>;
  /**
   * Stores a batch of send results of `campaign` and returns the statuses parked for its accepted wamids (raw
   * `statuses[]` objects as JSON text), taken out of the parking in the same step, for the tracker to apply.
   */
  record(campaign: string, batch: CampaignRecordBatch): Promise<readonly string[]>;
  /**
   * The stored state of a message and its campaign, or `undefined` for a wamid in no campaign. Then, while a
   * campaign send is under way, `park` (the raw status as JSON text) is kept for `record`; otherwise nothing
   * is written.
   */
  lookup(wamid: string, park: () => string): Promise<{ campaign: string; state: string } | undefined>;
  /**
   * The stored state of one message and its campaign, as `lookup` answers it, but reading only: nothing is parked
   * or written. What `tracker.message` reads; optional for a store of your own (without it, `tracker.message`
   * throws a `ConfigurationError`).
   */
  get?(wamid: string): Promise<{ campaign: string; state: string } | undefined>;
  /**
   * Applies `change` if the message's state is still `change.expected`; `false` when another update won. A
   * message whose campaign is gone (its counters expired or deleted) takes no change: `true`, nothing written.
   */
  commit(change: CampaignCommit): Promise<boolean>;
  /** A campaign's counters and examples, or `undefined` when nothing was recorded for it. */
  totals(campaign: string): Promise<CampaignTotals | undefined>;
  /** The refusals recorded (as `record` got them), in pages. */
  refusals(campaign: string): AsyncIterable<readonly string[]>;
  /** The retry entries of failed messages (as `commit` got them, whatever their code), in pages. */
  failedRetries(campaign: string): AsyncIterable<readonly string[]>;
  /** The campaign ids the store holds. */
  campaigns(): Promise<string[]>;
}

export interface MemoryCampaignStoreOptions {
  /**
   * While a campaign send is under way, how long a status for an unknown wamid is parked (each is dropped that
   * long after it was parked). Default 120,000 ms.
   */
  parkMs?: number | undefined;
  /** Most statuses parked at once; the oldest is dropped beyond it. Default 100,000. */
  maxParked?: number | undefined;
  /** The clock parking is timed on, in ms since the epoch. Default `Date.now`; tests pass their own. */
  now?: (() => number) | undefined;
}

/** How long a status is parked, when a store does not say. */
export const DEFAULT_PARK_MS = 120_000;
/** Statuses parked per wamid, at most (the newest kept): a message has a handful of statuses. */
const MAX_PARKED_PER_WAMID = 16;

interface MemoryCampaign {
  counts: Record<string, number>;
  examples: Record<string, string>;
  refused: string[];
  retries: Map<string, string>;
}

/**
 * The in-process campaign store, `CampaignTracker`'s default: one process sends and receives the statuses.
 * Nothing expires; a campaign is kept until `delete`.
 *
 * @example
 * import { CampaignTracker, MemoryCampaignStore } from 'wa-gateway-sdk';
 * const tracker = new CampaignTracker({ store: new MemoryCampaignStore() });
 */
export class MemoryCampaignStore implements CampaignStore {
  readonly #messages = new Map<string, { campaign: string; state: string }>();
  readonly #campaigns = new Map<string, MemoryCampaign>();
  /** Parked statuses by wamid, the oldest parking first (a wamid parked again moves to the end). */
  readonly #parked = new Map<string, { at: number; items: string[] }>();
  readonly #maxParked: number;
  readonly #now: () => number;
  #parkedCount = 0;
  #sendingUntil = 0;
  readonly parkMs: number;

  constructor(options: MemoryCampaignStoreOptions = {}) {
    this.parkMs = durationMs(options.parkMs, 'MemoryCampaignStore parkMs', DEFAULT_PARK_MS);
    this.#maxParked = nonNegativeInt(options.maxParked, 'MemoryCampaignStore maxParked') ?? 100_000;
    if (options.now !== undefined && typeof options.now !== 'function') {
      throw new ConfigurationError(
        'MemoryCampaignStore now must be a function returning ms since the epoch.',
      );
    }
    this.#now = options.now ?? Date.now;
  }

  async sending(_campaign: string): Promise<void> {
    this.#sendingUntil = Math.max(this.#sendingUntil, this.#now() + this.parkMs);
  }

  async record(campaign: string, batch: CampaignRecordBatch): Promise<readonly string[]> {
    const c = this.#campaign(campaign);
    const parked: string[] = [];
    this.#expireParked();
    for (const { wamid, state } of batch.accepted) {
      this.#messages.set(wamid, { campaign, state });
      const waiting = this.#parked.get(wamid);
      if (waiting) {
        this.#parked.delete(wamid);
        this.#parkedCount -= waiting.items.length;
        parked.push(...waiting.items);
      }
    }
    for (const r of batch.refused) c.refused.push(r);
    add(c, batch.counts, batch.examples);
    times(c.counts, 'Send', batch.firstAt, batch.lastAt);
    this.#sendingUntil = Math.max(this.#sendingUntil, this.#now() + this.parkMs);
    return parked;
  }

  async lookup(wamid: string, park: () => string): Promise<{ campaign: string; state: string } | undefined> {
    const found = this.#messages.get(wamid);
    if (found) return found;
    const now = this.#expireParked();
    if (now >= this.#sendingUntil) return undefined;
    const entry = this.#parked.get(wamid) ?? { at: now, items: [] };
    this.#parked.delete(wamid);
    entry.at = now;
    entry.items.push(park());
    if (entry.items.length > MAX_PARKED_PER_WAMID) entry.items.shift();
    else this.#parkedCount++;
    this.#parked.set(wamid, entry);
    while (this.#parkedCount > this.#maxParked) {
      const [oldest, dropped] = this.#parked.entries().next().value as [string, { items: string[] }];
      this.#parkedCount -= dropped.items.length;
      this.#parked.delete(oldest);
    }
    return undefined;
  }

  async get(wamid: string): Promise<{ campaign: string; state: string } | undefined> {
    const found = this.#messages.get(wamid);
    return found ? { ...found } : undefined;
  }

  async commit(change: CampaignCommit): Promise<boolean> {
    const found = this.#messages.get(change.wamid);
    if (found?.state !== change.expected) return false;
    found.state = change.next;
    const c = this.#campaign(change.campaign);
    add(c, change.counts, change.examples);
    if (change.eventAt !== undefined) times(c.counts, 'Event', change.eventAt, change.eventAt);
    if (change.retry !== undefined) c.retries.set(change.wamid, change.retry);
    return true;
  }

  async totals(campaign: string): Promise<CampaignTotals | undefined> {
    const c = this.#campaigns.get(campaign);
    return c ? { counts: { ...c.counts }, examples: { ...c.examples } } : undefined;
  }

  async *refusals(campaign: string): AsyncIterable<readonly string[]> {
    const list = this.#campaigns.get(campaign)?.refused ?? [];
    for (let i = 0; i < list.length; i += 1000) yield list.slice(i, i + 1000);
  }

  async *failedRetries(campaign: string): AsyncIterable<readonly string[]> {
    const list = [...(this.#campaigns.get(campaign)?.retries.values() ?? [])];
    for (let i = 0; i < list.length; i += 1000) yield list.slice(i, i + 1000);
  }

  async campaigns(): Promise<string[]> {
    return [...this.#campaigns.keys()];
  }

  /**
   * Forgets a campaign and its messages. Resolves `true` when it was known.
   *
   * @example
   * await store.delete('spring-sale');
   */
  async delete(campaign: string): Promise<boolean> {
    for (const [wamid, m] of this.#messages) if (m.campaign === campaign) this.#messages.delete(wamid);
    return this.#campaigns.delete(campaign);
  }

  /** Drops the statuses parked `parkMs` ago or earlier (their send result never came); answers the time. */
  #expireParked(): number {
    const now = this.#now();
    for (const [wamid, entry] of this.#parked) {
      if (entry.at + this.parkMs > now) break;
      this.#parkedCount -= entry.items.length;
      this.#parked.delete(wamid);
    }
    return now;
  }

  #campaign(id: string): MemoryCampaign {
    let c = this.#campaigns.get(id);
    if (!c) {
      c = { counts: {}, examples: {}, refused: [], retries: new Map() };
      this.#campaigns.set(id, c);
    }
    return c;
  }
}

function add(
  c: MemoryCampaign,
  counts: Readonly<Record<string, number>>,
  examples: Readonly<Record<string, string>>,
): void {
  for (const [k, n] of Object.entries(counts)) c.counts[k] = (c.counts[k] ?? 0) + n;
  for (const [k, v] of Object.entries(examples)) if (!(k in c.examples)) c.examples[k] = v;
}

function times(counts: Record<string, number>, kind: 'Send' | 'Event', first: number, last: number): void {
  const f = `first${kind}At`;
  const l = `last${kind}At`;
  counts[f] = counts[f] === undefined ? first : Math.min(counts[f], first);
  counts[l] = counts[l] === undefined ? last : Math.max(counts[l], last);
}
