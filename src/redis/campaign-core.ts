/**
 * What every part of the campaign queue shares: the ledger and the recipients' records over one Redis, the
 * campaign report they record into (a `CampaignTracker` over `RedisCampaignStore`), each campaign's BullMQ queue,
 * and the steps more than one part takes: a result recorded once, a campaign paused, an attempt whose holder is
 * gone reconciled, a message in doubt resolved from a status.
 */
import type * as BullMQ from 'bullmq';
import type { CampaignHold } from '../campaigns/queue-status.js';
import { Batch } from '../campaigns/records.js';
import { type SUPPRESSED_CODE, type SuppressionList, suppressionKey } from '../campaigns/suppressions.js';
import { CampaignTracker } from '../campaigns/tracker.js';
import { WaGatewayError } from '../core/errors.js';
import type { Logger } from '../core/logger.js';
import { log } from '../core/logger.js';
import { loadOptionalPeer } from '../core/optional-peer.js';
import type { SendManyResult } from '../gateway/send-many.js';
import { parseTimestamp } from '../webhooks/event-fields.js';
import type { WebhookStatus } from '../webhooks/schemas.js';
import {
  type ChangeAnswer,
  type ChangeEffects,
  decodeEntry,
  encodeEntry,
  keyOf,
  Ledger,
  type LedgerEntry,
} from './campaign-ledger.js';
import { Recipients } from './campaign-recipients.js';
import { type CampaignSide, campaignSideOf, RedisCampaignStore } from './campaign-store.js';
import type { RedisClient } from './client.js';
import { CampaignQueueError } from './errors.js';
import { closeRedis, openRedis } from './inbox-connection.js';
import { hashId, type KeySpace } from './keys.js';
import { queuePrefix } from './queue-keys.js';
import { call, expectNumber, pipelineAnswers, unexpectedReply } from './replies.js';
import { Script, writes } from './script.js';

/**
 * How many campaigns' BullMQ queues one `CampaignQueue` keeps open between calls (`withBull`), besides those of the
 * campaigns its workers are working on (`keepOpen`).
 */
const KEPT_QUEUES = 16;

/**
 * Registers a campaign as having work, dropping registrations older than the retention. The score is when, and
 * always grows: a worker that read the campaign idle at one registration looks at it again at the next, even
 * within the same millisecond.
 */
const REGISTER = new Script(`
local now = tonumber(ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - tonumber(ARGV[2]))
local cur = redis.call('ZSCORE', KEYS[1], ARGV[3])
if cur and tonumber(cur) >= now then now = tonumber(cur) + 1 end
redis.call('ZADD', KEYS[1], now, ARGV[3])
return 1
`);

/**
 * A refusal the queue records itself (its `name` is the code the report counts it under): a suppressed recipient,
 * a cancelled campaign, a message in doubt a person dropped.
 */
export function recordedRefusal(
  code: typeof SUPPRESSED_CODE | 'CANCELLED' | 'IN_DOUBT',
  description: string,
  mayHaveBeenSent: boolean,
): WaGatewayError {
  const error = new WaGatewayError(description);
  Object.defineProperty(error, 'name', { value: code, enumerable: false });
  Object.defineProperty(error, 'mayHaveBeenSent', { value: mayHaveBeenSent, enumerable: false });
  return error;
}

function sameEntry(a: LedgerEntry | undefined, b: LedgerEntry): boolean {
  return a !== undefined && encodeEntry(a) === encodeEntry(b);
}

/** The BullMQ job id of a message: its key's hash (the ledger's field), free of the `:` BullMQ refuses. */
export function jobIdOf(kh: string): string {
  return `m${kh}`;
}

/** What a message's job holds. Versioned, so a later SDK can tell old jobs from new ones. */
export interface CampaignJobData {
  v: 1;
  /** The campaign. */
  c: string;
  /** The message key's hash. */
  k: string;
  /** Its queued entry (`q|<position>|<to>||||<key>`): what its run expects to find, without reading it first. */
  e: string;
  /** The message, as enqueued. */
  m: unknown;
}

export interface QueueCoreOptions {
  redis: RedisClient;
  keys: KeySpace;
  prefix: string;
  retentionMs: number;
  parkMs: number;
  retryableFailureCodes: readonly (string | number)[];
  suppressions: SuppressionList | undefined;
  logger: Logger | undefined;
}

