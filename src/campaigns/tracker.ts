/**
 * `CampaignTracker`: joins bulk sends with their status webhooks. Each `sendMany` result of a campaign is
 * recorded (the accepted wamid, or the refusal and its code); each status event then moves its message under
 * `StatusTracker`'s rules (`applyStatus`: never back, `failed` final, a billable delivery counted once), and the
 * campaign's counters move with it in the same atomic store step, so duplicates and any arrival order give the
 * same counts, with one process or many.
 */
import { compareAndSet, LOST_RACE } from '../core/compare-and-set.js';
import { durationMs } from '../core/duration.js';
import { ConfigurationError } from '../core/errors.js';
import { GATEWAY_RETRY_RULES } from '../gateway/retry-rules.js';
import type { CampaignObserver, SendManyRecorder } from '../gateway/send-many.js';
import { parseTimestamp } from '../webhooks/event-fields.js';
import type { StatusEvent, WebhookEvent } from '../webhooks/events.js';
import type { WebhookStatus } from '../webhooks/schemas.js';
import { applyStatus, type TrackedStatus } from '../webhooks/status-tracker.js';
import { type CampaignClock, CampaignRecorder, SYSTEM_CLOCK } from './recorder.js';
import {
  Batch,
  type CampaignMessageStatus,
  type CampaignRefusal,
  type CampaignResult,
  decodeState,
  encodeState,
} from './records.js';
import {
  type CampaignRecordBatch,
  type CampaignStore,
  DEFAULT_PARK_MS,
  MemoryCampaignStore,
} from './store.js';
import { SUPPRESSED_CODE } from './suppressions.js';

/** A recipient worth sending to again. */
export interface CampaignRetry {
  /** The recipient as it was given to `sendMany` (`to`). */
  to: string;
  /**
   * `not_sent`: certainly not sent, and worth sending again (a refusal the same message would meet again, such as
   * `GW_001`, is not, nor is a recipient who opted out, `SUPPRESSED`; a cancelled message, `CANCELLED`, is);
   * `failed`: a `failed` status whose code is in the reading tracker's `retryableFailureCodes`.
   */
  reason: 'not_sent' | 'failed';
  /** The refusal's code (`BILL_001`, `MessageValidationError`...) or the upstream error code of the failure. */
  code: string;
  /**
   * The message's position, from 0 (for `not_sent`): in `sendMany`'s input, or in a `CampaignQueue` campaign its
   * enqueue order; a `CampaignQueue`'s `report` gives it for `failed` too.
   */
  index?: number;
  /** The wamid of the failed message (for `failed`). */
  wamid?: string;
  /**
   * A `CampaignQueue` campaign's message key (for `not_sent`, and for `failed` from the queue's `report`): a new
   * enqueue of the same key adds nothing, so a resend goes under a new key or campaign. Absent for `sendMany`.
   */
  key?: string;
}

/** One message of a campaign, from `tracker.message(id, wamid)`: what the report keeps of it. */
export interface CampaignMessage {
  campaign: string;
  wamid: string;
  /** The recipient as it was given to `sendMany` (`to`). */
  to: string;
  /** Its latest status: `accepted` until its first status event arrives (a lost receipt stays there). */
  status: CampaignMessageStatus;
  /** A delivery with `pricing.billable === true` was counted for it. */
  billable: boolean;
}

/** The funnel and what went wrong, from `tracker.report(id)`. */
export interface CampaignReport {
  campaign: string;
  /**
   * How far messages got. `accepted` counts every accepted wamid; `sent`, `delivered` and `read` count those
   * that reached at least that state and did not fail afterwards (`read` implies delivered, which implies sent);
   * `failed` counts messages whose latest status is `failed`; `notSent` the refusals that certainly did not go
   * out (`GW_001`, the upstream's refusal, among them); `maybeSent` those that may have (a fault in flight, a 502
   * without the gateway's code).
   */
  funnel: {
    accepted: number;
    sent: number;
    delivered: number;
    read: number;
    failed: number;
    notSent: number;
    maybeSent: number;
  };
  /** Accepted messages by their latest status; `accepted` have had no status event yet. */
  latest: Record<CampaignMessageStatus, number>;
  /** Failed messages by upstream error code, with one example wamid each. */
  failures: { code: string; count: number; exampleWamid: string }[];
  /** Refusals by code, with one example recipient each. */
  refusals: { code: string; count: number; notSent: number; exampleTo: string }[];
  /** Deliveries with `pricing.billable === true`, each message counted once. */
  billable: number;
  /** Time of the first and last status event (from their `timestamp`), ISO 8601; `null` before any. */
  firstEventAt: string | null;
  lastEventAt: string | null;
  /** When the first and last send result was recorded, ISO 8601. */
  firstSendAt: string | null;
  lastSendAt: string | null;
  /**
   * Recipients to send to again: refusals that certainly did not go out (but not those the same message would
   * meet again, `GW_001`, nor recipients who opted out, `SUPPRESSED`; cancelled messages are listed), and failures whose code is in the `retryableFailureCodes` of the tracker that read the report.
   */
  retries(): AsyncIterable<CampaignRetry>;
  /** Every refusal, including those that may have been sent. */
  refused(): AsyncIterable<CampaignRefusal>;
}

