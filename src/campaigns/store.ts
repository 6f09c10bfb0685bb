/**
 * The campaign store: what `CampaignTracker` keeps, as a handful of primitive operations that a store can make
 * atomic (`MemoryCampaignStore` here, `RedisCampaignStore` in `wa-gateway-sdk/redis`). The tracker owns every
 * rule (what a status does to a message, which counter moves); a store only keeps values and applies a change
 * all at once, so the in-process and the shared store cannot disagree.
 */
import { nonNegativeInt } from '../core/client-options.js';
import { durationMs } from '../core/duration.js';

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
  /** A failure a retry can fix: the retry list's entry (encoded by the tracker). */
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
   * Notes that a campaign send is under way: until `parkMs` after the last call, a status for a wamid the store
   * does not know yet is parked by `lookup` (its send result may still be on its way), not dropped.
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
  /** Applies `change` if the message's state is still `change.expected`; `false` when another update won. */
  commit(change: CampaignCommit): Promise<boolean>;
  /** A campaign's counters and examples, or `undefined` when nothing was recorded for it. */
  totals(campaign: string): Promise<CampaignTotals | undefined>;
  /** The refusals recorded (as `record` got them), in pages. */
  refusals(campaign: string): AsyncIterable<readonly string[]>;
  /** The retry entries of failures a retry can fix (as `commit` got them), in pages. */
  failedRetries(campaign: string): AsyncIterable<readonly string[]>;
  /** The campaign ids the store holds. */
  campaigns(): Promise<string[]>;
}

export interface MemoryCampaignStoreOptions {
  /** How long a status for an unknown wamid is parked while a campaign send is under way. Default 120,000 ms. */
  parkMs?: number;
  /** Most statuses parked at once; the oldest is dropped beyond it. Default 100,000. */
  maxParked?: number;
}

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
  readonly #parked = new Map<string, string[]>();
  readonly #parkMs: number;
  readonly #maxParked: number;
  #parkedCount = 0;
  #sendingUntil = 0;

  constructor(options: MemoryCampaignStoreOptions = {}) {
    this.#parkMs = durationMs(options.parkMs, 'MemoryCampaignStore parkMs', 120_000);
    this.#maxParked = nonNegativeInt(options.maxParked, 'MemoryCampaignStore maxParked') ?? 100_000;
  }

  async sending(_campaign: string): Promise<void> {
    this.#sendingUntil = Date.now() + this.#parkMs;
  }

  async record(campaign: string, batch: CampaignRecordBatch): Promise<readonly string[]> {
    const c = this.#campaign(campaign);
    const parked: string[] = [];
    for (const { wamid, state } of batch.accepted) {
      this.#messages.set(wamid, { campaign, state });
      const waiting = this.#parked.get(wamid);
      if (waiting) {
        this.#parked.delete(wamid);
        this.#parkedCount -= waiting.length;
        parked.push(...waiting);
      }
    }
    for (const r of batch.refused) c.refused.push(r);
    add(c, batch.counts, batch.examples);
    times(c.counts, 'Send', batch.firstAt, batch.lastAt);
    this.#sendingUntil = Math.max(this.#sendingUntil, Date.now() + this.#parkMs);
    return parked;
  }

  async lookup(wamid: string, park: () => string): Promise<{ campaign: string; state: string } | undefined> {
    const found = this.#messages.get(wamid);
    if (found || Date.now() >= this.#sendingUntil) {
      if (!found && this.#parkedCount > 0) this.#dropParked();
      return found;
    }
    const list = this.#parked.get(wamid);
    if (list) list.push(park());
    else this.#parked.set(wamid, [park()]);
    if (++this.#parkedCount > this.#maxParked) {
      const oldest = this.#parked.keys().next().value as string;
      this.#parkedCount -= this.#parked.get(oldest)?.length ?? 0;
      this.#parked.delete(oldest);
    }
    return undefined;
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

  /** Once no send is under way, statuses still parked belong to no campaign: let them go. */
  #dropParked(): void {
    this.#parked.clear();
    this.#parkedCount = 0;
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
