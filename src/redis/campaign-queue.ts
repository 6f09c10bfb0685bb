/**
 * `CampaignQueue`: campaigns that survive pods and restarts. Messages are enqueued once (by key) into Redis, sent
 * by workers in any number of processes (on BullMQ, one queue per campaign), and each one has a ledger entry,
 * written before its request, that says what became of it: accepted, not sent, or in doubt. See
 * docs/campaigns-at-scale.md.
 */

import {
  type CampaignHold,
  type CampaignQueueStatus,
  type CampaignQueueView,
  waitingOf,
} from '../campaigns/queue-status.js';
import type { CampaignMessageStatus, CampaignRefusal } from '../campaigns/records.js';
import { checkReason, type SuppressionList } from '../campaigns/suppressions.js';
import {
  type CampaignReport,
  type CampaignRetry,
  type CampaignTracker,
  checkCampaign,
  checkRetryableCodes,
} from '../campaigns/tracker.js';
import { boundedDurationMs, durationMs, MAX_TIMER_MS } from '../core/duration.js';
import { ConfigurationError, MessageValidationError } from '../core/errors.js';
import { hasMark, ONE_PROCESS_SUPPRESSIONS } from '../core/one-process.js';
import type { DeepReadonly } from '../core/plain-data.js';
import { RateLimiter } from '../core/rate-limiter.js';
import { storableJson } from '../core/serialise.js';
import type { OutboundMessage } from '../gateway/message-schema.js';
import { prepare } from '../gateway/prepare-message.js';
import type { StatusEvent, WebhookEvent } from '../webhooks/events.js';
import type { WebhookStatus } from '../webhooks/schemas.js';
import { type CampaignJobData, jobIdOf, QueueCore, recordedRefusal } from './campaign-core.js';
import { encodeEntry, keyOf, type LedgerEntry } from './campaign-ledger.js';
import { type CampaignWorker, type CampaignWorkerOptions, startCampaignWorker } from './campaign-worker.js';
import { connectedToClusterNode } from './client.js';
import { CampaignQueueError } from './errors.js';
import { call, clusterClientNeeded } from './replies.js';
import { DEFAULT_RETENTION_MS, openStore, type RedisStoreOptions } from './store-options.js';

export type { CampaignHold, CampaignQueueStatus, CampaignWait } from '../campaigns/queue-status.js';
export type { CampaignWorker, CampaignWorkerOptions } from './campaign-worker.js';

export interface CampaignQueueOptions extends RedisStoreOptions {
  /**
   * How long a campaign's ledger, counters and report are kept after their last write, ms. Default 30 days, at
   * most 10 years. A message still queued when its campaign expires is not sent, so a `startAt` further ahead is
   * refused.
   */
  retentionMs?: number | undefined;
  /**
   * Checked before each send: a suppressed recipient's message is recorded not sent (`SUPPRESSED`) with the
   * list's reason. A list every process shares: `RedisSuppressionList`, or your own over a shared database. A
   * `MemorySuppressionList` (or a subclass) is refused: the workers and the STOP route run in other processes.
   */
  suppressions?: SuppressionList | undefined;
  /**
   * How long a message stays in doubt before `report()` lists it for a person (`inDoubt`), ms. Default 15
   * minutes: statuses arrive within seconds, so what is still in doubt then will not be resolved by one.
   */
  inDoubtAfterMs?: number | undefined;
  /** Upstream failure codes worth retrying, for the report's `retries()` (see `CampaignTrackerOptions`). */
  retryableFailureCodes?: readonly (number | string)[] | undefined;
  /** How long the report parks a status whose send is not recorded yet, ms (`RedisCampaignStore`'s). Default 120,000. */
  parkMs?: number | undefined;
}

export interface EnqueueOptions {
  /** Each message's key: enqueuing a key again adds nothing. Default: the recipient (`to`). */
  key?: ((message: DeepReadonly<OutboundMessage>, index: number) => string) | undefined;
  /**
   * The campaign starts then (a `Date` or ms since the epoch, at most `retentionMs` ahead); default now. Given at
   * its first enqueue: a later enqueue without it follows the campaign's, one with another time is refused
   * (`CampaignQueueError`, `start_at_differs`).
   */
  startAt?: Date | number | undefined;
  /** Messages written to Redis per step. Default 500. */
  batchSize?: number | undefined;
}

export interface EnqueueResult {
  /** Messages added now. */
  added: number;
  /** Keys the campaign had already (nothing added for them; those still queued got their job back if it was missing). */
  existing: number;
}

/** A message in doubt, for a person: resend it (`resend`) or let it be (`drop`) once its status events are checked. */
export interface InDoubtMessage {
  key: string;
  to: string;
  /** Its position in the campaign, from 1. */
  position: number;
  /** Why: its worker `died` with the request allowed out, or the request was `cut` in flight. */
  why: 'died' | 'cut';
  /** When its request was allowed out, and when it went in doubt, ISO 8601. */
  attemptedAt: string;
  since: string;
}

/** What every `CampaignQueueMessage` says, whatever its state. */
interface QueueMessageFields {
  campaign: string;
  /** The key it was enqueued under (its recipient unless enqueued with `key`). */
  key: string;
  to: string;
  /** Its position in the campaign, from 1 (enqueue order). */
  position: number;
  /**
   * When its request was last allowed out, ISO 8601; `null` when none was (still queued, queued again by
   * `resend`, or stopped before a request: cancelled, suppressed).
   */
  startedAt: string | null;
}

