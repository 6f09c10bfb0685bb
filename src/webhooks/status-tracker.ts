/**
 * `StatusTracker`: the current state of each outbound message from status events that arrive in any order and
 * possibly more than once (the gateway guarantees neither order nor single delivery).
 *
 * The rules, chosen so that the result does not depend on arrival order (any permutation of the same events gives
 * the same final state):
 * - States only move forward: `sent` < `delivered` < `read`. A lower state arriving late (a `sent` after a
 *   `delivered`) never moves a message back; its timestamp is still recorded (`sentAt`).
 * - `read` implies `delivered`: a `read` that arrives before its `delivered` sets the state to `read` and
 *   `delivered` to `true`; the late `delivered` then only fills `deliveredAt` and billing.
 * - `failed` is final: once failed, no other state replaces it; `failed` replaces any state.
 * - Timestamps: for each state the earliest timestamp seen is kept. States are ordered by rank, not timestamp,
 *   because upstream timestamps are whole seconds (sent and delivered often share one) and a clock skew must not
 *   move a read message back to delivered.
 * - Billing: a `delivered` event with `pricing.billable === true` marks the message billable once, however often
 *   it is redelivered and whenever it arrives.
 * - A status value the SDK does not know is not tracked (`ignored: 'unknown_status'`).
 */
import { countOption } from '../core/duration.js';
import { WebhookParseError } from '../core/errors.js';
import { isThenable } from '../core/observer.js';
import { parseTimestamp } from './event-fields.js';
import type { StatusEvent } from './events.js';
import type { KnownStatusValue, StatusError, WebhookStatus } from './schemas.js';

/** What the tracker knows about one outbound message. Snapshots are never mutated. */
export interface TrackedStatus {
  /** The outbound message's `wamid`. */
  readonly wamid: string;
  /** The furthest state reached (or `failed`). */
  readonly status: KnownStatusValue;
  /** Unix seconds of the event that set `status`, when it carried one. */
  readonly timestamp: number | undefined;
  readonly sentAt: number | undefined;
  readonly deliveredAt: number | undefined;
  readonly readAt: number | undefined;
  readonly failedAt: number | undefined;
  /** Reached the recipient: a `delivered` or a `read` was seen (read implies delivered). */
  readonly delivered: boolean;
  /** A `delivered` event with `pricing.billable === true` was seen: the gateway deducts the fee for it. */
  readonly billable: boolean;
  /** The recipient's phone number, from the first event that carried one. */
  readonly recipientId: string | undefined;
  /**
   * The recipient's business-scoped user id, from the first event that carried one. A status addressed by this id
   * alone (no `recipient_id`) is tracked like any other: by its `wamid`.
   */
  readonly recipientUserId?: string | undefined;
  /** `errors[]` of the `failed` event. */
  readonly errors: readonly StatusError[] | undefined;
  /** Number of status events applied to this message, duplicates included. */
  readonly events: number;
}

/** What one `update` did. */
export interface StatusUpdateResult {
  /** `status` moved (a new message counts as a change). Timestamp or billing details alone do not. */
  readonly changed: boolean;
  /** The snapshot before the update, `undefined` for a message seen for the first time. */
  readonly previous: TrackedStatus | undefined;
  /** The snapshot after the update; `undefined` only when the event was ignored for a message not tracked. */
  readonly current: TrackedStatus | undefined;
  /** Set when the event was not applied. */
  readonly ignored?: 'unknown_status';
  /** This update marked the message billable for the first time. */
  readonly newlyBillable: boolean;
}

/** What `onChange` receives: an update that moved a message's `status` or marked it billable (`announced`). */
export type StatusChange = StatusUpdateResult & { current: TrackedStatus };

/**
 * Whether an update is announced to `onChange` (every status store's rule): it moved the status, or marked the
 * message billable. Billing is money to persist: a billable `delivered` arriving after its `read` moves no status.
 */
export function announced(result: StatusUpdateResult): boolean {
  return result.changed || result.newlyBillable;
}

