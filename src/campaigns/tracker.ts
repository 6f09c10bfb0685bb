/**
 * `CampaignTracker`: joins bulk sends with their status webhooks. Each `sendMany` result of a campaign is
 * recorded (the accepted wamid, or the refusal and its code); each status event then moves its message under
 * `StatusTracker`'s rules (`applyStatus`: never back, `failed` final, a billable delivery counted once), and the
 * campaign's counters move with it in the same atomic store step, so duplicates and any arrival order give the
 * same counts, with one process or many.
 */
import { compareAndSet, LOST_RACE } from '../core/compare-and-set.js';
import { ApiError, ConfigurationError, WaGatewayError } from '../core/errors.js';
import { errorNameOf } from '../core/observer.js';
import type { CampaignObserver, SendManyRecorder, SendManyResult } from '../gateway/send-many.js';
import { parseTimestamp } from '../webhooks/event-fields.js';
import type { StatusEvent, WebhookEvent } from '../webhooks/events.js';
import type { KnownStatusValue, WebhookStatus } from '../webhooks/schemas.js';
import { applyStatus, type TrackedStatus } from '../webhooks/status-tracker.js';
import { type CampaignRecordBatch, type CampaignStore, MemoryCampaignStore } from './store.js';

/** A message's latest status in a campaign: `accepted` until its first status event arrives. */
export type CampaignMessageStatus = 'accepted' | KnownStatusValue;

/** A recipient worth sending to again. */
export interface CampaignRetry {
  /** The recipient as it was given to `sendMany` (`to`). */
  to: string;
  /** `not_sent`: certainly not sent; `failed`: a `failed` status with a code in `retryableFailureCodes`. */
  reason: 'not_sent' | 'failed';
  /** The refusal's code (`BILL_001`, `MessageValidationError`...) or the upstream error code of the failure. */
  code: string;
  /** The position of the message in `sendMany`'s input (for `not_sent`). */
  index?: number;
  /** The wamid of the failed message (for `failed`). */
  wamid?: string;
}

/** A recorded refusal: a `sendMany` result with `ok: false`. */
export interface CampaignRefusal {
  to: string;
  code: string;
  /** `true`: certainly not sent (safe to resend); `false`: it may have been sent (check before resending). */
  notSent: boolean;
  index: number;
}

/** The funnel and what went wrong, from `tracker.report(id)`. */
export interface CampaignReport {
  campaign: string;
  /**
   * How far messages got. `accepted` counts every accepted wamid; `sent`, `delivered` and `read` count those
   * that reached at least that state and did not fail afterwards (`read` implies delivered, which implies sent);
   * `failed` counts messages whose latest status is `failed`; `notSent` the refusals that certainly did not go
   * out; `maybeSent` those that may have (`GW_001`, a fault in flight).
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
  /** Recipients to send to again: refusals that certainly did not go out, and retryable failures. */
  retries(): AsyncIterable<CampaignRetry>;
  /** Every refusal, including those that may have been sent. */
  refused(): AsyncIterable<CampaignRefusal>;
}

export interface CampaignTrackerOptions {
  /** Where campaigns are kept. Default: a `MemoryCampaignStore` (one process). */
  store?: CampaignStore;
  /**
   * Upstream error codes (of a `failed` status's `errors[0].code`) that a later retry can fix, so their
   * recipients appear in `retries()`. Default none: the spec documents no upstream codes, so the SDK does not
   * guess; name the ones your upstream documents as transient.
   */
  retryableFailureCodes?: readonly (number | string)[];
  /** Results buffered by a `sendMany` before they are written in one store step. Default 256. */
  batchSize?: number;
}