/**
 * One message of a queue campaign, from `queue.message(id, key)`, as its ledger entry says:
 * - `queued`: not sent (yet, or again); `waitsBehind` names the message in doubt that holds its recipient, when
 *   one does (in this campaign or another: no message to a recipient starts while one to them is in doubt);
 * - `sending`: its request may be out (a worker holds it);
 * - `accepted`: with its `wamid`, and its latest `status` from the campaign's report (`accepted` until its first
 *   status event; `null` when the report has no record of it, e.g. expired);
 * - `not_sent`: final, with the refusal's `code` (`SUPPRESSED`, `CANCELLED`, `GW_001`, `BILL_001`...);
 * - `in_doubt`: `why` its worker `died` or its request was `cut` in flight: check, then `resend` or `drop`;
 * - `dropped`: it was in doubt and a person dropped it (it may have been sent).
 */
export type CampaignQueueMessage = QueueMessageFields &
  (
    | { state: 'queued'; waitsBehind?: { campaign: string; key: string | null } }
    | { state: 'sending' | 'dropped' }
    | { state: 'accepted'; wamid: string; status: CampaignMessageStatus | null }
    | { state: 'not_sent'; code: string }
    | { state: 'in_doubt'; why: 'died' | 'cut' }
  );

/** The campaign's report (`CampaignTracker`'s) joined with the queue's view. */
export interface CampaignQueueReport extends CampaignReport {
  queue: CampaignQueueStatus;
  /** In doubt for longer than `inDoubtAfterMs`: for a person. */
  inDoubt: InDoubtMessage[];
}

const DEFAULT_IN_DOUBT_AFTER_MS = 15 * 60_000;
/** The longest `retentionMs` (and `inDoubtAfterMs`, `parkMs`): ten years, well within Redis's expiry and a `Date`. */
const MAX_RETENTION_MS = 10 * 365 * 86_400_000;

/**
 * A durable campaign queue on Redis and BullMQ: enqueue a campaign once (by key; again, nothing is added), send it
 * from workers in any number of processes, follow it with `status` and `report`.
 *
 * - **Enqueue** from any iterable or async cursor, in steps of `batchSize`; enqueuing the same keys again completes
 *   an enqueue that was cut off. `startAt` schedules it.
 * - **Workers** (`queue.work({ gateway })`) send through the `GatewayClient` (and its `RedisRateLimiter`); two
 *   messages to one recipient are never in flight at once, and go in enqueue order.
 * - **A ledger entry per message**, written before its request: accepted (wamid), not sent (code), or in doubt.
 *   A message in doubt is never resent by itself: `apply` (in the webhook handler) resolves it from its status,
 *   and what stays in doubt is listed (`inDoubt`) for `resend` or `drop`.
 * - **`BILL_001`** (and the gateway's other refusals of the account) pause the campaign for every worker, the
 *   reason kept; `resume` continues. `RATE_001` holds every worker for its `retry_after`. `cancel` ends it.
 * - **Opt-outs**: `suppressions` is asked before each send.
 *
 * @example
 * import { Redis } from 'ioredis';
 * import { CampaignQueue, RedisRateLimiter, RedisSuppressionList } from 'wa-gateway-sdk/redis';
 * const redis = new Redis(process.env.REDIS_URL!);
 * const queue = new CampaignQueue({ redis, suppressions: new RedisSuppressionList({ redis }) });
 * await queue.enqueue('spring-sale', customers.map(toMessage));
 * // worker processes:   queue.work({ gateway: new GatewayClient({ ..., rateLimit: new RedisRateLimiter({ redis }) }) })
 * // webhook receivers:  onEvent: (event) => queue.apply(event)
 * console.log(await queue.status('spring-sale'));
 */
export class CampaignQueue implements CampaignQueueView {
  readonly #core: QueueCore;
  readonly #inDoubtAfterMs: number;