export interface CampaignTrackerOptions {
  /** Where campaigns are kept. Default: a `MemoryCampaignStore` (one process). */
  store?: CampaignStore | undefined;
  /**
   * Upstream error codes (of a `failed` status's `errors[0].code`) that a later retry can fix, so their
   * recipients appear in `retries()` of the reports this tracker reads (whichever tracker applied the statuses:
   * every failure is kept, and the list is decided when it is read). Default none: the spec documents no upstream
   * codes, so the SDK does not guess; name the ones your upstream documents as transient.
   */
  retryableFailureCodes?: readonly (number | string)[] | undefined;
  /** Results a recorder buffers before writing them in one store step. Default 256. */
  batchSize?: number | undefined;
  /**
   * The longest a result waits in a recorder's buffer, in ms: a buffer is written when it holds `batchSize`
   * results or when its oldest is this old, whichever comes first, however slow the loop's consumer or source.
   * Default 1,000, and at most half of the store's `parkMs` (a status that arrived before its result waits that
   * long for it): a `ConfigurationError` beyond.
   */
  maxBatchAgeMs?: number | undefined;
  /**
   * The clock and timers recorders measure ages on. Default `Date.now` and the global timers (which never keep a
   * process alive on their own); tests pass a manual one.
   */
  clock?: CampaignClock | undefined;
}

/** The tracker's snapshot for `applyStatus` from what is stored (`undefined` before the first status). */
function snapshotOf(
  wamid: string,
  status: CampaignMessageStatus,
  billable: boolean,
): TrackedStatus | undefined {
  if (status === 'accepted') return undefined;
  return {
    wamid,
    status,
    timestamp: undefined,
    sentAt: undefined,
    deliveredAt: undefined,
    readAt: undefined,
    failedAt: undefined,
    delivered: status === 'delivered' || status === 'read',
    billable,
    recipientId: undefined,
    errors: undefined,
    events: 1,
  };
}

/** A status's raw `statuses[]` object, whichever form was given; `undefined` for any other event. */
function rawStatusOf(input: unknown): WebhookStatus | undefined {
  if (typeof input !== 'object' || input === null) return undefined;
  const kind = (input as { kind?: unknown }).kind;
  if (kind !== undefined) {
    if (kind !== 'status') return undefined;
    const s = (input as StatusEvent).status;
    return typeof s === 'object' && s !== null ? s : undefined;
  }
  return typeof (input as { id?: unknown }).id === 'string' ? (input as WebhookStatus) : undefined;
}

/**
 * Refusals that certainly did not go out but are not to be resent: the same message meets the same answer
 * (`GW_001`, the upstream's refusal of the message; the gateway's retry table decides), or the recipient opted out
 * (`SUPPRESSED`, the campaign queue's skip of a suppressed recipient).
 */
const NEVER_RESENT: ReadonlySet<string> = new Set([...GATEWAY_RETRY_RULES.neverRetryCodes, SUPPRESSED_CODE]);

/** Wamids longer than any the gateway issues are in no campaign: they are never looked up (or parked). */
const MAX_WAMID = 256;

/**
 * `retryableFailureCodes` as every campaign reader takes it (the tracker, the queue): an array of upstream codes,
 * or a `ConfigurationError` naming `where`.
 */
export function checkRetryableCodes(codes: unknown, where: string): readonly (number | string)[] {
  const list = codes ?? [];
  if (!Array.isArray(list) || !list.every((c) => typeof c === 'number' || typeof c === 'string')) {
    throw new ConfigurationError(
      `${where}: \`retryableFailureCodes\` must be an array of upstream codes (numbers or strings), e.g. [131026, 131049].`,
    );
  }
  return list;
}