/** Some `sendMany` results of a campaign could not be recorded (the store failed); the sends themselves stand. */
export class CampaignRecordError extends WaGatewayError {
  override name = 'CampaignRecordError';
  /** The campaign whose results were not recorded. */
  readonly campaign: string;
  /** Results not recorded: pass them to `tracker.record(campaign, results)` once the store is back. */
  readonly unrecorded: readonly CampaignResult[];
  constructor(campaign: string, unrecorded: readonly CampaignResult[], cause: unknown) {
    super(
      `${unrecorded.length} send results of campaign '${campaign}' could not be recorded (the campaign store failed); the messages were sent as reported. Record them again with tracker.record('${campaign}', error.unrecorded) once the store is reachable.`,
      { cause },
    );
    this.campaign = campaign;
    this.unrecorded = unrecorded;
  }
}

/** A `sendMany` result with the recipient it was for, as `tracker.record` takes it. */
export interface CampaignResult {
  result: SendManyResult;
  to: string;
}

const LETTER: Readonly<Record<CampaignMessageStatus, string>> = {
  accepted: 'a',
  sent: 's',
  delivered: 'd',
  read: 'r',
  failed: 'f',
};
const STATUS_OF: Readonly<Record<string, CampaignMessageStatus>> = {
  a: 'accepted',
  s: 'sent',
  d: 'delivered',
  r: 'read',
  f: 'failed',
};

/** A message's state in one short string (`<status letter><billable 0|1><recipient>`): Redis keeps 100,000s. */
function encodeState(status: CampaignMessageStatus, billable: boolean, to: string): string {
  return `${LETTER[status]}${billable ? '1' : '0'}${to}`;
}