  constructor(options: CampaignQueueOptions) {
    const op = 'new CampaignQueue';
    const { redis, keys, prefix, logger } = openStore(options, op);
    const retentionMs = boundedDurationMs(
      options.retentionMs,
      `${op}: \`retentionMs\``,
      DEFAULT_RETENTION_MS,
      MAX_RETENTION_MS,
    );
    this.#inDoubtAfterMs = boundedDurationMs(
      options.inDoubtAfterMs,
      `${op}: \`inDoubtAfterMs\``,
      DEFAULT_IN_DOUBT_AFTER_MS,
      MAX_RETENTION_MS,
    );
    const retryable = checkRetryableCodes(options.retryableFailureCodes, op);
    const suppressions = options.suppressions;
    if (suppressions !== undefined && typeof suppressions?.reasonFor !== 'function') {
      throw new ConfigurationError(
        `${op}: \`suppressions\` must be a SuppressionList (RedisSuppressionList, or your own over a shared database).`,
      );
    }
    // The workers run in many processes, and a STOP is added by the webhook receiver, another one: a list of one
    // process would let the customer who opted out get the campaign, with no error anywhere.
    if (hasMark(suppressions, ONE_PROCESS_SUPPRESSIONS)) {
      throw new ConfigurationError(
        `${op}: \`suppressions\` is a MemorySuppressionList, which lives in one process; the queue's workers run in many, and a STOP is added by your webhook receiver: a customer who opted out would still get the campaign. Give it a RedisSuppressionList ({ redis }, the same Redis), shared by every process.`,
      );
    }
    this.#core = new QueueCore({
      redis,
      keys,
      prefix,
      retentionMs,
      parkMs: boundedDurationMs(options.parkMs, `${op}: \`parkMs\``, 120_000, MAX_RETENTION_MS),
      retryableFailureCodes: retryable,
      suppressions,
      logger,
    });
  }

  /**
   * The campaigns' report (`CampaignTracker` over `RedisCampaignStore`, same Redis and prefix): what `report`
   * joins with the queue's view, and what the CLI's `campaign report` reads.
   */
  get tracker(): CampaignTracker {
    return this.#core.tracker;
  }

  /**
   * Adds a campaign's messages, each under its key (default its recipient): a key the campaign has already adds
   * nothing. Written `batchSize` at a time, each step one script, then its jobs; an enqueue cut off half-way is
   * completed by enqueuing the same messages again. No messages at all creates the campaign, `finished` with
   * nothing to send. Each message is checked before it is written; an array is checked whole before anything is
   * written, while a cursor is read as it goes, so a bad message there stops the enqueue after the batches before
   * it (its error says how many: fix it and enqueue the same messages again). Throws
   * `CampaignQueueError` (`cancelled`) for a cancelled campaign, `MessageValidationError` for a message the
   * gateway's rules refuse, `ConfigurationError` for a message without a key or one that is not JSON.
   *
   * @example
   * const { added } = await queue.enqueue('spring-sale', readCustomers(), { startAt: new Date('2025-03-01T09:00:00Z') });
   */
  async enqueue(
    campaign: string,
    messages: Iterable<DeepReadonly<OutboundMessage>> | AsyncIterable<DeepReadonly<OutboundMessage>>,
    options: EnqueueOptions = {},
  ): Promise<EnqueueResult> {
    const op = 'CampaignQueue.enqueue';
    this.#core.checkOpen(op);
    checkCampaign(campaign, op);
    if (typeof options !== 'object' || options === null) {
      throw new ConfigurationError(`${op}: the options must be an object ({ key?, startAt?, batchSize? }).`);
    }
    if (options.key !== undefined && typeof options.key !== 'function') {
      throw new ConfigurationError(
        `${op}: \`key\` must be a function (message, index) => string; omit it to key each message by its \`to\`.`,
      );
    }
    const size = options.batchSize ?? 500;
    if (!Number.isInteger(size) || size < 1 || size > 10_000) {
      throw new ConfigurationError(`${op}: \`batchSize\` must be an integer from 1 to 10,000.`);
    }
    const startAt =
      options.startAt === undefined
        ? undefined
        : timeOf(options.startAt, `${op}: \`startAt\``, this.#core.retentionMs);
    const keyOfMessage = options.key ?? defaultKey;
    const result: EnqueueResult = { added: 0, existing: 0 };
    let batch: { message: DeepReadonly<OutboundMessage>; key: string }[] = [];
    const flush = async () => {
      const taken = batch;
      batch = [];
      if (taken.length > 0) await this.#enqueueBatch(campaign, taken, startAt, result);
    };
    if (!isIterable(messages)) {
      throw new ConfigurationError(
        `${op} takes the messages as an iterable or an async iterable (a cursor).`,
      );
    }
    // Checked as the worker will check it, before it is written: a message that cannot be sent, or stored, never
    // gets a ledger entry that no job could carry.
    const entryOf = (message: DeepReadonly<OutboundMessage>, index: number) => {
      checkMessage(message, index, op);
      const key = keyOfMessage(message, index);
      if (typeof key !== 'string' || key === '' || key.length > 256 || /\p{Cc}/u.test(key)) {
        throw new ConfigurationError(
          `${op}: message ${index} has no key: give each message a \`to\`, or a \`key\` function answering 1 to 256 characters without control characters.`,
        );
      }
      return { message, key };
    };
    let index = 0;
    // An array is all there: checked whole first (a hole too), so a bad message writes nothing.
    const whole = Array.isArray(messages)
      ? Array.from(messages as readonly DeepReadonly<OutboundMessage>[], (m, i) => entryOf(m, i))
      : undefined;
    for (const entry of whole ?? []) {
      batch.push(entry);
      index++;
      if (batch.length >= size) await flush();
    }
    for await (const message of (whole === undefined ? messages : []) as AsyncIterable<
      DeepReadonly<OutboundMessage>
    >) {
      try {
        batch.push(entryOf(message, index));
      } catch (error) {
        const written = result.added + result.existing;
        if (written > 0 && error instanceof Error) {
          error.message +=
            ` (${written} message(s) before it were enqueued, and are sent when the campaign runs: fix or remove ` +
            'this one and enqueue the same messages again; those enqueued already add nothing)';
        }
        throw error;
      }
      index++;
      if (batch.length >= size) await flush();
    }
    await flush();
    // No messages at all (an empty segment): the campaign is created all the same, finished with none to send,
    // so that `status`, `report` and the CLI know it rather than answering that there is no such campaign.
    if (index === 0) await this.#enqueueBatch(campaign, [], startAt, result);
    return result;
  }

  async #enqueueBatch(
    campaign: string,
    batch: readonly { message: DeepReadonly<OutboundMessage>; key: string }[],
    startAt: number | undefined,
    result: EnqueueResult,
  ): Promise<void> {
    const op = 'CampaignQueue.enqueue';
    const core = this.#core;
    const rows = batch.map(({ message, key }) => {
      const to = typeof message.to === 'string' ? message.to : '';
      return { message, kh: core.kh(key), rh: core.rh(to), to, key: key === to ? '' : key };
    });
    const written = await call(op, () => core.ledger.enqueue(campaign, Date.now(), startAt, rows));
    if (written === 'cancelled') {
      throw new CampaignQueueError(
        `${op}: campaign '${campaign}' was cancelled; enqueue under another campaign id.`,
        'cancelled',
      );
    }
    if ('startAtDiffers' in written) {
      const stored = written.startAtDiffers;
      throw new CampaignQueueError(
        `${op}: campaign '${campaign}' was enqueued ${stored === undefined ? 'without a startAt' : `to start at ${isoTime(stored) ?? stored}`}, and its messages queued keep that; enqueue more without \`startAt\` (they follow the campaign's), or under another campaign id.`,
        'start_at_differs',
      );
    }
    const { answers } = written;
    // The campaign's start, as its first enqueue gave it: a later step without `startAt` follows it too.
    const delay = written.startAt === undefined ? 0 : Math.max(0, written.startAt - Date.now());
    const jobs: { name: string; data: CampaignJobData; opts: Record<string, unknown> }[] = [];
    const seen = new Set<string>();
    answers.forEach((answer, i) => {
      const row = rows[i]!;
      // The same key twice in one step: the first is the message.
      if (seen.has(row.kh)) {
        result.existing++;
        return;
      }
      seen.add(row.kh);
      if (typeof answer === 'number') result.added++;
      else result.existing++;
      // A queued message gets its job (added now, or missing after an enqueue cut off before its jobs).
      if (typeof answer === 'number' || answer.state === 'q') {
        const pos = typeof answer === 'number' ? answer : answer.pos;
        const queued = encodeEntry({
          state: 'q',
          pos,
          to: row.to,
          token: '',
          startedAt: 0,
          detail: '',
          key: row.key,
        });
        jobs.push({
          name: 'm',
          data: { v: 1, c: campaign, k: row.kh, e: queued, m: row.message },
          opts: { jobId: jobIdOf(row.kh), delay, ...jobOptions(core.retentionMs) },
        });
      }
    });
    if (jobs.length > 0) await call(op, () => core.withBull(campaign, (q) => q.addBulk(jobs)));
    // After the step's messages and jobs: a worker that looked before them sees the campaign again now.
    await core.register(campaign);
  }

  /**
   * Starts sending in this process: every campaign with messages queued (now and later) is worked on, `concurrency`
   * messages at once. Close it on shutdown.
   *
   * @example
   * const worker = queue.work({ gateway: gw, concurrency: 16 });
   * process.on('SIGTERM', () => void worker.close());
   */
  work(options: CampaignWorkerOptions): CampaignWorker {
    this.#core.checkOpen('CampaignQueue.work');
    return startCampaignWorker(this.#core, checkWorkerOptions(options));
  }

  /**
   * Applies a status event (any other event is ignored): the campaign's report moves (`tracker.apply`), and a
   * message in doubt is resolved when this status is its evidence. Typed to stand as an `onEvent` itself.
   *
   * @example
   * createNodeWebhookHandler({ secret, onEvent: (event) => queue.apply(event) });
   */
  async apply(input: StatusEvent | WebhookStatus | WebhookEvent): Promise<void> {
    this.#core.checkOpen('CampaignQueue.apply');
    await this.#core.tracker.apply(input);
    const raw = rawStatusOf(input);
    if (raw) await this.#core.witness(raw);
  }

  /**
   * What a call that found no campaign (or no message) answers: `answer` (`undefined`, or the `unknown_campaign`
   * error to throw), unless the client is a standalone one connected to a node of a Redis Cluster. It reads the
   * campaign's keys under their one-Redis names there, which may sit on that node and be empty: "no such
   * campaign" would be a wrong answer, so it is refused as every call of such a client is (`needs_cluster_client`).
   */
  async #absent<T>(op: string, answer?: T): Promise<T> {
    if (await connectedToClusterNode(this.#core.redis)) throw clusterClientNeeded(op);
    return answer as T;
  }

  /**
   * Where a campaign stands; `undefined` for a campaign never enqueued (or expired).
   *
   * @example
   * const s = await queue.status('spring-sale');
   * if (s?.state === 'paused') console.log(s.hold?.code, s.hold?.description);
   */
  async status(campaign: string): Promise<CampaignQueueStatus | undefined> {
    this.#core.checkOpen('CampaignQueue.status');
    checkCampaign(campaign, 'CampaignQueue.status');
    const { counts, now } = await call('CampaignQueue.status', () =>
      this.#core.ledger.countsAndNow(campaign),
    );
    if (Object.keys(counts).length === 0) return this.#absent('CampaignQueue.status');
    const n = (k: string) => Number(counts[k] ?? 0);
    const startAt = counts['startAt'] === undefined ? n('createdAt') : n('startAt');
    let hold: CampaignHold | undefined;
    try {
      hold = counts['reason'] ? (JSON.parse(counts['reason']) as CampaignHold) : undefined;
    } catch {
      hold = undefined;
    }
    const stored = counts['state'];
    const state: CampaignQueueStatus['state'] =
      stored === 'cancelled' || stored === 'paused'
        ? stored
        : n('queued') + n('sending') === 0
          ? 'finished'
          : startAt > Date.now() && n('accepted') + n('notSent') + n('sending') + n('inDoubt') === 0
            ? 'scheduled'
            : 'running';
    return {
      campaign,
      state,
      hold,
      waiting: state === 'running' ? waitingOf(n('heldUntil'), n('replicasUntil'), now) : undefined,
      startAt: startAt > 0 ? isoTime(startAt) : null,
      total: n('total'),
      queued: n('queued'),
      inFlight: n('sending'),
      accepted: n('accepted'),
      resolved: n('resolved'),
      notSent: n('notSent'),
      suppressed: n('suppressed'),
      cancelled: n('cancelled'),
      inDoubt: n('inDoubt'),
      dropped: n('dropped'),
    };
  }

  /**
   * The campaign's report (the funnel from the status webhooks, refusals, retries) joined with `status`, and the
   * messages in doubt for longer than `inDoubtAfterMs`. `undefined` for an unknown campaign. Its `retries()` and
   * `refused()` give each message's `key` and `index` (its position from 0), a failed one's found in the ledger.
   *
   * @example
   * const report = await queue.report('spring-sale');
   * for (const m of report?.inDoubt ?? []) console.log('check', m.to, m.attemptedAt);
   */
  async report(campaign: string): Promise<CampaignQueueReport | undefined> {
    const queue = await this.status(campaign);
    if (!queue) return undefined;
    const report = (await this.#core.tracker.report(campaign)) ?? emptyReport(campaign);
    const inDoubt = await this.inDoubt(campaign, { olderThanMs: this.#inDoubtAfterMs });
    const retries = report.retries;
    return Object.assign(report, {
      queue,
      inDoubt,
      retries: () => this.#keyedRetries(campaign, retries()),
    });
  }

  /**
   * The report's retries, each failed message with its key and position: a `failed` status names only its wamid,
   * so those are found in the ledger (one pass over it, only when there are any). A refusal kept its own.
   */
  async *#keyedRetries(
    campaign: string,
    retries: AsyncIterable<CampaignRetry>,
  ): AsyncIterable<CampaignRetry> {
    const failed: CampaignRetry[] = [];
    for await (const retry of retries) {
      if (retry.reason === 'failed' && retry.wamid !== undefined) failed.push(retry);
      else yield retry;
    }
    if (failed.length === 0) return;
    const wanted = new Set(failed.map((retry) => retry.wamid));
    const found = new Map<string, LedgerEntry>();
    const pages = this.#core.ledger.scan(campaign)[Symbol.asyncIterator]();
    while (found.size < wanted.size) {
      const page = await call('CampaignQueue.report', () => pages.next());
      if (page.done) break;
      for (const [, entry] of page.value) {
        if (entry.state === 'a' && wanted.has(entry.detail)) found.set(entry.detail, entry);
      }
    }
    await pages.return?.(undefined);
    for (const retry of failed) {
      const entry = found.get(retry.wamid!);
      yield entry === undefined ? retry : { ...retry, index: entry.pos - 1, key: keyOf(entry) };
    }
  }

  /**
   * One message, by the key it was enqueued under (its recipient unless enqueued with `key`): what became of it,
   * from its ledger entry, and for an accepted one its latest status from the report. `undefined` for a key the
   * campaign does not have, or an unknown campaign. Reads only. Throws `ConfigurationError` for a bad campaign id
   * or an empty key.
   *
   * @example
   * const m = await queue.message('spring-sale', '998901234567');
   * if (m?.state === 'accepted' && m.status === 'accepted') console.log('accepted, no status yet:', m.wamid);
   */
  async message(campaign: string, key: string): Promise<CampaignQueueMessage | undefined> {
    const op = 'CampaignQueue.message';
    this.#core.checkOpen(op);
    checkCampaign(campaign, op);
    if (typeof key !== 'string' || key === '') throw new ConfigurationError(`${op}: give the message's key.`);
    const core = this.#core;
    const kh = core.kh(key);
    const entry = await call(op, () => core.ledger.entry(campaign, kh));
    if (entry === undefined) return this.#absent(op);
    const fields: QueueMessageFields = {
      campaign,
      key: keyOf(entry),
      to: entry.to,
      position: entry.pos,
      startedAt: entry.startedAt > 0 ? isoTime(entry.startedAt) : null,
    };
    switch (entry.state) {
      case 'q': {
        const held = await call(op, () => core.recipients.doubtOf(core.rh(entry.to)));
        if (held === undefined || (held.campaign === campaign && held.kh === kh))
          return { ...fields, state: 'queued' };
        // The other message's own entry says whether it is still in doubt: a record left by a `resend` or `drop`
        // cut off is set right by the next worker that meets it. `null` key: that campaign has expired.
        const other = await call(op, () => core.ledger.entry(held.campaign, held.kh));
        if (other !== undefined && other.state !== 'd') return { ...fields, state: 'queued' };
        const waitsBehind = { campaign: held.campaign, key: other === undefined ? null : keyOf(other) };
        return { ...fields, state: 'queued', waitsBehind };
      }
      case 's':
        return { ...fields, state: 'sending' };
      case 'a': {
        const found = await call(op, () => core.tracker.message(campaign, entry.detail));
        return { ...fields, state: 'accepted', wamid: entry.detail, status: found?.status ?? null };
      }
      case 'd':
        return { ...fields, state: 'in_doubt', why: entry.detail === 'cut' ? 'cut' : 'died' };
      default:
        // `drop` records its message not sent with `IN_DOUBT`: it may have been sent.
        return entry.detail === 'IN_DOUBT'
          ? { ...fields, state: 'dropped' }
          : { ...fields, state: 'not_sent', code: entry.detail };
    }
  }

  /**
   * The messages in doubt, oldest first (at most `limit`, default 1,000): all of them, or those in doubt for
   * longer than `olderThanMs`.
   *
   * @example
   * for (const m of await queue.inDoubt('spring-sale')) console.log(m.key, m.why, m.since);
   */
  async inDoubt(
    campaign: string,
    options: { olderThanMs?: number | undefined; limit?: number | undefined } = {},
  ): Promise<InDoubtMessage[]> {
    const op = 'CampaignQueue.inDoubt';
    this.#core.checkOpen(op);
    checkCampaign(campaign, op);
    if (typeof options !== 'object' || options === null) {
      throw new ConfigurationError(`${op}: the options must be an object ({ olderThanMs?, limit? }).`);
    }
    const { olderThanMs = 0, limit = 1000 } = options;
    if (typeof olderThanMs !== 'number' || !Number.isFinite(olderThanMs) || olderThanMs < 0) {
      throw new ConfigurationError(`${op}: \`olderThanMs\` must be a number of milliseconds from 0.`);
    }
    // No upper bound: a 100,000-message campaign cut by a Redis failover may need all of its doubts listed.
    if (!Number.isSafeInteger(limit) || limit < 1) {
      throw new ConfigurationError(`${op}: \`limit\` must be a whole number from 1.`);
    }
    const until = Date.now() - olderThanMs;
    const listed = await call(op, () => this.#core.ledger.doubts(campaign, until, limit));
    const out: InDoubtMessage[] = [];
    for (const { kh, since } of listed) {
      const entry = await call(op, () => this.#core.ledger.entry(campaign, kh));
      if (entry?.state !== 'd') continue;
      out.push({
        key: keyOf(entry),
        to: entry.to,
        position: entry.pos,
        why: entry.detail === 'cut' ? 'cut' : 'died',
        attemptedAt: new Date(entry.startedAt).toISOString(),
        since: new Date(since).toISOString(),
      });
    }
    // None found: through a standalone client on a cluster node, that may be a key read under another name.
    return out.length > 0 ? out : this.#absent(op, out);
  }

  /**
   * Pauses a campaign for every worker: no send starts after this resolves (those in flight finish). The reason
   * (1 to 200 characters, no control characters) is kept for `status`. Answers `false` when it was paused already
   * (its first reason kept). Throws `CampaignQueueError`: `unknown_campaign` for an id never enqueued (nothing is
   * written), `cancelled` for a cancelled one.
   *
   * @example
   * await queue.pause('spring-sale', 'stopped by marketing: wrong price in the template');
   */
  async pause(campaign: string, reason = 'paused by a person'): Promise<boolean> {
    const op = 'CampaignQueue.pause';
    this.#core.checkOpen(op);
    checkCampaign(campaign, op);
    checkReason(reason, op);
    const before = await this.#core.pause(campaign, {
      code: 'PAUSED',
      description: reason,
      at: new Date().toISOString(),
      by: 'person',
    });
    if (before === 'unknown') throw await this.#absent(op, unknown(campaign, op));
    if (before === 'cancelled') throw cancelled(campaign, 'pause');
    return before === 'running';
  }

  /**
   * Continues a paused campaign (after a top-up, for a `BILL_001`): its messages are taken up again in order.
   * Answers `false` when it was not paused (nothing to resume). Throws `CampaignQueueError`: `unknown_campaign`
   * for an id never enqueued (nothing is written), `cancelled` for a cancelled one.
   *
   * @example
   * if (!(await queue.resume('spring-sale'))) console.log('it was not paused');
   */
  async resume(campaign: string): Promise<boolean> {
    const op = 'CampaignQueue.resume';
    this.#core.checkOpen(op);
    checkCampaign(campaign, op);
    const core = this.#core;
    const before = await call(op, () => core.ledger.state(campaign, 'resume', '', Date.now()));
    if (before === 'unknown') throw await this.#absent(op, unknown(campaign, op));
    if (before === 'cancelled') throw cancelled(campaign, 'resume');
    // Resumed in BullMQ even when the ledger was not paused: a worker's pause may have crossed an earlier resume.
    await call(op, () => core.withBull(campaign, (q) => q.resume()));
    await core.register(campaign);
    return before === 'paused';
  }

  /**
   * Ends a campaign: no message starts any more, and every message that never started is recorded not sent
   * (`CANCELLED`); those in flight finish, those in doubt stay for a person. Final. Answers the campaign's
   * `cancelled` count once its queue is drained: the messages this call recorded not sent, and those the workers'
   * gates stopped meanwhile (a send in flight that is then refused unsent joins the count later, in `status`).
   * Throws `CampaignQueueError` (`unknown_campaign`) for an id never enqueued: nothing is written.
   *
   * @example
   * const stopped = await queue.cancel('spring-sale');
   */
  async cancel(campaign: string, reason = 'cancelled by a person'): Promise<number> {
    const op = 'CampaignQueue.cancel';
    this.#core.checkOpen(op);
    checkCampaign(campaign, op);
    checkReason(reason, op);
    const core = this.#core;
    const hold: CampaignHold = {
      code: 'CANCELLED',
      description: reason,
      at: new Date().toISOString(),
      by: 'person',
    };
    const before = await call(op, () =>
      core.ledger.state(campaign, 'cancel', JSON.stringify(hold), Date.now()),
    );
    if (before === 'unknown') throw await this.#absent(op, unknown(campaign, op));
    await core.finishCancel(campaign, op);
    const counts = await call(op, () => core.ledger.counts(campaign));
    return Number(counts['cancelled'] ?? 0);
  }

  /**
   * Sends a message in doubt again, after a person checked it was not delivered (its status events, the
   * customer). It goes out in its place in its recipient's order. Throws `CampaignQueueError` when the message is
   * not in doubt (`not_in_doubt`), its job is gone (`job_gone`: enqueue it again under a new key) or the campaign
   * was cancelled (`cancelled`: nothing of it is sent any more; `drop` it).
   *
   * @example
   * await queue.resend('spring-sale', '998901234567');
   */
  async resend(campaign: string, key: string): Promise<void> {
    const op = 'CampaignQueue.resend';
    const { entry, kh, rh } = await this.#doubtful(campaign, key, op);
    const core = this.#core;
    const job = await call(op, () => core.withBull(campaign, (q) => q.getJob(jobIdOf(kh))));
    if (!job) {
      throw new CampaignQueueError(
        `${op}: the job of this message is gone (removed from BullMQ); enqueue the message again under a new key.`,
        'job_gone',
      );
    }
    const answer = await core.change(
      campaign,
      kh,
      rh,
      entry,
      { ...entry, state: 'q', token: '', startedAt: 0, detail: '' },
      // Queued again only in a campaign that is not cancelled, in the same step: a cancelled one sends nothing.
      { gate: 'live', doubt: 'remove', counts: { inDoubt: -1, queued: 1 } },
    );
    if (answer.outcome === 'cancelled') throw cancelled(campaign, 'resend');
    if (answer.outcome !== 'ok') throw notInDoubt(op);
    await call(op, () => core.recipients.release(rh, entry.token, 'done'));
    await call(op, () => job.retry('failed', { resetAttemptsMade: true, resetAttemptsStarted: true }));
    await core.register(campaign);
  }

  /**
   * Leaves a message in doubt as it is, for good: recorded in the report as a refusal that may have been sent
   * (`IN_DOUBT`, `maybeSent`), and its recipient's next messages go on. Throws `CampaignQueueError`
   * (`not_in_doubt`) when it is not in doubt.
   *
   * @example
   * await queue.drop('spring-sale', '998901234567');
   */
  async drop(campaign: string, key: string): Promise<void> {
    const op = 'CampaignQueue.drop';
    const { entry, kh, rh } = await this.#doubtful(campaign, key, op);
    const core = this.#core;
    const error = recordedRefusal(
      'IN_DOUBT',
      'in doubt, dropped by a person: it may have been sent (check its status events before sending it again)',
      true,
    );
    const answer = await core.change(
      campaign,
      kh,
      rh,
      entry,
      { ...entry, state: 'n', detail: 'IN_DOUBT' },
      {
        done: true,
        doubt: 'remove',
        counts: { inDoubt: -1, dropped: 1 },
        record: core.recordOf(entry, { index: 0, ok: false, error, notSent: false }),
      },
    );
    if (answer.outcome !== 'ok') throw notInDoubt(op);
    await call(op, () => core.recipients.release(rh, entry.token, 'done'));
    try {
      await core.withBull(campaign, (q) => q.remove(jobIdOf(kh)));
    } catch {
      // Gone already: fine.
    }
  }

  async #doubtful(
    campaign: string,
    key: string,
    op: string,
  ): Promise<{ entry: LedgerEntry; kh: string; rh: string }> {
    this.#core.checkOpen(op);
    checkCampaign(campaign, op);
    if (typeof key !== 'string' || key === '') throw new ConfigurationError(`${op}: give the message's key.`);
    const core = this.#core;
    const kh = core.kh(key);
    const entry = await call(op, () => core.ledger.entry(campaign, kh));
    if (entry === undefined) throw await this.#absent(op, notInDoubt(op));
    if (entry.state !== 'd') throw notInDoubt(op);
    return { entry, kh, rh: core.rh(entry.to) };
  }

  /** Closes the queue's own BullMQ connection (never the client it was given). */
  async close(): Promise<void> {
    await this.#core.close();
  }
}

/**
 * What every job of a campaign is added with: the ledger decides, BullMQ only carries. A message in doubt waits in
 * the failed set with its message, for `resend`, as long as its ledger entry is kept (`retentionMs`): BullMQ drops
 * failed jobs older than that whenever another job of the campaign fails.
 */
function jobOptions(retentionMs: number) {
  return {
    removeOnComplete: true,
    removeOnFail: { age: Math.ceil(retentionMs / 1000) },
    attempts: 1_000_000,
    backoff: { type: 'wa-campaign' },
  } as const;
}

function isIterable(value: unknown): boolean {
  return (
    typeof value === 'object' &&
    value !== null &&
    (typeof (value as Iterable<unknown>)[Symbol.iterator] === 'function' ||
      typeof (value as AsyncIterable<unknown>)[Symbol.asyncIterator] === 'function')
  );
}

/** A message the workers can send (the gateway's rules) and BullMQ can store (JSON), or a typed error. */
function checkMessage(message: unknown, index: number, op: string): void {
  const checked = prepare(message, true, undefined);
  if (!checked.valid) throw new MessageValidationError(checked.issues, `message ${index} (${op})`);
  storableJson(message, `${op}: message ${index}`);
}

function defaultKey(message: DeepReadonly<OutboundMessage>): string {
  return (message as { to?: unknown }).to as string;
}

/**
 * A start time in whole ms since the epoch, one a `Date` holds, at most `retentionMs` ahead: a campaign's keys
 * expire `retentionMs` after their last write, so a later start would find its messages gone.
 */
function timeOf(value: Date | number, name: string, retentionMs: number): number {
  const ms = value instanceof Date ? value.getTime() : value;
  if (typeof ms !== 'number' || !Number.isFinite(ms) || Number.isNaN(new Date(ms).getTime())) {
    throw new ConfigurationError(`${name} must be a valid Date or ms since the epoch.`);
  }
  if (ms > Date.now() + retentionMs) {
    throw new ConfigurationError(
      `${name} is more than the queue's \`retentionMs\` (${retentionMs.toLocaleString('en-US')} ms) ahead: the campaign would expire before it starts. Enqueue it later, or raise \`retentionMs\`.`,
    );
  }
  return Math.floor(ms);
}

/** ISO 8601 of a stored time; `null` for one no `Date` holds (written before such a `startAt` was refused). */
function isoTime(ms: number): string | null {
  const date = new Date(ms);
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}

function checkWorkerOptions(options: CampaignWorkerOptions): CampaignWorkerOptions {
  const op = 'CampaignQueue.work';
  if (typeof options !== 'object' || options === null || typeof options.gateway?.messages !== 'object') {
    throw new ConfigurationError(`${op} needs { gateway: new GatewayClient(...) }.`);
  }
  if (options.gateway.rateLimiter instanceof RateLimiter) {
    throw new ConfigurationError(
      `${op}: the gateway client's rate limiter serves one process only, and workers run in many: give it a RedisRateLimiter (rateLimit: new RedisRateLimiter({ redis })), shared by every worker.`,
    );
  }
  for (const name of ['lockDurationMs', 'recipientLeaseMs', 'pollMs'] as const) {
    // A timer's delay: Node runs a longer one at once (the worker would spin).
    if (options[name] !== undefined)
      boundedDurationMs(options[name], `${op}: \`${name}\``, undefined, MAX_TIMER_MS);
  }
  for (const name of ['concurrency', 'attempts'] as const) {
    const n = options[name];
    if (n !== undefined && (!Number.isInteger(n) || n < 1 || n > 10_000)) {
      throw new ConfigurationError(`${op}: \`${name}\` must be an integer from 1 to 10,000.`);
    }
  }
  const replicas = options.replicas;
  if (replicas !== undefined) {
    if (
      typeof replicas !== 'object' ||
      replicas === null ||
      !Number.isInteger(replicas.count) ||
      replicas.count < 1
    ) {
      throw new ConfigurationError(
        `${op}: \`replicas\` must be { count, timeoutMs? }, count an integer from 1.`,
      );
    }
    // Whole milliseconds, above 0: `WAIT` takes an integer, and 0 would wait for ever. At most a second: a `WAIT`
    // holds the queue's connection, and a worker's gates queue behind one another there.
    const timeoutMs = durationMs(replicas.timeoutMs, `${op}: \`replicas.timeoutMs\``, 100);
    if (timeoutMs > 1000) {
      throw new ConfigurationError(
        `${op}: \`replicas.timeoutMs\` must be at most 1,000 ms; got ${timeoutMs}.`,
      );
    }
    return { ...options, replicas: { count: replicas.count, timeoutMs } };
  }
  return options;
}

/** A status's raw `statuses[]` object, whichever form was given; `undefined` for any other event. */
function rawStatusOf(input: unknown): WebhookStatus | undefined {
  if (typeof input !== 'object' || input === null) return undefined;
  const kind = (input as { kind?: unknown }).kind;
  if (kind !== undefined) return kind === 'status' ? (input as StatusEvent).status : undefined;
  return typeof (input as { id?: unknown }).id === 'string' ? (input as WebhookStatus) : undefined;
}

function emptyReport(campaign: string): CampaignReport {
  const none = async function* <T>(): AsyncIterable<T> {};
  return {
    campaign,
    funnel: { accepted: 0, sent: 0, delivered: 0, read: 0, failed: 0, notSent: 0, maybeSent: 0 },
    latest: { accepted: 0, sent: 0, delivered: 0, read: 0, failed: 0 },
    failures: [],
    refusals: [],
    billable: 0,
    firstEventAt: null,
    lastEventAt: null,
    firstSendAt: null,
    lastSendAt: null,
    retries: () => none<CampaignRetry>(),
    refused: () => none<CampaignRefusal>(),
  };
}

function cancelled(campaign: string, action: string): CampaignQueueError {
  return new CampaignQueueError(
    `CampaignQueue.${action}: campaign '${campaign}' was cancelled (final).`,
    'cancelled',
  );
}

function unknown(campaign: string, op: string): CampaignQueueError {
  return new CampaignQueueError(
    `${op}: unknown campaign '${campaign}': never enqueued under this prefix (or expired); nothing was changed.`,
    'unknown_campaign',
  );
}

function notInDoubt(op: string): CampaignQueueError {
  return new CampaignQueueError(
    `${op}: no message of this campaign is in doubt under that key.`,
    'not_in_doubt',
  );
}
