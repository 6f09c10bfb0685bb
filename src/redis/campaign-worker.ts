/**
 * The campaign queue's workers: in each process, one BullMQ worker per campaign with work (followed from the
 * queue's registry), all sharing the process's concurrency, each job one message:
 *
 * 1. its ledger entry says what is left: decided or in doubt, nothing is sent;
 * 2. (at each attempt's gate, below) the suppression list is asked; a suppressed recipient's message is recorded
 *    not sent, with the reason;
 * 3. the recipient is locked (one message to it in flight, whichever campaign; none while one is in doubt);
 * 4. the message is sent through the `GatewayClient` (its limiter, retries and checks), and between the limiter
 *    and the request the ledger's gate writes `s` (the request may be out), only while the campaign runs and this
 *    is its recipient's next message;
 * 5. the result is written with the report's counters in one step: accepted, not sent (final), back in the queue
 *    (refused before forwarding: later, or after a pause), or in doubt (cut in flight): never sent again by itself.
 *
 * A worker that dies leaves its messages `s` or `q`: BullMQ runs their jobs again once their lock expires, and
 * the ledger says which were allowed out (in doubt) and which were not (sent normally).
 */
import { setMaxListeners } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import type * as BullMQ from 'bullmq';
import type { Job } from 'bullmq';
import type { CampaignHold } from '../campaigns/queue-status.js';
import { SUPPRESSED_CODE } from '../campaigns/suppressions.js';
import { ApiError, ConnectionError, NotSentError, RateLimitError, WaGatewayError } from '../core/errors.js';
import type { LeaseKeeper } from '../core/lease.js';
import { type Logger, log, logFolded } from '../core/logger.js';
import { callObserver } from '../core/observer.js';
import { loadOptionalPeer } from '../core/optional-peer.js';
import { Slots } from '../core/slots.js';
import type { GatewayClient } from '../gateway/client.js';
import { sendGated } from '../gateway/gated-send.js';
import { GATEWAY_RETRY_RULES } from '../gateway/retry-rules.js';
import type { SendManyRecorder, SendManyResult } from '../gateway/send-many.js';
import { type CampaignJobData, type QueueCore, recordedRefusal } from './campaign-core.js';
import { type ChangeAnswer, decodeEntry, encodeEntry, type LedgerEntry } from './campaign-ledger.js';
import type { LockAnswer } from './campaign-recipients.js';
import type { RedisClient } from './client.js';
import { isConnectionError, noteConnectionError } from './connection-log.js';
import { errorMeta, RedisStoreError } from './errors.js';
import { BLOCKING_READS, closeRedis, openRedis } from './inbox-connection.js';
import { leaseToken, RedisLease } from './lease.js';
import { call, toStoreError } from './replies.js';
import {
  jobErrorKindOf,
  jobStoreError,
  lockRenewalError,
  logWorkerError,
  RefusalsSaid,
  refusedResult,
} from './worker-errors.js';

const ROLE = 'CampaignQueue.work';
/** The worker's connection lines start as every other line of the SDK's does. */
const LOG_ROLE = `wa-gateway-sdk: ${ROLE}`;

/** What a refusal of a message that was not sent does to it, by the gateway's code (its retry table decides). */
type Action = 'retry' | 'hold' | 'pause' | 'final';

const NEVER = GATEWAY_RETRY_RULES.neverRetryCodes;
/**
 * `RATE_001` holds every worker for its `retry_after`; `AUTH_004` (the gateway's auth service) is tried again
 * later; a refusal of the account (`BILL_001`, a revoked key, missing credentials) pauses the campaign until a
 * person resumes it, the message back in the queue; `GW_001` (the upstream refused this message) is final.
 */
const BY_CODE: Readonly<Record<string, Action>> = Object.fromEntries([
  ...GATEWAY_RETRY_RULES.retryableCodes.map((c) => [c, c === 'RATE_001' ? 'hold' : 'retry']),
  ...(GATEWAY_RETRY_RULES.refusedCodes ?? []).filter((c) => !NEVER.includes(c)).map((c) => [c, 'pause']),
  ...NEVER.map((c) => [c, 'final']),
]);

/** A message not sent: what happens to it. A refusal of the gateway by its code; Redis or the network: later. */
function actionFor(error: unknown): Action {
  if (error instanceof ApiError) return BY_CODE[error.code ?? ''] ?? 'final';
  // Redis or the network, or a stop before the request (`NotSentError`: a close, a lock lost): later.
  if (error instanceof RedisStoreError || error instanceof ConnectionError || error instanceof NotSentError)
    return 'retry';
  return 'final';
}

/** Why the gate did not let a request out. */
type GateReason =
  | 'paused'
  | 'cancelled'
  | 'wait'
  | 'held'
  | 'gone'
  | 'locked'
  | 'lease'
  | 'closing'
  | 'suppressed'
  | 'replicas';

/** Why the recipient's lock was refused. */
type StandingLock = Exclude<LockAnswer, { outcome: 'ok' }>;

/** The gate's refusal: nothing was sent (`mayHaveBeenSent` false, so `sendMany`'s rule says `notSent`). */
class GateRefusal extends WaGatewayError {
  override name = 'GateRefusal';
  readonly mayHaveBeenSent = false;
  constructor(
    readonly reason: GateReason,
    /** For `gone`: the entry found instead of the one expected. */
    readonly current?: LedgerEntry,
    /** For `locked`: what held the recipient. */
    readonly lock?: StandingLock,
    /** For `held`: how long the campaign is held still, ms. */
    readonly heldMs = 0,
    /** For `suppressed`: the suppression list's reason. */
    readonly why = '',
  ) {
    super(`The campaign queue did not let this message out (${reason}).`);
  }
}