export class QueueCore {
  readonly redis: RedisClient;
  readonly keys: KeySpace;
  readonly retentionMs: number;
  readonly logger: Logger | undefined;
  readonly suppressions: SuppressionList | undefined;
  readonly store: RedisCampaignStore;
  readonly tracker: CampaignTracker;
  readonly side: CampaignSide;
  readonly ledger: Ledger;
  readonly recipients: Recipients;
  /** BullMQ's key prefix for this queue's campaigns: under the store prefix, so environments stay apart. */
  readonly bullPrefix: string;
  #connection: RedisClient | undefined;
  readonly #queues = new Map<string, { queue: BullMQ.Queue; users: number }>();
  /** The campaigns this process's workers are working on, and how many workers each (`keepOpen`). */
  readonly #worked = new Map<string, number>();
  #closed = false;

  constructor(options: QueueCoreOptions) {
    this.redis = options.redis;
    this.keys = options.keys;
    this.retentionMs = options.retentionMs;
    this.logger = options.logger;
    this.suppressions = options.suppressions;
    this.store = new RedisCampaignStore({
      redis: options.redis,
      prefix: options.prefix,
      retentionMs: options.retentionMs,
      parkMs: options.parkMs,
      ...(options.logger ? { logger: options.logger } : { logLevel: 'off' }),
    });
    this.tracker = new CampaignTracker({
      store: this.store,
      retryableFailureCodes: options.retryableFailureCodes,
    });
    this.side = campaignSideOf(this.store);
    this.recipients = new Recipients(options.redis, options.keys, options.retentionMs);
    this.ledger = new Ledger(options.redis, options.keys, options.retentionMs, this.side, this.recipients);
    this.bullPrefix = `${options.prefix}bull`;
  }

  /**
   * Whether `count` replicas hold this attempt's mark (`s` with `token`), waiting at most `timeoutMs` (Redis
   * `WAIT`), and the mark is still there. One pipeline: the `WAIT`, then a read of the entry. `WAIT` counts only the
   * writes of its own connection, so a `WAIT` that ioredis sends again after a reconnect (to a replica promoted
   * meanwhile, which may never have had the mark) would count replicas of nothing; the read, answered by the same
   * server after the same `WAIT`, tells. On a cluster the entry's key routes the pipeline to the campaign's
   * primary (ioredis does not route a command without a key); `WAIT`, a write command, first keeps it off replicas
   * whatever the client's `scaleReads`.
   */
  async replicasHold(
    campaign: string,
    kh: string,
    token: string,
    count: number,
    timeoutMs: number,
  ): Promise<boolean> {
    const op = 'CampaignQueue.replicas';
    const { ledger } = this.ledger.keysOf(campaign);
    const [holding, value] = pipelineAnswers(
      op,
      await this.redis.pipeline().wait(count, timeoutMs).hget(ledger, kh).exec(),
      2,
      [undefined, ledger],
    );
    if (expectNumber(op, holding) < count) return false;
    if (value === null) return false;
    if (typeof value !== 'string') throw unexpectedReply(op, 'a ledger entry', value);
    const entry = decodeEntry(op, value);
    return entry.state === 's' && entry.token === token;
  }

  /** A recipient's hash: its digits, hashed (a phone number never appears in a key). */
  rh(to: string): string {
    return hashId(suppressionKey(to));
  }

  /** A message key's hash: the ledger's field and the job's id (128 bits). */
  kh(key: string): string {
    return hashId(key).slice(0, 22);
  }

  /** The BullMQ queue name of a campaign: hashed, so any campaign id makes a valid one. */
  queueName(campaign: string): string {
    return `cq-${hashId(campaign).slice(0, 22)}`;
  }

  /** The BullMQ prefix for `client` (hash-tagged by the queue's name on a cluster). */
  bullPrefixOf(client: RedisClient, campaign: string): string {
    return queuePrefix(client, this.bullPrefix, this.queueName(campaign));
  }

  get registryKey(): string {
    return this.keys.name('cq', 'ids');
  }