/**
 * What a failed `onChange`'s undo leaves stored (every status store's rule): `stored` itself when the status moved
 * on since this update wrote `current` (the newer update's `onChange` carries it). Else `previous` (`undefined`:
 * delete), keeping what other writes of the same status added meanwhile: a field that differs from `current` (a
 * late billable `delivered`'s `billable` and `deliveredAt`; a new message keeps them under status `sent`), with
 * one event fewer. The billable count goes down only when `billable` goes from true to false: this update's billing.
 */
export function undoneStatus(
  stored: TrackedStatus | undefined,
  previous: TrackedStatus | undefined,
  current: TrackedStatus,
): TrackedStatus | undefined {
  if (stored?.status !== current.status) return stored;
  let undone: Record<string, unknown> | undefined;
  for (const [key, value] of Object.entries(stored))
    if (key !== 'events' && value !== current[key as keyof TrackedStatus] && typeof value !== 'object') {
      undone ??= { ...(previous ?? blank(current.wamid, 'sent')) };
      undone[key] = value;
    }
  if (!undone) return previous;
  undone['events'] = stored.events - 1;
  undone['delivered'] ||= undone['billable'] || undone['deliveredAt'] !== undefined;
  return undone as unknown as TrackedStatus;
}

/**
 * What `update` returns: the result, or a promise of it when `onChange` returns a promise (the update then
 * stands only once that promise resolves). An `onChange` typed `any` (a bare `vi.fn()`) counts as synchronous.
 */
export type StatusUpdateReturn<Notified> = 0 extends 1 & Notified
  ? StatusUpdateResult
  : Notified extends PromiseLike<unknown>
    ? Promise<StatusUpdateResult>
    : StatusUpdateResult;

export interface StatusTrackerOptions<Notified = void> {
  /** Most messages kept; the least recently updated is evicted beyond it. Default 100,000. */
  maxEntries?: number | undefined;
  /**
   * Called after every update that changed a message's `status` (`changed`), or marked it billable
   * (`newlyBillable`, which a late `delivered` does with `changed: false`); persist the change here. The change stands
   * only if `onChange` succeeds: when it throws (or its promise rejects), the message's state is put back and
   * `update` throws (rejects) the same error, so the gateway's retry of the event calls `onChange` again.
   */
  onChange?: ((change: StatusChange) => Notified) | undefined;
}

const RANK: Readonly<Record<KnownStatusValue, number>> = { sent: 1, delivered: 2, read: 3, failed: 4 };

function isStatusEvent(input: StatusEvent | WebhookStatus): input is StatusEvent {
  // A raw status object is loose and could carry any key: the event also has the status as an object.
  return input.kind === 'status' && typeof input.status === 'object' && input.status !== null;
}

function minDefined(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return Math.min(a, b);
}

const IGNORED: StatusUpdateResult = {
  changed: false,
  previous: undefined,
  current: undefined,
  ignored: 'unknown_status',
  newlyBillable: false,
};

/**
 * The `wamid` a status event (or raw `statuses[]` object) is about, or `undefined` when the input is not a
 * status. Fed straight from a queue or a log, the input may be anything: never throws (an input whose getter or
 * Proxy trap throws has no readable `wamid`).
 */
export function wamidOf(input: StatusEvent | WebhookStatus): string | undefined {
  try {
    return readWamid(input);
  } catch {
    return undefined;
  }
}

function readWamid(input: StatusEvent | WebhookStatus): string | undefined {
  if (typeof input !== 'object' || input === null) return undefined;
  const raw = (input as { status?: unknown }).status;
  const id =
    typeof raw === 'object' && raw !== null ? (raw as { id?: unknown }).id : (input as { id?: unknown }).id;
  return typeof id === 'string' ? id : undefined;
}

/**
 * A snapshot read back from a store (JSON, where absent fields were left out) with every field of
 * `TrackedStatus` present, `undefined` where it was absent: what `StatusTracker` itself holds, so a shared store's
 * results equal the tracker's field for field.
 *
 * @example
 * const snapshot = trackedStatusFrom(JSON.parse(stored));
 */