/** The job's outcome for BullMQ, thrown by the processor (or returned: done). */
const IN_DOUBT = 'in doubt: its request may have reached the gateway; it is never sent again by itself';

export interface CampaignWorkerOptions {
  /**
   * The client that sends: its limiter (a `RedisRateLimiter`, shared by every worker process; or `false` for a
   * gateway without a limit, as the sandbox), retries, catalogue and service window apply to every message.
   */
  gateway: GatewayClient;
  /** Messages this process sends at once, all campaigns together. Default 16. */
  concurrency?: number | undefined;
  /**
   * How long a message's job stays with a worker without renewal, ms (BullMQ's `lockDuration`, and the period of
   * its stalled check). A worker that died has its messages taken up again after one to two times this. Default
   * 30,000; at most 2,147,483,647 (a timer's longest).
   */
  lockDurationMs?: number | undefined;
  /**
   * How long a recipient stays locked by a worker that died, ms (renewed while a request is out). Default 30,000;
   * at most 2,147,483,647.
   */
  recipientLeaseMs?: number | undefined;
  /** Runs per message before a refusal that could pass later (Redis down, the network) becomes final. Default 10. */
  attempts?: number | undefined;
  /** How often the registry is read for campaigns with work, ms. Default 1,000; at most 2,147,483,647. */
  pollMs?: number | undefined;
  /**
   * Every failure the worker handles (Redis unreachable, a job it could not finish), with where: a typed error, a
   * `RedisStoreError` for Redis's and BullMQ's own (`failure` `lease_lost` for a job's lock another worker took
   * over, once per run of the job: the ledger still keeps its message from going twice, so it is not an outage; the
   * run's send stops if its request is not out yet).
   */
  onError?: ((error: unknown, info: { campaign?: string; stage: string }) => void) | undefined;
  /**
   * Before each request, waits until `count` replicas hold the ledger's mark that the message is being sent (Redis
   * `WAIT` on the campaign's primary, at most `timeoutMs`: default 100, at most 1,000, as the `WAIT` holds the
   * queue's connection meanwhile), then reads the mark back. Without it, a failover in the moment after the mark can
   * lose it: the promoted replica has the message still queued, and it is sent again. When fewer replicas answer in
   * time, the message is not sent now: it goes back to the queue and is tried again about a second later (a replica
   * down holds the campaign, it does not fail it; a warning says so). Set `count` to the number of replicas a
   * failover may promote: `WAIT` counts replicas, it does not say which. Default: no wait.
   *
   * @example
   * const worker = queue.work({ gateway, replicas: { count: 1, timeoutMs: 100 } });
   */
  replicas?: { count: number; timeoutMs?: number | undefined } | undefined;
}

export interface CampaignWorker {
  /**
   * Resolves once the registry was read and the campaigns with work are being taken up. Rejects with the typed
   * error (`RedisStoreError`: `unavailable`, `needs_cluster_client`...) while the registry cannot be read (its
   * last read failed): a wrong `REDIS_URL` fails the pod's start rather than passing
   * a readiness check. The worker goes on trying meanwhile; `close()` it to give up, or ask again later.
   */
  ready(): Promise<void>;
  /** The campaigns this process works on now. */
  campaigns(): string[];
  /**
   * Stops taking messages, lets the requests in flight finish and their results be written (a message waiting
   * for the limiter goes back to the queue, unsent), and closes its connections.
   */
  close(): Promise<void>;
}

interface Run {
  readonly worker: BullMQ.Worker;
  readonly recorder: SendManyRecorder;
  /** Lets the campaign's BullMQ queue go (`QueueCore.keepOpen`): kept open while this worker works on it. */
  readonly letGo: () => void;
}

/** `queue.work(options)`: see `CampaignWorkerOptions`. */
export function startCampaignWorker(core: QueueCore, options: CampaignWorkerOptions): CampaignWorker {
  return new Workers(core, options);
}

class Workers implements CampaignWorker {
  readonly #core: QueueCore;
  readonly #gateway: GatewayClient;
  readonly #concurrency: number;
  readonly #lockMs: number;
  readonly #leaseMs: number;
  readonly #attempts: number;
  readonly #pollMs: number;
  readonly #onError: CampaignWorkerOptions['onError'];
  readonly #replicas: { count: number; timeoutMs: number } | undefined;
  readonly #logger: Logger | undefined;
  readonly #slots: Slots;
  readonly #bull: typeof BullMQ;
  readonly #connection: RedisClient;
  readonly #runs = new Map<string, Run>();
  /** Registrations read with no work: a campaign is looked at again when it is registered again. */
  readonly #idle = new Map<string, string>();
  /** Cancels this process finishes (a `cancel` cut off during its scan), by campaign: one at a time each. */
  readonly #finishing = new Map<string, Promise<void>>();
  /** A cancelled campaign's `queued` at the last poll: a count that has not moved is a cancel cut off. */
  readonly #cancelQueued = new Map<string, number>();
  /** Aborts sends waiting for the limiter when the worker closes. */
  readonly #closing = new AbortController();
  readonly #first: Promise<void>;
  /** The registry's failure last logged: a poll failing the same way every `pollMs` is one line until one reads it. */
  #registryFailure: string | undefined;
  /** That failure, typed, for `ready()` while it lasts. */
  #registryError: WaGatewayError | undefined;
  #loop: Promise<void> | undefined;
  #closed: Promise<void> | undefined;