  /**
   * Runs `use` with the campaign's BullMQ queue, for adding, pausing and removing jobs (one connection for all of
   * them). Queues are kept between calls: every queue of a campaign a worker of this process works on (`keepOpen`),
   * used at each of its polls, and at most `KEPT_QUEUES` others, as a process that runs for months goes through a
   * campaign a day, and each queue holds memory and three listeners on the shared connection. Of those others, the
   * least recently used is closed first, never one a call is using. (Each queue opened costs an `INFO` round trip:
   * a worker with more campaigns than the bound, each used at every poll, would open one at each use.)
   */
  async withBull<T>(campaign: string, use: (queue: BullMQ.Queue) => Promise<T>): Promise<T> {
    this.checkOpen('CampaignQueue');
    let held = this.#queues.get(campaign);
    // Moved to the end: the map's order is the order of use.
    if (held !== undefined) this.#queues.delete(campaign);
    else held = { queue: this.#openBull(campaign), users: 0 };
    this.#queues.set(campaign, held);
    held.users++;
    try {
      return await use(held.queue);
    } finally {
      held.users--;
      this.#trimQueues();
    }
  }

  #openBull(campaign: string): BullMQ.Queue {
    const { Queue } = loadOptionalPeer<typeof BullMQ>('bullmq', 'CampaignQueue');
    this.#connection ??= openRedis(this.redis, {}, this.logger, 'CampaignQueue');
    const queue = new Queue(this.queueName(campaign), {
      connection: this.#connection,
      prefix: this.bullPrefixOf(this.#connection, campaign),
      // The ledger is the record; BullMQ's event stream is not read, so it is kept short.
      streams: { events: { maxLen: 100 } },
    });
    queue.on('error', () => {
      // Logged once per outage by the connection's own listener.
    });
    return queue;
  }

  #trimQueues(): void {
    // The bound is on the queues no worker here keeps open: those are the ones a long-lived process accumulates.
    let others = 0;
    for (const campaign of this.#queues.keys()) if (!this.#worked.has(campaign)) others++;
    for (const [campaign, held] of this.#queues) {
      if (others <= KEPT_QUEUES) return;
      if (held.users > 0 || this.#worked.has(campaign)) continue;
      this.#queues.delete(campaign);
      others--;
      // A shared connection stays open: closing the queue only takes its listeners off it.
      held.queue.close().catch(() => {});
    }
  }

  /**
   * Keeps the campaign's BullMQ queue open (once opened by `withBull`) until the answered function is called: a
   * worker of this process works on the campaign, and uses its queue at each poll. Called by each worker that
   * starts on the campaign; the queue joins the bounded others once the last of them lets it go.
   */
  keepOpen(campaign: string): () => void {
    this.#worked.set(campaign, (this.#worked.get(campaign) ?? 0) + 1);
    let kept = true;
    return () => {
      if (!kept) return;
      kept = false;
      const left = (this.#worked.get(campaign) ?? 1) - 1;
      if (left > 0) this.#worked.set(campaign, left);
      else this.#worked.delete(campaign);
      this.#trimQueues();
    };
  }

  /** How many campaigns' BullMQ queues are open (for tests of the bound). @internal */
  get openQueues(): number {
    return this.#queues.size;
  }

  /** Notes that `campaign` has work, so every worker takes it up; and lists it among the report's campaigns. */
  async register(campaign: string): Promise<void> {
    const now = Date.now();
    await call('CampaignQueue.register', () =>
      REGISTER.run(
        this.redis,
        [writes(this.registryKey, this.retentionMs)],
        [now, this.retentionMs, campaign],
      ),
    );
    await this.side.list(campaign);
  }

  /** One result of one message as the campaign report records it: a refusal with its position and key. */
  recordOf(entry: LedgerEntry, result: SendManyResult) {
    const batch = new Batch();
    batch.add({ result: { ...result, index: entry.pos - 1 }, to: entry.to }, keyOf(entry));
    return batch.take();
  }

  /**
   * Changes an entry (`Ledger.change`); an accepted result's pointer is written in the same step on one Redis and
   * right after it on a cluster, and the statuses parked for it are applied. Tried again while Redis answers with
   * an error (a restart, a failover), up to `patienceMs`: a result known and not written leaves its message in
   * doubt.
   */
  async change(
    campaign: string,
    kh: string,
    rh: string,
    expected: LedgerEntry,
    next: LedgerEntry,
    effects: ChangeEffects = {},
    patienceMs = 0,
  ): Promise<ChangeAnswer> {
    const op = 'CampaignQueue.ledger';
    const giveUpAt = Date.now() + patienceMs;
    let answer: ChangeAnswer;
    for (let wait = 50; ; wait = Math.min(wait * 2, 1000)) {
      try {
        answer = await call(op, () => this.ledger.change(campaign, kh, rh, expected, next, effects));
        break;
      } catch (error) {
        if (Date.now() + wait > giveUpAt) throw error;
        await new Promise((resolve) => setTimeout(resolve, wait));
      }
    }
    // An acceptance found written already, exactly (its wamid is unique): an earlier try of this step was made and
    // its reply lost. Made, then: on a cluster its pointers, the step after, are still to be written, and on one
    // Redis the statuses it found parked are in its notes (below).
    let madeBefore = false;
    if (answer.outcome === 'gone' && next.state === 'a' && sameEntry(answer.current, next)) {
      answer = { outcome: 'ok', parked: [] };
      madeBefore = true;
    }
    if (answer.outcome !== 'ok') return answer;
    const accepted = effects.record?.accepted ?? [];
    if (accepted.length === 0) return answer;
    const parkingKeys = accepted.map((a) => this.side.parkingKey(a.wamid));
    if (this.keys.spread) {
      await this.#pointersApart(campaign, accepted);
    } else if (answer.parked.length > 0) {
      // The ledger's step noted what it found parked: applied now, or by whoever finds the notes if this run dies.
      await this.applyRaw(answer.parked);
      await call('CampaignQueue.ledger', () => this.ledger.parkedApplied(campaign, parkingKeys));
    } else if (madeBefore) {
      await this.#applyNoted(campaign, parkingKeys);
    }
    return answer;
  }

  /**
   * A cluster's pointer step for accepted sends, after the ledger's (the pointers live in their wamids' slots): the
   * statuses found parked are noted before anything else happens to them (`noteParked`), then applied, then
   * deleted with their notes. Idempotent, so a run after a death does it again.
   */
  async #pointersApart(
    campaign: string,
    accepted: readonly { wamid: string; state: string }[],
  ): Promise<void> {
    const op = 'CampaignQueue.ledger';
    const each = await this.side.pointersEach(
      accepted.map((a) => this.side.message(campaign, a.wamid, a.state)),
    );
    const found = new Map<string, string[]>();
    accepted.forEach((a, i) => {
      if ((each[i] ?? []).length > 0) found.set(this.side.parkingKey(a.wamid), each[i]!);
    });
    if (found.size === 0) return;
    await call(op, () => this.ledger.noteParked(campaign, found));
    await call(op, () => this.register(campaign));
    await this.applyRaw([...found.values()].flat());
    await call(op, () => this.ledger.parkedApplied(campaign, [...found.keys()]));
  }

  /**
   * Applies the statuses noted for these parking keys (a step that recorded their sends found them parked), then
   * deletes the notes. Applying a status twice changes nothing, so a note applied by two runs is harmless.
   */
  async #applyNoted(campaign: string, parkingKeys: readonly string[]): Promise<void> {
    const op = 'CampaignQueue.ledger';
    const noted = new Map<string, { at: number; items: string[] }>();
    for (const key of parkingKeys) {
      for (const [k, v] of await call(op, () => this.ledger.parkedNoted(campaign, key))) noted.set(k, v);
    }
    await this.#apply(campaign, noted);
  }

  async #apply(
    campaign: string,
    noted: ReadonlyMap<string, { at: number; items: string[] }>,
    olderThanMs?: number,
  ): Promise<number> {
    const before = olderThanMs === undefined ? Number.POSITIVE_INFINITY : Date.now() - olderThanMs;
    const done: string[] = [];
    for (const [key, { at, items }] of noted) {
      if (at > before) continue;
      await this.applyRaw(items);
      done.push(key);
    }
    await call('CampaignQueue.ledger', () => this.ledger.parkedApplied(campaign, done));
    return noted.size - done.length;
  }