export function trackedStatusFrom(
  s: Pick<TrackedStatus, 'wamid' | 'status' | 'events'> & {
    readonly [K in keyof TrackedStatus]?: TrackedStatus[K];
  },
): TrackedStatus {
  return {
    wamid: s.wamid,
    status: s.status,
    timestamp: s.timestamp,
    sentAt: s.sentAt,
    deliveredAt: s.deliveredAt,
    readAt: s.readAt,
    failedAt: s.failedAt,
    delivered: s.delivered === true,
    billable: s.billable === true,
    recipientId: s.recipientId,
    recipientUserId: s.recipientUserId,
    errors: s.errors,
    events: s.events,
  };
}

/** A message before its first event. */
function blank(wamid: string, status: KnownStatusValue, timestamp?: number): TrackedStatus {
  return {
    wamid,
    status,
    timestamp,
    sentAt: undefined,
    deliveredAt: undefined,
    readAt: undefined,
    failedAt: undefined,
    delivered: false,
    billable: false,
    recipientId: undefined,
    recipientUserId: undefined,
    errors: undefined,
    events: 0,
  };
}

/**
 * The tracker's rules as one pure step: what `previous` (the message's snapshot, `undefined` when unseen)
 * becomes after `input`. `StatusTracker` and `RedisStatusStore` (wa-gateway-sdk/redis) both apply it, so the
 * in-process and the shared tracker cannot disagree. An input that is not a status is ignored; one whose getter
 * or Proxy trap throws is a `WebhookParseError` (its own error is not read: it could be anything).
 */
export function applyStatus(
  previous: TrackedStatus | undefined,
  input: StatusEvent | WebhookStatus,
): StatusUpdateResult {
  try {
    return applyReadable(previous, input);
  } catch {
    throw new WebhookParseError('Status event could not be read (a getter or proxy threw)');
  }
}

function applyReadable(
  previous: TrackedStatus | undefined,
  input: StatusEvent | WebhookStatus,
): StatusUpdateResult {
  const wamid = readWamid(input);
  if (wamid === undefined) return IGNORED;
  const event = isStatusEvent(input);
  const status = event ? input.status : input;
  const timestamp = event ? input.timestamp : parseTimestamp(status.timestamp);
  if (!Object.hasOwn(RANK, status.status)) return { ...IGNORED, previous, current: previous };
  const value = status.status as KnownStatusValue;
  const base = previous ?? blank(wamid, value, timestamp);
  const advances = previous === undefined || (base.status !== 'failed' && RANK[value] > RANK[base.status]);
  const newlyBillable = value === 'delivered' && status.pricing?.billable === true && !base.billable;
  // The timestamp of this event's state: the earliest seen (`sentAt`, `deliveredAt`, `readAt` or `failedAt`).
  const at = `${value}At` as const;
  const current: TrackedStatus = {
    ...base, // its `wamid` is this one's: the snapshot is stored under it
    status: advances ? value : base.status,
    timestamp: advances
      ? timestamp
      : base.status === value
        ? minDefined(base.timestamp, timestamp)
        : base.timestamp,
    [at]: minDefined(base[at], timestamp),
    delivered: base.delivered || value === 'delivered' || value === 'read',
    billable: base.billable || newlyBillable,
    recipientId: base.recipientId ?? status.recipient_id,
    recipientUserId: base.recipientUserId ?? status.recipient_user_id,
    errors: value === 'failed' && (base.errors === undefined || advances) ? status.errors : base.errors,
    events: base.events + 1,
  };
  return { changed: advances, previous, current, newlyBillable };
}