  constructor(core: QueueCore, options: CampaignWorkerOptions) {
    this.#core = core;
    this.#gateway = options.gateway;
    this.#concurrency = options.concurrency ?? 16;
    this.#lockMs = options.lockDurationMs ?? 30_000;
    this.#leaseMs = options.recipientLeaseMs ?? 30_000;
    this.#attempts = options.attempts ?? 10;
    this.#pollMs = options.pollMs ?? 1000;
    this.#onError = options.onError;
    // Checked and given its default by CampaignQueue.work.
    this.#replicas = options.replicas as { count: number; timeoutMs: number } | undefined;
    this.#logger = core.logger;
    this.#slots = new Slots(this.#concurrency);
    // Every send waiting for the limiter listens to it: as many as the concurrency, not a leak.
    setMaxListeners(0, this.#closing.signal);
    this.#bull = loadOptionalPeer<typeof BullMQ>('bullmq', ROLE);
    // BullMQ's workers wait on Redis (blocking reads need `maxRetriesPerRequest: null`): a connection of their own.
    this.#connection = openRedis(core.redis, BLOCKING_READS, core.logger, LOG_ROLE);
    this.#first = this.#poll();
    this.#loop = this.#first.then(() => this.#keepPolling());
  }

  async ready(): Promise<void> {
    await this.#first;
    if (this.#registryFailure !== undefined && this.#registryError !== undefined) throw this.#registryError;
  }

  campaigns(): string[] {
    return [...this.#runs.keys()];
  }

  close(): Promise<void> {
    this.#closed ??= (async () => {
      this.#closing.abort();
      await this.#loop?.catch(() => {});
      await Promise.all(this.#finishing.values());
      await Promise.all([...this.#runs.keys()].map((c) => this.#stop(c)));
      await closeRedis(this.#connection);
    })();
    return this.#closed;
  }

  async #keepPolling(): Promise<void> {
    const signal = this.#closing.signal;
    while (!signal.aborted) {
      await sleep(this.#pollMs, undefined, { signal, ref: false }).catch(() => {});
      if (signal.aborted) return;
      await this.#poll();
    }
  }

  /** Reads the registry and starts or stops a campaign's worker by whether it has messages to send. */
  async #poll(): Promise<void> {
    const core = this.#core;
    let flat: string[];
    try {
      flat = await call(ROLE, () => core.redis.zrange(core.registryKey, 0, -1, 'WITHSCORES'));
    } catch (error) {
      this.#registryFailed(error);
      return;
    }
    if (this.#registryFailure !== undefined) {
      this.#registryFailure = undefined;
      log(this.#logger, 'info', `wa-gateway-sdk: ${ROLE}: reads the campaigns' registry again`);
    }
    for (let i = 0; i < flat.length; i += 2) {
      const campaign = flat[i]!;
      // One campaign's failure is its own: the others' polls go on.
      await this.#pollCampaign(campaign, flat[i + 1]!).catch((error: unknown) =>
        this.#report(error, { campaign, stage: 'campaign' }),
      );
    }
  }

  /** The registry could not be read: said once per cause (a poll fails the same way every `pollMs`). */
  #registryFailed(error: unknown): void {
    const typed = this.#typed(error, { stage: 'registry' });
    if (typed.message !== this.#registryFailure) {
      this.#registryFailure = typed.message;
      this.#registryError = typed;
      // The typed message holds no secret and no key's value; it says what failed and how to fix it.
      log(
        this.#logger,
        'warn',
        `wa-gateway-sdk: ${ROLE}: cannot read the campaigns' registry: ${typed.message}`,
        {
          ...errorMeta(typed),
          ...failureOf(typed),
        },
      );
    }
    this.#notify(error, { stage: 'registry' });
  }

  async #pollCampaign(campaign: string, registered: string): Promise<void> {
    const core = this.#core;
    if (!this.#runs.has(campaign) && this.#idle.get(campaign) === registered) return;
    const counts = await call(ROLE, () => core.ledger.counts(campaign));
    // Statuses a dead worker left parked, once its lock would have expired: it is not coming back for them. A
    // failure here is reported and leaves the notes for the next poll; the other campaigns go on.
    const parkedLeft = await core.applyParkedLeft(campaign, this.#lockMs).catch((error: unknown) => {
      this.#report(error, { campaign, stage: 'parked statuses' });
      return 1;
    });
    const queued = Number(counts['queued'] ?? 0);
    const cancelled = counts['state'] === 'cancelled';
    // A cancel left unfinished: looked at again at each poll until nothing of it is queued.
    const unfinished = cancelled && queued > 0;
    if (unfinished) this.#finishCancel(campaign, queued);
    else this.#cancelQueued.delete(campaign);
    const work = !cancelled && queued + Number(counts['sending'] ?? 0) > 0;
    if (work && !this.#runs.has(campaign) && !this.#closing.signal.aborted) this.#start(campaign);
    if (work && counts['state'] !== 'paused') await this.#unpause(campaign);
    if (!work) {
      if (parkedLeft === 0 && !unfinished) this.#idle.set(campaign, registered);
      if (this.#runs.has(campaign)) await this.#stop(campaign);
    }
  }

  /**
   * A cancelled campaign with messages still queued: its `cancel` was cut off during its scan (a person's Ctrl-C, a
   * pod killed, a Redis error), which left them queued and its BullMQ queue paused; or it is still scanning. Only
   * when `queued` has not moved since the last poll is it taken for cut off (a running scan records a few hundred
   * messages a second), so that a long `cancel` is not scanned again by every worker. Finished here, in the
   * background so that the other campaigns' polls go on, and stopped between pages when the worker closes; a
   * failure is reported and the next still poll tries again.
   */
  #finishCancel(campaign: string, queued: number): void {
    const before = this.#cancelQueued.get(campaign);
    this.#cancelQueued.set(campaign, queued);
    if (before !== queued) return;
    if (this.#finishing.has(campaign) || this.#closing.signal.aborted) return;
    const finishing = this.#core
      .finishCancel(campaign, ROLE, this.#closing.signal)
      .catch((error: unknown) => this.#report(error, { campaign, stage: 'cancel' }))
      .finally(() => this.#finishing.delete(campaign));
    this.#finishing.set(campaign, finishing);
  }

  /**
   * The ledger's state decides; BullMQ's pause only spares the workers a spin while the campaign is paused. A
   * worker refused by a pause pauses BullMQ, and a `resume` right then could be followed by that pause: a running
   * campaign whose BullMQ queue is paused is resumed here.
   */
  async #unpause(campaign: string): Promise<void> {
    await this.#core.withBull(campaign, async (bull) => {
      if (await bull.isPaused()) await bull.resume();
    });
  }

  #start(campaign: string): void {
    const core = this.#core;
    // The jobs this worker runs now, by id: `true` once their lock was lost (said once per run).
    const running = new Map<string, boolean>();
    const refusals = new RefusalsSaid(this.#concurrency * 2 + 100);
    const worker: BullMQ.Worker = new this.#bull.Worker(
      core.queueName(campaign),
      // Three parameters: BullMQ gives the processor a signal only when it takes one (its `length`).
      async (job: Job, token?: string, signal?: AbortSignal): Promise<void> => {
        const id = String(job.id);
        running.set(id, false);
        refusals.ran(id);
        try {
          return await this.#process(campaign, worker, job, token, signal);
        } finally {
          running.delete(id);
        }
      },
      {
        connection: this.#connection,
        prefix: core.bullPrefixOf(this.#connection, campaign),
        // Twice the sends: while `concurrency` messages are out, as many others write their results or wait.
        concurrency: this.#concurrency * 2,
        lockDuration: this.#lockMs,
        stalledInterval: this.#lockMs,
        // A job whose worker died runs again whatever the number of deaths: its ledger entry says what is left.
        maxStalledCount: 1_000_000,
        runRetryDelay: 1000,
        settings: {
          backoffStrategy: (attemptsMade: number) =>
            Math.min(60_000, 1000 * 2 ** Math.max(0, attemptsMade - 1)),
        },
      },
    );
    // BullMQ 5.64 and later emit 'lockRenewalFailed' and have `cancelJob`; with an older one (the peer range takes
    // every 5.x), a lost lock is said through 'error', as before.
    const lockEvents = typeof (worker as { cancelJob?: unknown }).cancelJob === 'function';
    worker.on('error', (error: Error) => {
      if (isConnectionError(error)) {
        // An outage is logged once, by the connection's rule, whichever of the worker's connections saw it first.
        noteConnectionError(this.#connection, this.#logger, LOG_ROLE, error);
        this.#report(error, { campaign, stage: 'worker' });
        return;
      }
      // A lost lock: said by the 'lockRenewalFailed' listener below, once per run of the job (BullMQ emits both
      // events for it, and again at each renewal that fails while the run goes on).
      if (lockEvents && jobErrorKindOf(error) === 'lock-renewal') return;
      const refusal = refusedResult(error);
      if (refusal !== undefined && !refusals.first(refusal.jobId)) return;
      // Redis answered (a job's lock lost, its result refused): not an outage. Said as what it is, with the job
      // id, so that a real outage later is still logged, with its real length.
      logWorkerError(
        LOG_ROLE,
        (message, meta) => log(this.#logger, 'warn', message, { ...meta, campaign }),
        error,
      );
      this.#notify(error, { campaign, stage: 'worker' });
    });
    if (lockEvents)
      worker.on('lockRenewalFailed', (jobIds: string[]) => {
        for (const jobId of jobIds) {
          if (running.get(jobId) !== false) continue;
          running.set(jobId, true);
          // Another worker may take the job up: the run's signal stops a send still waiting (for the limiter,
          // between attempts) before its request; a request out is answered and its result written (the ledger,
          // not the job's lock, keeps a message from going twice).
          worker.cancelJob(jobId, 'the job lost its lock');
          const error = lockRenewalError(jobId);
          logWorkerError(
            LOG_ROLE,
            (message, meta) => log(this.#logger, 'warn', message, { ...meta, campaign }),
            error,
          );
          this.#notify(error, { campaign, stage: 'worker' });
        }
      });
    this.#runs.set(campaign, {
      worker,
      recorder: core.tracker.recorder(campaign),
      letGo: core.keepOpen(campaign),
    });
  }

  async #stop(campaign: string): Promise<void> {
    const run = this.#runs.get(campaign);
    if (!run) return;
    this.#runs.delete(campaign);
    run.letGo();
    try {
      await run.worker.close(this.#connection.status !== 'ready');
    } catch (error) {
      this.#report(error, { campaign, stage: 'worker' });
    }
    await run.recorder
      .close()
      .catch((error: unknown) => this.#report(error, { campaign, stage: 'recorder' }));
  }

  async #process(
    campaign: string,
    worker: BullMQ.Worker,
    job: Job,
    token: string | undefined,
    signal: AbortSignal | undefined,
  ): Promise<void> {
    const data = job.data as Partial<CampaignJobData> | null;
    let queued: LedgerEntry | undefined;
    try {
      if (data?.v === 1 && data.c === campaign && typeof data.k === 'string')
        queued = decodeEntry(ROLE, data.e);
    } catch {
      // Said below.
    }
    if (queued?.state !== 'q') {
      throw new this.#bull.UnrecoverableError('a campaign queue job holds data of an unexpected shape');
    }
    await new Message(this, campaign, data!.k!, queued, data!.m, worker, job, token ?? '', signal).run();
  }

  /** For `Message`. */
  get core(): QueueCore {
    return this.#core;
  }
  get replicas(): { count: number; timeoutMs: number } | undefined {
    return this.#replicas;
  }
  /** Says that too few replicas held a mark in time, folded: with a replica down, every message says it. */
  replicasShort(campaign: string, count: number): void {
    logFolded(
      this.#logger,
      'warn',
      `wa-gateway-sdk: ${ROLE}: fewer than ${count} replica(s) of Redis held a message's mark in time; its messages wait until they do`,
      { campaign },
    );
  }
  get gateway(): GatewayClient {
    return this.#gateway;
  }
  get bullmq(): typeof BullMQ {
    return this.#bull;
  }
  get leaseMs(): number {
    return this.#leaseMs;
  }
  get lockMs(): number {
    return this.#lockMs;
  }
  get attempts(): number {
    return this.#attempts;
  }
  /** Takes one of the process's send slots (`concurrency`); answers its release. */
  slot(): Promise<() => void> {
    return this.#slots.take();
  }
  get closing(): AbortSignal {
    return this.#closing.signal;
  }
  recorder(campaign: string): SendManyRecorder | undefined {
    return this.#runs.get(campaign)?.recorder;
  }

  /** Logs a failure (by stage and error name) and gives it to `onError`. */
  #report(error: unknown, info: { campaign?: string; stage: string }): void {
    const typed = this.#typed(error, info);
    log(this.#logger, 'warn', `wa-gateway-sdk: ${ROLE}: ${info.stage} failed`, {
      errorName: errorMeta(typed).errorName,
      ...failureOf(typed),
      ...(info.campaign === undefined ? {} : { campaign: info.campaign }),
    });
    this.#notify(error, info);
  }

  /** Gives a failure to `onError` only (one already logged by what it is). */
  #notify(error: unknown, info: { campaign?: string; stage: string }): void {
    callObserver(this.#onError, [this.#typed(error, info), info]);
  }

  /**
   * Every stage reported is Redis's or BullMQ's work: a client's raw error (`ECONNREFUSED`,
   * `MaxRetriesPerRequestError`) is given as the `RedisStoreError` every other call gives; a job's lock or state
   * taken over (BullMQ's job errors) as `lease_lost`.
   */
  #typed(error: unknown, info: { stage: string }): WaGatewayError {
    if (error instanceof WaGatewayError) return error;
    const operation = `${ROLE}: ${info.stage}`;
    return jobStoreError(error, operation) ?? toStoreError(error, operation);
  }

  /** For `Message`. */
  report(error: unknown, info: { campaign?: string; stage: string }): void {
    this.#report(error, info);
  }
}

/** Short waits for a recipient: its lock is about to be let go, or its next message is about to finish. */
const BUSY_WAIT_MS = 200;
/** A recipient whose message is in doubt waits for a status or a person: look again now and then. */
const DOUBT_WAIT_MS = 5000;
/** A message whose mark too few replicas held is tried again after about this long (`replicas`). */
const REPLICAS_RETRY_MS = 1000;

/** One run of one message's job (see the file's comment). */
class Message {
  readonly #w: Workers;
  readonly #core: QueueCore;
  readonly #rh: string;
  /** Runs of `run` within this job run (an attempt in the way reconciled, then tried again). */
  #rounds = 0;

  constructor(
    w: Workers,
    readonly campaign: string,
    readonly kh: string,
    /** The entry the message was queued with, as its job carries it. */
    public queued: LedgerEntry,
    readonly message: unknown,
    readonly worker: BullMQ.Worker,
    readonly job: Job,
    readonly token: string,
    readonly signal: AbortSignal | undefined,
  ) {
    this.#w = w;
    this.#core = w.core;
    this.#rh = w.core.rh(queued.to);
  }

  /**
   * The message's run, from the entry its job was added with (`q`): the common case reads nothing first. A run
   * that finds it otherwise (a run after a death, a cancel) is told so by the first step that compares it, and
   * settles from what it finds (`#settle`).
   */
  async run(): Promise<void> {
    const core = this.#core;
    const queued = this.queued;
    const attempt = leaseToken();
    let keeper: LeaseKeeper | undefined;
    let gated: LedgerEntry | undefined;
    // Between the limiter and each request: the first takes the recipient's lock and writes `s`, a retry's
    // checks again that the campaign runs.
    const gate = async (): Promise<void> => {
      if (keeper?.lost) throw new GateRefusal('lease');
      if (this.#w.closing.aborted) throw new GateRefusal('closing');
      // Asked at each attempt, after the limiter and any retry's wait: a STOP that came meanwhile is honoured.
      const suppressed = await core.suppressions?.reasonFor(queued.to);
      if (suppressed !== undefined) throw new GateRefusal('suppressed', undefined, undefined, 0, suppressed);
      const expected = gated ?? queued;
      const next = gated ?? { ...queued, state: 's' as const, token: attempt, startedAt: Date.now() };
      const answer = await call(ROLE, () =>
        core.ledger.change(this.campaign, this.kh, this.#rh, expected, next, {
          gate: true,
          ...(gated
            ? {}
            : {
                counts: { queued: -1, sending: 1 },
                recipient: { token: attempt, lock: { leaseMs: this.#w.leaseMs, campaign: this.campaign } },
              }),
        }),
      );
      if (answer.outcome === 'ok') {
        if (!gated) keeper = this.#keep(attempt);
        gated = next;
        const replicas = this.#w.replicas;
        if (replicas === undefined) return;
        const held = await call(ROLE, () =>
          core.replicasHold(this.campaign, this.kh, attempt, replicas.count, replicas.timeoutMs),
        );
        if (!held) {
          this.#w.replicasShort(this.campaign, replicas.count);
          // Seen by `status()` until a second retry would have renewed it: it ends soon after the replicas answer.
          // Only what `status()` says: a failure to write it is reported, and the message waits all the same.
          await call(ROLE, () =>
            core.ledger.replicasShort(this.campaign, 2 * REPLICAS_RETRY_MS + replicas.timeoutMs),
          ).catch((error: unknown) =>
            this.#w.report(error, { campaign: this.campaign, stage: 'replicas status' }),
          );
          throw new GateRefusal('replicas');
        }
        return;
      }
      throw new GateRefusal(
        answer.outcome,
        answer.outcome === 'gone' ? answer.current : undefined,
        answer.outcome === 'locked' ? answer.lock : undefined,
        answer.outcome === 'held' ? answer.ms : 0,
      );
    };
    const recorder = this.#w.recorder(this.campaign);
    try {
      // The report's note that a send is under way (a status that beats its result is parked, not dropped).
      await recorder?.beginSend();
    } catch (error) {
      recorder?.endSend();
      throw error;
    }
    let result: SendManyResult;
    const free = await this.#w.slot();
    // The worker's closing or the job's own signal (its lock lost) stops the send while it waits; linked by hand and
    // unlinked after: `AbortSignal.any` per message keeps its sources' listeners until a GC, which costs at this rate.
    const stop = new AbortController();
    const sources = this.signal ? [this.#w.closing, this.signal] : [this.#w.closing];
    const abort = () => stop.abort();
    for (const source of sources) {
      if (source.aborted) stop.abort();
      else source.addEventListener('abort', abort, { once: true });
    }
    try {
      ({ result } = await sendGated(this.#w.gateway.messages, this.message, { gate, signal: stop.signal }));
    } finally {
      for (const source of sources) source.removeEventListener('abort', abort);
      free();
      recorder?.endSend();
    }
    try {
      if (gated === undefined) {
        // The gate may have written `s` and lost its answer (Redis went away): the request was not made all the
        // same. Read with patience, so that a restart of Redis does not leave the message looking in doubt.
        const stored = await this.#patiently(() => core.ledger.entry(this.campaign, this.kh));
        if (stored?.state === 's' && stored.token === attempt) gated = stored;
      }
      if (gated === undefined) return await this.#notRequested(queued, attempt, result, keeper);
      return await this.#requested(gated, attempt, result);
    } finally {
      keeper?.stop();
    }
  }

  /** Renews the recipient's lock while the request is out; its loss stops a retry from starting. */
  #keep(attempt: string): LeaseKeeper {
    const core = this.#core;
    const lease = RedisLease.held(
      core.redis,
      core.recipients.lockKey(this.#rh),
      attempt,
      this.#w.leaseMs,
      ROLE,
    );
    return lease.keep({ onRenewError: (error) => this.#w.report(error, { stage: 'recipient lease' }) });
  }

  /**
   * The entry is not the queued one the run expected: decided already (its result is in the report; its
   * recipient's attempt may still stand), in doubt, allowed out by a run that is gone (so in doubt now), queued
   * again (a resend), or gone with its campaign.
   */
  async #settle(current: LedgerEntry | undefined): Promise<void> {
    const core = this.#core;
    if (current === undefined) return;
    if (current.state === 'q') {
      if (current.token === this.queued.token && encodeEntry(current) === encodeEntry(this.queued)) {
        return this.#delay(BUSY_WAIT_MS);
      }
      this.queued = current;
      return this.#again();
    }
    if (current.state === 's') {
      const answer = await this.#write(
        current,
        { ...current, state: 'd', detail: 'died' },
        {
          doubt: { since: Date.now() },
          counts: { sending: -1, inDoubt: 1 },
        },
      );
      if (answer.outcome === 'gone') return this.#settle(answer.current);
      await core.reconcile(this.#rh, this.campaign, this.kh, current.token);
      throw new this.#w.bullmq.UnrecoverableError(IN_DOUBT);
    }
    await core.reconcile(this.#rh, this.campaign, this.kh, current.token);
    if (current.state === 'd') throw new this.#w.bullmq.UnrecoverableError(IN_DOUBT);
  }

  /** Runs again after setting right what stood in the way; a few times at most, then later. */
  async #again(): Promise<void> {
    this.#rounds++;
    if (this.#rounds > 3) return this.#delay(BUSY_WAIT_MS);
    return this.run();
  }

  /** The recipient was not taken: busy (wait), or an attempt stands whose holder is gone (set it right). */
  async #locked(lock: StandingLock): Promise<void> {
    const core = this.#core;
    if (lock.outcome === 'busy') return this.#delay(BUSY_WAIT_MS);
    await core.reconcile(this.#rh, lock.campaign, lock.kh, lock.token);
    if (lock.campaign === this.campaign && lock.kh === this.kh) {
      // This very message's attempt stood (a run of it died): what it left is what counts.
      const entry = await call(ROLE, () => core.ledger.entry(this.campaign, this.kh));
      if (entry?.state !== 'q') return this.#settle(entry);
      return this.#again();
    }
    const still = await call(ROLE, () => core.recipients.attempt(this.#rh));
    // Another message to this recipient is in doubt: it waits for a status or a person.
    if (still && !still.open) return this.#delay(DOUBT_WAIT_MS);
    return this.#again();
  }

  /** No request was made: the entry is still `q`; this run's lock, if it got one, is let go. */
  async #notRequested(
    queued: LedgerEntry,
    attempt: string,
    result: SendManyResult,
    keeper: LeaseKeeper | undefined,
  ): Promise<void> {
    const core = this.#core;
    if (result.ok)
      throw new WaGatewayError(
        `${ROLE}: a send was answered without passing its gate (an SDK bug: please report it).`,
      );
    const error = result.error;
    const release = () => core.recipients.release(this.#rh, attempt, 'done');
    if (error instanceof GateRefusal) {
      if (error.reason === 'locked' && error.lock) return this.#locked(error.lock);
      if (error.reason === 'gone') return this.#settle(error.current);
      if (error.reason === 'cancelled') return this.#cancel(queued);
      if (error.reason === 'wait') return this.#delay(BUSY_WAIT_MS);
      if (error.reason === 'held') return this.#delay(error.heldMs, true);
      if (error.reason === 'suppressed') return this.#suppress(queued, error.why);
      if (error.reason === 'paused') await core.withBull(this.campaign, (q) => q.pause());
      if (error.reason === 'lease') await release();
      return this.#backToWait();
    }
    // A gate that failed half-way on a cluster (locked, then Redis failed) may hold the lock: let it go.
    if (keeper === undefined) await release().catch(() => {});
    if (this.signal?.aborted || this.#w.closing.aborted) return this.#backToWait();
    return this.#refused(queued, undefined, attempt, error);
  }

  /** The request may have gone out: the entry is `s`, this attempt's, and the recipient is locked by it. */
  async #requested(sending: LedgerEntry, attempt: string, result: SendManyResult): Promise<void> {
    const core = this.#core;
    if (result.ok) {
      await this.#decide(
        sending,
        { ...sending, state: 'a', detail: result.messageId },
        {
          done: true,
          counts: { sending: -1, accepted: 1 },
          record: core.recordOf(sending, result),
          recipient: { token: attempt, release: 'done' },
        },
      );
      return;
    }
    if (!result.notSent) {
      // Cut in flight (a timeout, a reset connection, a 502 without the gateway's code): maybe sent.
      await this.#decide(
        sending,
        { ...sending, state: 'd', detail: 'cut' },
        {
          doubt: { since: Date.now() },
          counts: { sending: -1, inDoubt: 1 },
          recipient: { token: attempt, release: 'doubt' },
        },
      );
      await core.settle(this.#rh);
      throw new this.#w.bullmq.UnrecoverableError(IN_DOUBT);
    }
    const error = result.error;
    // Stopped (a close, the job's lock lost) after the gate wrote `s` and before the request: never out, so back
    // in the queue, like a message stopped while it waited for the limiter.
    const stopped = (this.signal?.aborted || this.#w.closing.aborted) && !(error instanceof ApiError);
    if (error instanceof GateRefusal || stopped) {
      // A retry's gate (after a refusal that sent nothing) refused: back in the queue.
      if (await this.#requeue(sending, attempt)) return;
      if (error instanceof GateRefusal && error.reason === 'held') return this.#delay(error.heldMs, true);
      if (error instanceof GateRefusal && error.reason === 'suppressed') {
        return this.#suppress({ ...sending, state: 'q', token: '', startedAt: 0 }, error.why);
      }
      if (error instanceof GateRefusal && error.reason === 'paused')
        await core.withBull(this.campaign, (q) => q.pause());
      if (error instanceof GateRefusal && error.reason === 'replicas') return this.#delay(REPLICAS_RETRY_MS);
      return this.#backToWait();
    }
    return this.#refused(sending, sending, attempt, error);
  }

  /** Not sent, refused: later, after a pause, or never (by `actionFor`). `entry` is `q`, or `s` (`sending`). */
  async #refused(
    entry: LedgerEntry,
    sending: LedgerEntry | undefined,
    attempt: string,
    error: WaGatewayError,
  ): Promise<void> {
    const core = this.#core;
    let action = actionFor(error);
    const lastRun = this.job.attemptsMade + 1 >= this.#w.attempts;
    if ((action === 'retry' || action === 'hold') && lastRun) action = 'final';
    if (action === 'pause' && error instanceof ApiError) {
      // Every worker stops before this message is back in the queue: the guarantee is the pause.
      await core.pause(this.campaign, {
        code: error.code ?? `HTTP_${error.status}`,
        description: error.description,
        at: new Date().toISOString(),
        by: 'gateway',
      } satisfies CampaignHold);
    }
    const recipient = sending ? { token: attempt, release: 'done' as const } : undefined;
    if (action === 'final') {
      const refused: SendManyResult = { index: 0, ok: false, error, notSent: true };
      const answer = await this.#write(
        entry,
        { ...entry, state: 'n', detail: codeOf(error) },
        {
          done: true,
          counts: { [sending ? 'sending' : 'queued']: -1, notSent: 1 },
          record: core.recordOf(entry, refused),
          ...(recipient ? { recipient } : {}),
        },
      );
      if (answer.outcome === 'gone' && !sending) return this.#settle(answer.current);
      if (answer.outcome !== 'ok') throw contention();
      return;
    }
    if (sending && (await this.#requeue(sending, attempt))) return;
    if (action === 'pause') {
      await core.withBull(this.campaign, (q) => q.pause());
      return this.#backToWait();
    }
    if (action === 'hold') {
      // Every worker's gate refuses until then (the campaign's hold, in the ledger): not only this process's. A
      // shared limiter, which the transport paused as well, holds the account's other sends; the hold also works
      // without one, and for a retry_after longer than the client waits for.
      const ms = (error instanceof RateLimitError ? error.retryAfterMs : undefined) ?? 1000;
      await call(ROLE, () => core.ledger.hold(this.campaign, ms));
      return this.#delay(ms, true);
    }
    // Later, after BullMQ's backoff: the job's attempts count these.
    throw error;
  }

  /**
   * Puts a message whose attempt sent nothing back in the queue (`s` → `q`); answers `true` when its campaign was
   * cancelled meanwhile and the message is recorded `CANCELLED` instead. A `cancel` looks only at what is queued
   * when it scans, and this message was `s` then: the state is read after the entry is written, so either the
   * scan sees it queued or this run sees the cancel (the ledger's compare-and-set lets one of them record it).
   */
  async #requeue(sending: LedgerEntry, attempt: string): Promise<boolean> {
    const queued: LedgerEntry = { ...sending, state: 'q', token: '', startedAt: 0 };
    const answer = await this.#write(sending, queued, {
      counts: { sending: -1, queued: 1 },
      recipient: { token: attempt, release: 'done' },
    });
    if (answer.outcome !== 'ok') {
      // A mark a failover lost (`replicas`): the entry is queued already, as wanted; the lock, on another slot of a
      // cluster, may still be this attempt's.
      if (answer.outcome !== 'gone' || answer.current?.state !== 'q') throw contention();
      await this.#core.recipients.release(this.#rh, attempt, 'done').catch(() => {});
    }
    if ((await call(ROLE, () => this.#core.ledger.stateOf(this.campaign))) !== 'cancelled') return false;
    await this.#cancel(queued);
    return true;
  }

  /**
   * A result (or a step back) written once, Redis given time to come back (lost, the message stays in doubt and a
   * status resolves it). Answers the ledger's outcome: `gone` when the entry is not `expected`.
   */
  async #write(
    expected: LedgerEntry,
    next: LedgerEntry,
    effects: Parameters<QueueCore['change']>[5],
  ): Promise<ChangeAnswer> {
    const answer = await this.#core.change(
      this.campaign,
      this.kh,
      this.#rh,
      expected,
      next,
      effects,
      this.#w.lockMs / 2,
    );
    if (answer.outcome !== 'gone') return answer;
    // Set meanwhile by a reconcile that took this run for dead (`s` → `d`): write the result over the doubt.
    const current = answer.current;
    if (expected.state === 's' && current?.state === 'd' && current.token === expected.token) {
      const counts: Record<string, number> = { ...(effects?.counts ?? {}) };
      counts['inDoubt'] = (counts['inDoubt'] ?? 0) - 1;
      counts['sending'] = (counts['sending'] ?? 0) + 1;
      const over = await this.#core.change(this.campaign, this.kh, this.#rh, current, next, {
        ...effects,
        counts,
        doubt: next.state === 'd' ? undefined : 'remove',
      });
      // The run that found it in doubt failed its job (kept for `resend`): decided now, the job goes.
      if (over.outcome === 'ok' && (next.state === 'a' || next.state === 'n'))
        await this.#core.removeJob(this.campaign, this.kh);
      return over;
    }
    return answer;
  }

  /** `#write` of what only this run could have changed: anything else is a typed error. */
  async #decide(
    expected: LedgerEntry,
    next: LedgerEntry,
    effects: Parameters<QueueCore['change']>[5],
  ): Promise<void> {
    const answer = await this.#write(expected, next, effects);
    if (answer.outcome !== 'ok') throw contention();
  }

  /** A read tried again while Redis answers with an error, for half a job's lock. */
  async #patiently<T>(read: () => Promise<T>): Promise<T> {
    const giveUpAt = Date.now() + this.#w.lockMs / 2;
    for (let wait = 50; ; wait = Math.min(wait * 2, 1000)) {
      try {
        return await call(ROLE, read);
      } catch (error) {
        if (Date.now() + wait > giveUpAt) throw error;
        await new Promise((resolve) => setTimeout(resolve, wait));
      }
    }
  }

  async #suppress(entry: LedgerEntry, reason: string): Promise<void> {
    const core = this.#core;
    const error = recordedRefusal(SUPPRESSED_CODE, `opted out: ${reason}`, false);
    const answer = await this.#write(
      entry,
      { ...entry, state: 'n', detail: SUPPRESSED_CODE },
      {
        done: true,
        counts: { queued: -1, notSent: 1, suppressed: 1 },
        record: core.recordOf(entry, { index: 0, ok: false, error, notSent: true }),
      },
    );
    if (answer.outcome === 'gone') return this.#settle(answer.current);
  }

  async #cancel(entry: LedgerEntry): Promise<void> {
    const core = this.#core;
    const error = recordedRefusal(
      'CANCELLED',
      'the campaign was cancelled before this message was sent',
      false,
    );
    const answer = await this.#write(
      entry,
      { ...entry, state: 'n', detail: 'CANCELLED' },
      {
        done: true,
        counts: { queued: -1, notSent: 1, cancelled: 1 },
        record: core.recordOf(entry, { index: 0, ok: false, error, notSent: true }),
      },
    );
    if (answer.outcome === 'gone') return this.#settle(answer.current);
  }

  /** Runs again in about `ms` (a busy recipient: half to one and a half of it), or no sooner than `ms` (`atLeast`). */
  async #delay(ms: number, atLeast = false): Promise<void> {
    // A hold's end (`atLeast`) is never run early, only spread a little so that the workers do not all start at once.
    const wait = atLeast ? ms + Math.random() * BUSY_WAIT_MS : ms * (0.5 + Math.random());
    await this.job.moveToDelayed(Date.now() + wait, this.token);
    throw new this.#w.bullmq.DelayedError();
  }

  async #backToWait(): Promise<void> {
    await this.job.moveToWait(this.token);
    throw new this.#w.bullmq.WaitingError();
  }
}

function contention(): RedisStoreError {
  return new RedisStoreError(`${ROLE}: the message's ledger entry changed under this run.`, {
    failure: 'contention',
    operation: ROLE,
  });
}

/** The code a refusal is recorded under: the gateway's, else the error's class. */
function codeOf(error: WaGatewayError): string {
  if (error instanceof ApiError) return error.code ?? `HTTP_${error.status}`;
  return error.name;
}

/** A typed error's `failure` (`unavailable`, `needs_cluster_client`...), for a log line's metadata. */
function failureOf(error: WaGatewayError): { failure?: string } {
  const failure = (error as { failure?: unknown }).failure;
  return typeof failure === 'string' ? { failure } : {};
}