function decodeState(state: string): { status: CampaignMessageStatus; billable: boolean; to: string } {
  return { status: STATUS_OF[state[0] ?? 'a'] ?? 'accepted', billable: state[1] === '1', to: state.slice(2) };
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

/** The code a refusal is counted under: the gateway's code, else the status, else the SDK error's class. */
export function refusalCode(error: WaGatewayError): string {
  if (error instanceof ApiError) return error.code ?? `HTTP_${error.status}`;
  return errorNameOf(error);
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

/** Wamids longer than any the gateway issues are in no campaign: they are never looked up (or parked). */
const MAX_WAMID = 256;

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
    this.#retryable = new Set((options.retryableFailureCodes ?? []).map(String));
    const size = options.batchSize ?? 256;
    if (!Number.isInteger(size) || size < 1) {
      throw new ConfigurationError(
        `CampaignTracker batchSize must be a positive integer; got ${String(size)}.`,
      );
    }
    this.#batchSize = size;
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
    const batch = new Batch();
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
          if (this.#retryable.has(code)) retry = JSON.stringify({ to, code, wamid });
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
            if (r.notSent) yield { to: r.to, reason: 'not_sent', code: r.code, index: r.index };
          }
        }
        for await (const page of store.failedRetries(campaign)) {
          for (const text of page) {
            const f = JSON.parse(text) as { to: string; code: string; wamid: string };
            yield { to: f.to, reason: 'failed', code: f.code, wamid: f.wamid };
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
   * The campaign ids the store holds.
   *
   * @example
   * for (const id of await tracker.campaigns()) console.log(id, (await tracker.report(id))?.funnel);
   */
  campaigns(): Promise<string[]> {
    return this.store.campaigns();
  }

  /**
   * What `sendMany(messages, { campaign })` records the campaign's results through (the gateway's
   * `CampaignObserver`); applications do not call it.
   */
  recorder(campaign: string): CampaignRecorder {
    checkCampaign(campaign, 'sendMany campaign');
    return new CampaignRecorder(campaign, this.store.sending(campaign), this.#batchSize, (batch) =>
      this.#write(campaign, batch),
    );
  }

  async #write(campaign: string, batch: CampaignRecordBatch): Promise<void> {
    const parked = await this.store.record(campaign, batch);
    // Statuses that arrived before their send result: applied now, in arrival order (the rules make order moot).
    for (const text of parked) {
      let raw: WebhookStatus;
      try {
        raw = JSON.parse(text) as WebhookStatus;
      } catch {
        continue;
      }
      await this.#apply(raw.id, raw, false);
    }
  }
}

function checkCampaign(campaign: unknown, where: string): asserts campaign is string {
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

/** Send results buffered into one store step. */
class Batch {
  accepted: { wamid: string; state: string }[] = [];
  refused: string[] = [];
  counts: Record<string, number> = {};
  examples: Record<string, string> = {};
  results: CampaignResult[] = [];
  firstAt = Number.POSITIVE_INFINITY;
  lastAt = 0;

  get size(): number {
    return this.results.length;
  }

  add(entry: CampaignResult): void {
    const { result, to } = entry;
    this.results.push(entry);
    const now = Date.now();
    if (now < this.firstAt) this.firstAt = now;
    if (now > this.lastAt) this.lastAt = now;
    if (result.ok) {
      this.accepted.push({ wamid: result.messageId, state: encodeState('accepted', false, to) });
      this.#count('accepted');
      this.#count('s:accepted');
      return;
    }
    const code = refusalCode(result.error);
    const refusal: CampaignRefusal = { to, code, notSent: result.notSent, index: result.index };
    this.refused.push(JSON.stringify(refusal));
    this.#count(result.notSent ? 'notSent' : 'maybeSent');
    this.#count(`r:${code}`);
    if (result.notSent) this.#count(`rn:${code}`);
    if (!(`rx:${code}` in this.examples)) this.examples[`rx:${code}`] = to;
  }

  #count(key: string): void {
    this.counts[key] = (this.counts[key] ?? 0) + 1;
  }

  take(): CampaignRecordBatch & { results: CampaignResult[] } {
    const taken = {
      accepted: this.accepted,
      refused: this.refused,
      counts: this.counts,
      examples: this.examples,
      firstAt: this.firstAt,
      lastAt: this.lastAt,
      results: this.results,
    };
    this.accepted = [];
    this.refused = [];
    this.counts = {};
    this.examples = {};
    this.results = [];
    this.firstAt = Number.POSITIVE_INFINITY;
    this.lastAt = 0;
    return taken;
  }
}

/**
 * One `sendMany`'s recording (made by `sendMany({ campaign })`, not by applications; its type is published because
 * `sendMany`'s declaration names it): results are buffered and written `batchSize` at a time (the send that
 * fills the buffer waits for the write, so a slow store slows the batch instead of growing memory). A failed
 * write keeps its results; `close` writes what is left and throws `CampaignRecordError` with every result that
 * could not be recorded.
 */
export class CampaignRecorder implements SendManyRecorder {
  readonly #batch = new Batch();
  readonly #unrecorded: CampaignResult[] = [];
  #error: unknown;
  /** `ready` has resolved: sends go straight on, without a promise turn each. */
  isReady = false;
  #closed = false;

  constructor(
    readonly campaign: string,
    /** The store's "a send is under way" mark: every send of the campaign waits for it. */
    readonly ready: Promise<void>,
    private readonly batchSize: number,
    private readonly write: (batch: CampaignRecordBatch) => Promise<void>,
  ) {
    // Its failure is reported by every send that waits on it; never an unhandled rejection.
    ready.then(
      () => {
        this.isReady = true;
      },
      () => {},
    );
  }

  /** Buffers one result (`message` is what `sendMany` was given); a promise only when the buffer is written. */
  add(result: SendManyResult, message: unknown): Promise<void> | undefined {
    const to = (message as { to?: unknown } | null)?.to;
    this.#batch.add({ result, to: typeof to === 'string' ? to : '' });
    // After `close` (the caller left the loop), a send that was in flight still lands: written on its own.
    return this.#batch.size >= this.batchSize || this.#closed ? this.#flush() : undefined;
  }

  async #flush(): Promise<void> {
    if (this.#batch.size === 0) return;
    const taken = this.#batch.take();
    try {
      await this.write(taken);
    } catch (error) {
      this.#error ??= error;
      this.#unrecorded.push(...taken.results);
    }
  }

  /** Writes what is buffered; throws `CampaignRecordError` if any result could not be recorded. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#flush();
    if (this.#unrecorded.length > 0) {
      throw new CampaignRecordError(this.campaign, this.#unrecorded, this.#error);
    }
  }
}