  /**
   * Applies the statuses a dead worker (or receiver) left noted, once noted `olderThanMs` ago: a live one applies its
   * own at once. Answers how many notes remain, so that a campaign with some is not taken for idle.
   */
  async applyParkedLeft(campaign: string, olderThanMs: number): Promise<number> {
    const noted = await call('CampaignQueue.ledger', () => this.ledger.parkedNoted(campaign));
    if (noted.size === 0) return 0;
    return this.#apply(campaign, noted, olderThanMs);
  }

  /** Applies raw statuses (JSON) to the campaign report; a malformed one is skipped. */
  async applyRaw(raws: readonly string[]): Promise<void> {
    for (const text of raws) {
      let raw: WebhookStatus;
      try {
        raw = JSON.parse(text) as WebhookStatus;
      } catch {
        continue;
      }
      await this.tracker.apply(raw);
    }
  }

  /** Pauses a campaign for every worker (the ledger's gate refuses from this step on), then its BullMQ queue. */
  async pause(campaign: string, hold: CampaignHold): Promise<'running' | 'paused' | 'cancelled' | 'unknown'> {
    const before = await call('CampaignQueue.pause', () =>
      this.ledger.state(campaign, 'pause', JSON.stringify(hold), Date.now()),
    );
    if (before === 'running' || before === 'paused') await this.withBull(campaign, (q) => q.pause());
    // The gateway's refusal is news to whoever runs the workers; a person's pause is not.
    if (before === 'running' && hold.by === 'gateway') {
      log(this.logger, 'warn', `wa-gateway-sdk: CampaignQueue paused a campaign (${hold.code})`, {
        campaign,
        by: hold.by,
      });
    }
    return before;
  }