/**
 * Campaign outcomes: which messages of a bulk send were accepted, sent, delivered, read or failed, which were
 * billable, and whom to retry.
 *
 * Give it to `new GatewayClient({ campaigns: tracker })` and name the campaign in `sendMany(messages,
 * { campaign })`; feed it every status event with `tracker.apply(event)`; read `tracker.report(id)`.
 *
 * @example
 * import { CampaignTracker, GatewayClient } from 'wa-gateway-sdk';
 * const campaigns = new CampaignTracker();
 * const gw = new GatewayClient({ apiKey: process.env.GATEWAY_API_KEY!, baseUrl: 'https://gw.example.com', campaigns });
 * for await (const r of gw.messages.sendMany(messages, { campaign: 'spring-sale' })) if (!r.ok) console.log(r.error.code);
 * // in the webhook handler: onEvent: (event) => campaigns.apply(event)
 * const report = await campaigns.report('spring-sale');
 */
export class CampaignTracker implements CampaignObserver {
  readonly store: CampaignStore;
  readonly #retryable: ReadonlySet<string>;
  readonly #batchSize: number;
  readonly #maxAgeMs: number;
  readonly #parkMs: number;
  readonly #clock: CampaignClock;

  constructor(options: CampaignTrackerOptions = {}) {
    if (typeof options !== 'object' || options === null) {
      throw new ConfigurationError('new CampaignTracker(options) takes an options object (or nothing).');
    }
    const store = options.store ?? new MemoryCampaignStore();
    if (typeof store.record !== 'function' || typeof store.commit !== 'function') {
      throw new ConfigurationError(
        'CampaignTracker store must be a CampaignStore (MemoryCampaignStore, or RedisCampaignStore from wa-gateway-sdk/redis).',
      );
    }
    this.store = store;
    this.#retryable = new Set(
      checkRetryableCodes(options.retryableFailureCodes, 'new CampaignTracker').map(String),
    );
    const size = options.batchSize ?? 256;
    if (!Number.isInteger(size) || size < 1) {
      throw new ConfigurationError(
        `CampaignTracker batchSize must be a positive integer; got ${String(size)}.`,
      );
    }
    this.#batchSize = size;
    this.#parkMs = durationMs(store.parkMs, "new CampaignTracker: the store's `parkMs`", DEFAULT_PARK_MS);
    const age =
      options.maxBatchAgeMs === undefined
        ? undefined
        : durationMs(options.maxBatchAgeMs, 'new CampaignTracker: `maxBatchAgeMs`');
    if (age !== undefined && age > this.#parkMs / 2) {
      throw new ConfigurationError(
        `CampaignTracker maxBatchAgeMs must be at most half of the store's parkMs (${this.#parkMs} ms), so that a status parked before its send result is still there when the result is written; got ${age}.`,
      );
    }
    this.#maxAgeMs = age ?? Math.min(1000, this.#parkMs / 2);
    const clock = options.clock ?? SYSTEM_CLOCK;
    if (![clock.now, clock.setTimeout, clock.clearTimeout].every((f) => typeof f === 'function')) {
      throw new ConfigurationError('CampaignTracker clock must have now(), setTimeout() and clearTimeout().');
    }
    this.#clock = clock;
  }

  /**
   * Records send results of a campaign yourself: results `sendMany` could not record (`CampaignRecordError`),
   * or sends made another way. Each needs the recipient it was for.
   *
   * @example
   * await tracker.record('spring-sale', [{ result, to: '998901234567' }]);
   */
  async record(campaign: string, results: Iterable<CampaignResult>): Promise<void> {
    checkCampaign(campaign, 'tracker.record');
    const batch = new Batch(this.#clock.now);
    for (const r of results) {
      batch.add(r);
      if (batch.size >= this.#batchSize) await this.#write(campaign, batch.take());
    }
    if (batch.size > 0) await this.#write(campaign, batch.take());
  }

  /**
   * Applies a status event (from `parseWebhook`/`onEvent`, any other event is ignored) or a raw `statuses[]`
   * object; typed to stand as an `onEvent` itself. A status for a wamid in no campaign costs one lookup and
   * writes nothing (unless a campaign send is under way, see `CampaignStore.sending`).
   *
   * @example
   * createWebhookHandler({ secret, onEvent: (event) => tracker.apply(event) });
   */
  async apply(input: StatusEvent | WebhookStatus | WebhookEvent): Promise<void> {
    const raw = rawStatusOf(input);
    const wamid = raw?.id;
    if (raw === undefined || typeof wamid !== 'string' || wamid.length === 0 || wamid.length > MAX_WAMID)
      return;
    await this.#apply(wamid, raw, true);
  }

  /** One status through the store's compare-and-set (core/compare-and-set.ts): `ContentionError` if it keeps losing. */
  #apply(wamid: string, raw: WebhookStatus, park: boolean): Promise<boolean> {
    return compareAndSet('tracker.apply', async () => {
      const found = await this.store.lookup(wamid, () => (park ? JSON.stringify(raw) : ''));
      if (!found) return false;
      const { status, billable, to } = decodeState(found.state);
      const result = applyStatus(snapshotOf(wamid, status, billable), raw);
      if (result.ignored || !result.current) return true;
      const now = result.changed ? result.current.status : status;
      const counts: Record<string, number> = {};
      const examples: Record<string, string> = {};
      let retry: string | undefined;
      if (result.changed) {
        counts[`s:${status}`] = -1;
        counts[`s:${now}`] = 1;
        if (now === 'failed') {
          const code = String(result.current.errors?.[0]?.code ?? 'unknown');
          counts[`f:${code}`] = 1;
          examples[`fx:${code}`] = wamid;
          // Every failure is kept: whether it is retried is the reading tracker's call (`report().retries()`).
          retry = JSON.stringify({ to, code, wamid });
        }
      }
      if (result.newlyBillable) counts['billable'] = 1;
      const seconds = parseTimestamp(raw.timestamp);
      const written = await this.store.commit({
        campaign: found.campaign,
        wamid,
        expected: found.state,
        next: encodeState(now, billable || result.newlyBillable, to),
        counts,
        examples,
        eventAt: seconds === undefined ? undefined : seconds * 1000,
        retry,
      });
      return written ? true : LOST_RACE;
    });
  }

  /**
   * The campaign's report; `undefined` when nothing was recorded for it.
   *
   * @example
   * const report = await tracker.report('spring-sale');
   * console.log(report?.funnel);
   * for await (const r of report!.retries()) queueRetry(r.to);
   */
  async report(campaign: string): Promise<CampaignReport | undefined> {
    checkCampaign(campaign, 'tracker.report');
    const totals = await this.store.totals(campaign);
    if (!totals) return undefined;
    const n = (k: string) => totals.counts[k] ?? 0;
    const latest: Record<CampaignMessageStatus, number> = {
      accepted: n('s:accepted'),
      sent: n('s:sent'),
      delivered: n('s:delivered'),
      read: n('s:read'),
      failed: n('s:failed'),
    };
    const failures: CampaignReport['failures'] = [];
    const refusals: CampaignReport['refusals'] = [];
    for (const [key, count] of Object.entries(totals.counts)) {
      if (key.startsWith('f:') && count > 0) {
        const code = key.slice(2);
        failures.push({ code, count, exampleWamid: totals.examples[`fx:${code}`] ?? '' });
      } else if (key.startsWith('r:') && count > 0) {
        const code = key.slice(2);
        refusals.push({
          code,
          count,
          notSent: n(`rn:${code}`),
          exampleTo: totals.examples[`rx:${code}`] ?? '',
        });
      }
    }
    failures.sort((a, b) => b.count - a.count || a.code.localeCompare(b.code));
    refusals.sort((a, b) => b.count - a.count || a.code.localeCompare(b.code));
    const time = (k: string) => (totals.counts[k] === undefined ? null : new Date(n(k)).toISOString());
    const store = this.store;
    const retryable = this.#retryable;
    return {
      campaign,
      funnel: {
        accepted: n('accepted'),
        sent: latest.sent + latest.delivered + latest.read,
        delivered: latest.delivered + latest.read,
        read: latest.read,
        failed: latest.failed,
        notSent: n('notSent'),
        maybeSent: n('maybeSent'),
      },
      latest,
      failures,
      refusals,
      billable: n('billable'),
      firstEventAt: time('firstEventAt'),
      lastEventAt: time('lastEventAt'),
      firstSendAt: time('firstSendAt'),
      lastSendAt: time('lastSendAt'),
      async *retries() {
        for await (const page of store.refusals(campaign)) {
          for (const text of page) {
            const r = JSON.parse(text) as CampaignRefusal;
            if (r.notSent && !NEVER_RESENT.has(r.code)) {
              const retry: CampaignRetry = { to: r.to, reason: 'not_sent', code: r.code, index: r.index };
              if (typeof r.key === 'string') retry.key = r.key;
              yield retry;
            }
          }
        }
        for await (const page of store.failedRetries(campaign)) {
          for (const text of page) {
            const f = JSON.parse(text) as { to: string; code: string; wamid: string };
            if (retryable.has(f.code)) yield { to: f.to, reason: 'failed', code: f.code, wamid: f.wamid };
          }
        }
      },
      async *refused() {
        for await (const page of store.refusals(campaign)) {
          for (const text of page) yield JSON.parse(text) as CampaignRefusal;
        }
      },
    };
  }

  /**
   * One accepted message of a campaign, by its wamid (`sendMany`'s `messageId`): its recipient and latest status;
   * `undefined` for a wamid the campaign did not record (a refusal has none: `report.refused()` lists those). The
   * store keeps messages by wamid only: finding one by its recipient would take a scan of the campaign, so there is
   * no such lookup. Reads only. Throws `ConfigurationError` for a bad campaign id or wamid, or a store of your own
   * without `get`.
   *
   * @example
   * const m = await tracker.message('spring-sale', 'wamid.HBgM...');
   * if (m?.status === 'accepted') console.log('no status event yet for', m.to);
   */
  async message(campaign: string, wamid: string): Promise<CampaignMessage | undefined> {
    checkCampaign(campaign, 'tracker.message');
    if (typeof wamid !== 'string' || wamid.length === 0) {
      throw new ConfigurationError("tracker.message needs the message's wamid: a non-empty string.");
    }
    const store = this.store;
    if (typeof store.get !== 'function') {
      throw new ConfigurationError(
        'tracker.message needs a store that reads one message (`get(wamid)`): MemoryCampaignStore and RedisCampaignStore do; add it to your own.',
      );
    }
    if (wamid.length > MAX_WAMID) return undefined;
    const found = await store.get(wamid);
    if (found?.campaign !== campaign) return undefined;
    const { status, billable, to } = decodeState(found.state);
    return { campaign, wamid, to, status, billable };
  }

  /**
   * The campaign ids the store holds.
   *
   * @example
   * for (const id of await tracker.campaigns()) console.log(id, (await tracker.report(id))?.funnel);
   */
  campaigns(): Promise<string[]> {
    return this.store.campaigns();
  }

  /**
   * Opens a recording of `campaign`'s send results (the gateway's `CampaignObserver`): what `sendMany(messages,
   * { campaign })` records through, and what any other sender of a campaign uses. Results are written
   * `batchSize` at a time or when the oldest is `maxBatchAgeMs` old; while it is open, the store keeps the note
   * that a campaign send is under way (so a status that beats its result is parked). Close it when done.
   *
   * @example
   * const recorder = tracker.recorder('spring-sale');
   * await recorder.ready; // before the first send
   * await recorder.add({ index: 0, ok: true, messageId: 'wamid.X', contacts: [] }, { to: '998901234567' });
   * await recorder.close(); // throws CampaignRecordError with the results it could not write
   */
  recorder(campaign: string): SendManyRecorder {
    checkCampaign(campaign, 'sendMany campaign');
    return new CampaignRecorder(campaign, {
      sending: () => this.store.sending(campaign),
      write: (batch) => this.#write(campaign, batch),
      clock: this.#clock,
      batchSize: this.#batchSize,
      maxAgeMs: this.#maxAgeMs,
      parkMs: this.#parkMs,
    });
  }

  async #write(
    campaign: string,
    batch: CampaignRecordBatch,
  ): Promise<{ unapplied: WebhookStatus[]; error?: unknown }> {
    const parked = await this.store.record(campaign, batch);
    // Statuses that arrived before their send result: applied now, in arrival order (the rules make order moot).
    // The batch is recorded whatever happens next: a status that cannot be applied is handed back, not the batch,
    // whose second recording would count it twice.
    const unapplied: WebhookStatus[] = [];
    let error: unknown;
    for (const text of parked) {
      let raw: WebhookStatus;
      try {
        raw = JSON.parse(text) as WebhookStatus;
      } catch {
        continue;
      }
      try {
        await this.#apply(raw.id, raw, false);
      } catch (cause) {
        error ??= cause;
        unapplied.push(raw);
      }
    }
    return { unapplied, error };
  }
}

/** A campaign id, wherever one is taken (the tracker, the queue): a `ConfigurationError` for anything else. */
export function checkCampaign(campaign: unknown, where: string): asserts campaign is string {
  if (
    typeof campaign !== 'string' ||
    campaign.length === 0 ||
    campaign.length > 200 ||
    /[\p{Cc}]/u.test(campaign)
  ) {
    throw new ConfigurationError(
      `${where} must be a campaign id: a non-empty string of at most 200 characters without control characters, e.g. 'spring-sale'.`,
    );
  }
}