/**
 * Tracks the latest state of outbound messages from status events, in any order, duplicates included.
 *
 * A change is committed, then `onChange` is called; if it fails, the change is undone (unless a later update of
 * the same message moved its status on) and `update` fails, so the handler answers 500 and the gateway's retry
 * finds the change again. With an async `onChange`, `update` returns a promise: return or await it in `onEvent`.
 *
 * @example
 * const tracker = new StatusTracker({ onChange: ({ current }) => db.setStatus(current.wamid, current.status) });
 * createWebhookHandler({ secret, onEvent: async (e) => { if (e.kind === 'status') await tracker.update(e); } });
 */
export class StatusTracker<Notified = void> {
  private readonly byWamid = new Map<string, TrackedStatus>();
  private readonly maxEntries: number;
  private readonly onChange: StatusTrackerOptions<Notified>['onChange'];
  private billable = 0;

  constructor(options: StatusTrackerOptions<Notified> = {}) {
    // `null` (a JS caller's) is no options, as `undefined` is.
    options ??= {};
    this.maxEntries = countOption(options.maxEntries, 'new StatusTracker: `maxEntries`', 100_000);
    this.onChange = options.onChange;
  }

  /** Messages tracked. */
  get size(): number {
    return this.byWamid.size;
  }

  /**
   * Messages marked billable since the tracker was created. A message evicted (see `maxEntries`) and seen again
   * later may be counted twice.
   */
  get billableCount(): number {
    return this.billable;
  }

  /**
   * Applies a status event (from `parseWebhook`) or a raw `statuses[]` object. Throws `WebhookParseError` for
   * an input that cannot be read (a throwing getter or Proxy); the tracker is left unchanged.
   *
   * @example
   * const { changed, current } = await tracker.update(event);
   * if (changed) console.log(current?.wamid, current?.status);
   */
  update(input: StatusEvent | WebhookStatus): StatusUpdateReturn<Notified> {
    const wamid = wamidOf(input);
    const previous = wamid === undefined ? undefined : this.byWamid.get(wamid);
    const result = applyStatus(previous, input);
    const { current } = result;
    if (result.ignored || !current || !this.commit(current, result.newlyBillable) || !announced(result)) {
      return result as StatusUpdateReturn<Notified>;
    }
    const undo = () => this.undo(previous, current);
    let notified: Notified | undefined;
    try {
      notified = this.onChange?.({ ...result, current });
    } catch (error) {
      undo();
      throw error;
    }
    if (!isThenable(notified)) return result as StatusUpdateReturn<Notified>;
    return Promise.resolve(notified).then(
      () => result,
      (error: unknown) => {
        undo();
        throw error;
      },
    ) as StatusUpdateReturn<Notified>;
  }

  /** Stores `current`; always `true` (a step of `update`'s one condition). */
  private commit(current: TrackedStatus, newlyBillable: boolean): true {
    if (newlyBillable) this.billable++;
    // Delete and re-insert: the Map's order becomes least recently updated first, which is what gets evicted.
    this.byWamid.delete(current.wamid);
    this.byWamid.set(current.wamid, current);
    while (this.byWamid.size > this.maxEntries) {
      const oldest = this.byWamid.keys().next();
      if (oldest.done) break;
      this.byWamid.delete(oldest.value);
    }
    return true;
  }

  /** Undoes a change whose `onChange` failed, by `undoneStatus`'s rule. */
  private undo(previous: TrackedStatus | undefined, current: TrackedStatus): void {
    const stored = this.byWamid.get(current.wamid);
    const undone = undoneStatus(stored, previous, current);
    if (stored?.billable && !undone?.billable) this.billable--;
    if (undone) this.byWamid.set(current.wamid, undone);
    else this.byWamid.delete(current.wamid);
  }

  /** The tracked state of a message, or `undefined`. */
  get(wamid: string): TrackedStatus | undefined {
    return this.byWamid.get(wamid);
  }

  /** Every tracked message, least recently updated first. */
  entries(): IterableIterator<[string, TrackedStatus]> {
    return this.byWamid.entries();
  }

  /** Stops tracking a message (for example once it is read or failed and stored elsewhere). */
  delete(wamid: string): boolean {
    return this.byWamid.delete(wamid);
  }

  clear(): void {
    this.byWamid.clear();
  }
}