  /**
   * Records every message of a cancelled campaign that is still queued as not sent (`CANCELLED`), then removes
   * their jobs. `cancel` runs it; so does a worker's poll that finds a cancelled campaign with messages still
   * queued (a `cancel` cut off during its scan: a person's Ctrl-C, a pod killed, a Redis error), so the report
   * adds up whichever way it ends. Two runs at once record each message once (the ledger's compare-and-set).
   * `signal` (a worker's closing) stops it between pages.
   */
  async finishCancel(campaign: string, op: string, signal?: AbortSignal): Promise<void> {
    // One queue held across the scan: its pause, the stopped messages, then its drain and resume.
    await this.withBull(campaign, async (bull) => {
      await call(op, () => bull.pause());
      for await (const page of this.ledger.scan(campaign)) {
        // A worker closing stops here; the next poll (its own, or another worker's) goes on from the start.
        if (signal?.aborted) return;
        for (const [kh, entry] of page) {
          if (entry.state !== 'q') continue;
          const error = recordedRefusal(
            'CANCELLED',
            'the campaign was cancelled before this message was sent',
            false,
          );
          await this.change(
            campaign,
            kh,
            this.rh(entry.to),
            entry,
            { ...entry, state: 'n', detail: 'CANCELLED' },
            {
              done: true,
              counts: { queued: -1, notSent: 1, cancelled: 1 },
              record: this.recordOf(entry, { index: 0, ok: false, error, notSent: true }),
            },
          );
        }
      }
      // The jobs of what was stopped: removed, so nothing of the campaign waits in BullMQ.
      await call(op, () => bull.drain(true));
      await call(op, () => bull.resume());
    });
  }

  /** Whether a wamid was recorded by some campaign send: a status for it explains nothing in doubt. */
  async explained(wamid: string): Promise<boolean> {
    return (await call('CampaignQueue.apply', () => this.redis.exists(this.side.pointerKey(wamid)))) === 1;
  }

  /**
   * A status for a recipient with an attempt standing: kept as evidence, or the message in doubt it resolves
   * (see campaign-recipients.ts).
   */
  async witness(raw: WebhookStatus): Promise<void> {
    const wamid = raw.id;
    const to = raw.recipient_id;
    const seconds = parseTimestamp(raw.timestamp);
    if (typeof wamid !== 'string' || typeof to !== 'string' || to === '' || seconds === undefined) return;
    const rh = this.rh(to);
    const op = 'CampaignQueue.apply';
    if (!(await call(op, () => this.recipients.standing(rh)))) return;
    const explained = await this.explained(wamid);
    const text = JSON.stringify(raw);
    const answer = await call(op, () => this.recipients.witness(rh, wamid, seconds, text, explained));
    if (answer.outcome === 'resolve') {
      await this.resolve(rh, answer.campaign, answer.kh, answer.token, wamid, [text]);
    } else if (answer.outcome === 'ambiguous') {
      await this.settle(rh);
    }
  }

  /**
   * Looks at a recipient's attempt in doubt and its evidence: when exactly one wamid seen after the attempt is
   * explained by no recorded send, the message was sent with it. Several: left for a person.
   */
  async settle(rh: string): Promise<void> {
    const attempt = await call('CampaignQueue.settle', () => this.recipients.attempt(rh));
    if (attempt === undefined || attempt.open) return;
    const unexplained: string[] = [];
    for (const wamid of attempt.evidence.keys()) if (!(await this.explained(wamid))) unexplained.push(wamid);
    if (unexplained.length !== 1) return;
    const wamid = unexplained[0]!;
    await this.resolve(rh, attempt.campaign, attempt.kh, attempt.token, wamid, []);
  }

  /**
   * Marks a message in doubt sent with `wamid`, records it in the report (once: the ledger's step), applies the
   * statuses kept for it, and frees its recipient.
   */
  async resolve(
    rh: string,
    campaign: string,
    kh: string,
    token: string,
    wamid: string,
    raws: readonly string[],
  ): Promise<void> {
    const entry = await call('CampaignQueue.resolve', () => this.ledger.entry(campaign, kh));
    if (entry?.state !== 'd' || entry.token !== token) {
      await this.reconcile(rh, campaign, kh, token);
      return;
    }
    const next: LedgerEntry = { ...entry, state: 'a', detail: wamid };
    const answer = await this.change(campaign, kh, rh, entry, next, {
      done: true,
      doubt: 'remove',
      counts: { inDoubt: -1, accepted: 1, resolved: 1 },
      record: this.recordOf(entry, { index: 0, ok: true, messageId: wamid, contacts: [] }),
    });
    if (answer.outcome !== 'ok') return;
    await this.#finishResolved(rh, token, wamid, raws);
    await this.removeJob(campaign, kh);
  }

  /** The statuses kept for a resolved message, applied; its recipient freed. */
  async #finishResolved(rh: string, token: string, wamid: string, raws: readonly string[]): Promise<void> {
    const attempt = await call('CampaignQueue.resolve', () => this.recipients.attempt(rh));
    const kept = attempt?.token === token ? (attempt.evidence.get(wamid) ?? []) : [];
    await this.applyRaw([...raws, ...kept]);
    await call('CampaignQueue.resolve', () => this.recipients.release(rh, token, 'done'));
  }

  /**
   * An attempt whose lock is gone (its holder died, or was too slow to renew) and that stands in the way: set
   * right from the ledger. A request allowed (`s`) may be out: the message is in doubt. Not allowed yet, or
   * decided: the attempt is forgotten (after applying what it kept for a message resolved meanwhile).
   */
  async reconcile(rh: string, campaign: string, kh: string, token: string): Promise<void> {
    const op = 'CampaignQueue.reconcile';
    const entry = await call(op, () => this.ledger.entry(campaign, kh));
    if (entry?.token === token && (entry.state === 's' || entry.state === 'd')) {
      if (entry.state === 's') {
        const answer = await this.change(
          campaign,
          kh,
          rh,
          entry,
          { ...entry, state: 'd', detail: 'died' },
          { doubt: { since: Date.now() }, counts: { sending: -1, inDoubt: 1 } },
        );
        // Changed meanwhile (its holder was alive after all, and wrote its result): look again.
        if (answer.outcome !== 'ok') return this.reconcile(rh, campaign, kh, token);
      }
      await call(op, () => this.recipients.release(rh, token, 'doubt'));
      await this.settle(rh);
      return;
    }
    if (entry?.token === token && entry.state === 'a') {
      // Its run may have died after the step that recorded it and before the statuses parked for it were applied:
      // on a cluster even before its pointer step (done again: it is idempotent), else they are in its notes.
      if (this.keys.spread) {
        const { accepted } = this.recordOf(entry, {
          index: 0,
          ok: true,
          messageId: entry.detail,
          contacts: [],
        });
        await this.#pointersApart(campaign, accepted);
      } else {
        await this.#applyNoted(campaign, [this.side.parkingKey(entry.detail)]);
      }
      await this.#finishResolved(rh, token, entry.detail, []);
      return;
    }
    await call(op, () => this.recipients.release(rh, token, 'done'));
  }

  /** Removes a message's job (in doubt, it waited in the failed set with its message); gone already is fine. */
  async removeJob(campaign: string, kh: string): Promise<void> {
    try {
      await this.withBull(campaign, (q) => q.remove(jobIdOf(kh)));
    } catch {
      // Still active somewhere (its run will find the entry decided), or Redis failed: harmless either way.
    }
  }

  /**
   * Throws `CampaignQueueError` (`closed`) once `close()` was called: a call after it would open a BullMQ connection
   * that nothing closes, and keep the process from exiting.
   */
  checkOpen(op: string): void {
    if (this.#closed) {
      throw new CampaignQueueError(
        `${op}: this CampaignQueue was closed (close()); build a new one to go on.`,
        'closed',
      );
    }
  }

  /** Closes the BullMQ queues and their connection; every later call throws (`closed`). */
  async close(): Promise<void> {
    this.#closed = true;
    const queues = [...this.#queues.values()];
    this.#queues.clear();
    this.#worked.clear();
    await Promise.all(queues.map((held) => held.queue.close().catch(() => {})));
    if (this.#connection) await closeRedis(this.#connection);
    this.#connection = undefined;
  }
}
