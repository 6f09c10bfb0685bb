/**
 * The durable inbox, processing side: a BullMQ worker that runs the application's `onEvent` for each event the
 * inbox handlers stored, with retries, backoff, and a failed set to inspect and replay.
 *
 * The retry policy lives here, not in the receivers: receivers give every job a backoff type of the inbox's own
 * and an attempts ceiling never reached; this worker computes the delay from its `backoff` and ends a job after
 * its `attempts` by failing the last attempt as unrecoverable. So changing the policy means redeploying workers
 * only, and `replay` gives a job the worker's full attempts again.
 *
 * Delivery to `onEvent` is at least once: a worker that dies (or loses Redis) after `onEvent` returned but before
 * the completion was recorded runs the event again once its lock expires. `context.jobId` and the event's
 * `idempotencyKey` are stable, for an `onEvent` that must be exactly-once in its own store.
 *
 * The worker's `'error'` events are sorted: connection errors go to the connection's log (one line per outage);
 * the rest (a job's lock lost, a result Redis refused) are logged as what they are, with the job id. A run of
 * `onEvent` is one line at most, written once its result is recorded or refused: a failure, saying whether it is
 * retried; or a result Redis refused, saying what `onEvent` did (BullMQ reports one refusal twice: said once).
 */
import type * as BullMQ from 'bullmq';
import type { Job } from 'bullmq';
import { boundedDurationMs, MAX_TIMER_MS } from '../core/duration.js';
import { ConfigurationError } from '../core/errors.js';
import { type Logger, type LogLevel, log as writeLog } from '../core/logger.js';
import { callObserver } from '../core/observer.js';
import { loadOptionalPeer } from '../core/optional-peer.js';
import { ON_ERROR_HINT } from '../webhooks/claims.js';
import type { WebhookEvent } from '../webhooks/events.js';
import { resolveWebhookLogger } from '../webhooks/handler-options.js';
import { connectedToClusterNode, type RedisClient } from './client.js';
import { isConnectionError, noteConnectionError } from './connection-log.js';
import { errorMeta, InboxError, messageOf } from './errors.js';
import { INBOX_BACKOFF_TYPE, type InboxQueueOptions, inboxJobDataSchema, queueOptions } from './inbox.js';
import {
  BLOCKING_READS,
  closeRedis,
  clusterNodeError,
  openRedis,
  refuseClusterNode,
} from './inbox-connection.js';
import { InboxRuns, type RunOutcome } from './inbox-running.js';
import { queuePrefix } from './queue-keys.js';
import { jobIdOf, logWorkerError, refusedResult } from './worker-errors.js';

/** Passed to the worker's `onEvent` with each event. */
export interface InboxEventContext {
  /** The job's id: stable across attempts and replays (`inboxJobId(event.idempotencyKey)`). */
  jobId: string;
  /** 1 on the first run, then 2, 3, ... (a replay starts again at 1). */
  attempt: number;
  /** The worker's `attempts`: when `attempt` equals it, a failure sends the event to the failed set. */
  attempts: number;
  /** When the receiver stored the event, ms since the epoch. */
  receivedAt: number;
  /**
   * Aborted when the worker is closing (`close()`) or loses the job's lock (another worker may then run the event);
   * `signal.reason` is an `AbortError` saying which. Pass it on (`fetch(url, { signal })`) or check it between
   * steps, and stop by throwing (`signal.throwIfAborted()`): an `onEvent` that throws after `close()` aborted it puts
   * the event back in the queue, not counted as an attempt, for another worker to run at once. One that returns
   * counts as processed, even if it stopped early.
   *
   * @example
   * onEvent: async (event, { signal }) => {
   *   for (const step of stepsFor(event)) {
   *     signal.throwIfAborted();
   *     await step({ signal });
   *   }
   * }
   */
  signal: AbortSignal;
}

/** How long to wait before attempt n+1. */
export interface InboxBackoff {
  /** `fixed`: `delayMs` each time; `exponential`: `delayMs × 2^(n-1)`. */
  type: 'fixed' | 'exponential';
  delayMs: number;
  /** Highest wait, ms. Default 1 h. */
  maxDelayMs?: number | undefined;
}

/** Where a failure reported to the worker's `onError` happened. */
export interface InboxWorkerErrorInfo {
  stage: 'onEvent' | 'job_data' | 'worker';
  jobId?: string;
  attempt?: number;
  /** `true` when the event went to the failed set (no attempt left, or data of an unexpected shape). */
  final?: boolean;
}

export interface InboxWorkerOptions extends InboxQueueOptions {
  /** Runs once per attempt. Throw (or reject) to have the event retried after `backoff`. */
  onEvent: (event: WebhookEvent, context: InboxEventContext) => void | Promise<void>;
  /** Events processed at once by this worker. Default 1. */
  concurrency?: number | undefined;
  /** Runs per event before it goes to the failed set. Default 5. */
  attempts?: number | undefined;
  /** Default `{ type: 'exponential', delayMs: 1000 }`: 1 s, 2 s, 4 s, 8 s. */
  backoff?: InboxBackoff | undefined;
  /**
   * How long a job's lock lasts without renewal, ms (BullMQ `lockDuration`; also the interval of the check for
   * stalled jobs). Default 30,000. A job whose worker died, or whose hand-over a Redis outage cut, runs again after
   * one to two times this. Too short and a worker whose event loop is blocked that long loses its job to another
   * run: keep it well above your longest synchronous stretch.
   */
  lockDurationMs?: number | undefined;
  /**
   * How long `close()` waits for running `onEvent`s after aborting their `signal`, ms. Default 10,000. After it,
   * `close()` logs the job ids still running (at error level) and closes anyway: those events run again once their
   * lock expires. Keep it under your orchestrator's grace period (Kubernetes: 30 s between SIGTERM and SIGKILL).
   */
  closeTimeoutMs?: number | undefined;
  /**
   * Operational messages: event kinds, job ids, error names; never payloads, keys or secrets. Default: the console,
   * with the inbox handler's `[wa-gateway webhooks]` prefix. Pass your own (pino, winston) or `false` for silence.
   * Either is filtered to `logLevel`, as the clients' and the handlers' loggers are.
   */
  logger?: Logger | false | undefined;
  /**
   * The least severe level logged (`'off'` logs nothing). Default: the `WA_GATEWAY_LOG` environment variable when
   * it names a level, else `'warn'`.
   */
  logLevel?: LogLevel | undefined;
  /** Every failure, with the error itself (your `onEvent`'s errors may hold your data: log them with care). */
  onError?: ((error: unknown, info: InboxWorkerErrorInfo) => void) | undefined;
}

/** An event in the failed set. */
export interface FailedInboxEvent {
  jobId: string;
  /** The event's `kind` (the job's name). */
  kind: string;
  attemptsMade: number;
  /** The last error's message, as your `onEvent` threw it. */
  failedReason: string | undefined;
  /** When it failed for the last time, ms since the epoch. */
  failedAt: number | undefined;
  /** The stored event; `undefined` when the job's data is not of the inbox's shape. */
  event: WebhookEvent | undefined;
}

/** Counts of the queue's jobs by state. */
export interface InboxCounts {
  waiting: number;
  active: number;
  delayed: number;
  completed: number;
  failed: number;
}

export interface InboxWorker {
  /** Resolves once the worker is connected and taking jobs. */
  ready(): Promise<void>;
  /** The failed set, newest first: `start`..`end` inclusive (default the first 100). */
  failed(range?: { start?: number | undefined; end?: number | undefined }): Promise<FailedInboxEvent[]>;
  /**
   * Puts failed events back in the queue with their attempts reset: one by job id, or every one with `'all'`.
   * Answers how many were put back (0 for an id that is not in the failed set).
   */
  replay(target: string | 'all'): Promise<number>;
  /** Job counts by state, for health checks and dashboards. */
  counts(): Promise<InboxCounts>;
  /**
   * Stops taking jobs, aborts the running `onEvent`s' `signal`, waits for them to return (at most `closeTimeoutMs`),
   * and closes the connection. Always resolves: an `onEvent` that ignores its signal and hangs is left behind (its
   * job ids logged), never waited for past `closeTimeoutMs`.
   *
   * @example
   * process.on('SIGTERM', () => void worker.close().then(() => process.exit(0)));
   */
  close(): Promise<void>;
}

const ROLE = 'createInboxWorker';

/**
 * How many times a job's run may be cut short (its worker died, or lost the job's lock or Redis) and the job still
 * run again; one more and BullMQ moves it to the failed set ("job stalled more than allowable limit"). BullMQ's
 * default, 1, fails an event after a lost lock followed by one Redis outage, though every run of onEvent returned.
 * Two absorbs two independent accidents, and still stops an event that kills every worker running it (a crash,
 * an out-of-memory) after three workers, rather than crash-looping the fleet.
 */
const MAX_STALLED_COUNT = 2;

function integerOption(value: unknown, fallback: number, name: string, max: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > max) {
    throw new ConfigurationError(`${ROLE}: \`${name}\` must be an integer from 1 to ${max}`);
  }
  return value;
}

function backoffDelay(backoff: InboxBackoff): (retry: number) => number {
  const { type, delayMs } = backoff;
  const maxDelayMs = backoff.maxDelayMs ?? 3_600_000;
  if (
    (type !== 'fixed' && type !== 'exponential') ||
    !(delayMs >= 0) ||
    !Number.isFinite(delayMs) ||
    !(maxDelayMs >= 0)
  ) {
    throw new ConfigurationError(
      `${ROLE}: \`backoff\` must be { type: 'fixed' | 'exponential', delayMs: number >= 0, maxDelayMs? }`,
    );
  }
  return (retry) => Math.min(maxDelayMs, type === 'fixed' ? delayMs : delayMs * 2 ** Math.max(0, retry - 1));
}

function wrap(what: string, error: unknown): InboxError {
  if (error instanceof InboxError) return error;
  return new InboxError(`${what} failed (${errorMeta(error).errorName})`, 'unavailable', error);
}

/**
 * Processes the events the inbox handlers stored: runs `onEvent` for each, retries a failure after `backoff` up
 * to `attempts` runs, then keeps the event in a failed set you can list (`failed()`) and put back (`replay()`).
 * `onEvent` has no deadline here: the gateway was answered when the event was stored.
 *
 * Throws `ConfigurationError` at creation for bad options. Redis faults never throw out of the worker: it
 * reconnects by itself and reports them through `logger` and `onError`. `close()` aborts the running events'
 * `context.signal` and waits for them at most `closeTimeoutMs`.
 *
 * @example
 * const worker = createInboxWorker({
 *   connection: process.env.REDIS_URL!,
 *   concurrency: 20,
 *   onEvent: async (event, { signal }) => { if (event.kind === 'message') await crm.save(event, { signal }); },
 * });
 * process.on('SIGTERM', () => void worker.close());
 */
export function createInboxWorker(options: InboxWorkerOptions): InboxWorker {
  if (typeof options !== 'object' || options === null) {
    throw new ConfigurationError(`${ROLE}: options are required ({ connection, onEvent })`);
  }
  const { onEvent } = options;
  // The handler's and the inbox's rule: the given logger (none for `false`), else the console, at `logLevel`,
  // else WA_GATEWAY_LOG, else `warn`.
  const logger = resolveWebhookLogger(options.logger, options.logLevel);
  if (typeof onEvent !== 'function') throw new ConfigurationError(`${ROLE}: \`onEvent\` must be a function`);
  const queue = queueOptions(options, ROLE);
  const concurrency = integerOption(options.concurrency, 1, 'concurrency', 10_000);
  const attempts = integerOption(options.attempts, 5, 'attempts', 1000);
  const delay = backoffDelay(options.backoff ?? { type: 'exponential', delayMs: 1000 });
  const lockDuration = integerOption(options.lockDurationMs, 30_000, 'lockDurationMs', 86_400_000);
  const closeTimeoutMs = boundedDurationMs(
    options.closeTimeoutMs,
    `${ROLE}: \`closeTimeoutMs\``,
    10_000,
    MAX_TIMER_MS,
  );

  const { log, report } = safeHooks(options, logger);

  // Loaded before any connection is opened: a missing bullmq must not leave a Redis connection behind.
  const { Queue, UnrecoverableError, WaitingError, Worker } = loadOptionalPeer<typeof BullMQ>('bullmq', ROLE);
  const client: RedisClient = openRedis(options.connection, BLOCKING_READS, logger, ROLE);
  const prefix = queuePrefix(client, queue.prefix, queue.name);

  const runs = new InboxRuns(concurrency);
  // Jobs whose failure the processor reported itself: BullMQ's 'failed' event reports the others.
  const reported = new WeakSet<Job>();
  const hint = typeof options.onError === 'function' ? '' : ON_ERROR_HINT;
  const processor = jobProcessor({
    onEvent,
    attempts,
    log,
    report,
    UnrecoverableError,
    WaitingError,
    runs,
    reported,
  });

  const worker = new Worker(queue.name, processor, {
    connection: client,
    prefix,
    concurrency,
    lockDuration,
    maxStalledCount: MAX_STALLED_COUNT,
    // A job whose worker vanished (or whose hand-over was cut by a Redis outage) is noticed on this check: tied to
    // the lock so `lockDurationMs` alone bounds how long such a job waits.
    stalledInterval: lockDuration,
    // How long BullMQ waits before trying again to record a result (or fetch the next job) after a Redis error.
    // Its 15 s default leaves finished jobs unrecorded long after a short outage; 1 s resumes with the connection.
    runRetryDelay: 1000,
    settings: {
      backoffStrategy: (attemptsMade: number, type?: string) =>
        // A job from another producer on this queue keeps whatever it asked for: no wait when it named none.
        type === INBOX_BACKOFF_TYPE ? delay(attemptsMade) : 0,
    },
  });
  // Without this listener an 'error' event (Redis went away) would crash the host process.
  worker.on('error', (error) => {
    const jobId = jobIdOf(error);
    if (isConnectionError(error)) {
      // An outage is logged once, by the connection's rule, whichever of the worker's connections saw it first.
      noteConnectionError(client, logger, ROLE, error);
    } else {
      // Redis answered: not an outage. Said as what it is, so that a real outage later is still logged (a lost
      // lock by the 'lockRenewalFailed' listener below, which knows whether onEvent still ran). A result Redis
      // refused is said with how the run ended, once: BullMQ reports it again as it fails to record the failure it
      // makes of it, and a refusal after the run's lost lock was said is no news.
      const refusal = refusedResult(error);
      const outcome = refusal && runs.refused(refusal.jobId);
      if (outcome === 'said') return;
      if (outcome === undefined) {
        logWorkerError(ROLE, (message, meta) => log(message, meta, 'warn'), error, ['lock-renewal']);
      } else if (refusal !== undefined && !outcome.lockLost) {
        log(
          `${ROLE}: job ${refusal.jobId} (${runOf(outcome)}): ${didWhat(outcome)}, but Redis refused to record its ` +
            `result: ${refusal.why} (Redis answered: not an outage)`,
          { ...runMeta(refusal.jobId, outcome), ...errorMeta(error) },
          'warn',
        );
      }
    }
    report(error, jobId === undefined ? { stage: 'worker' } : { stage: 'worker', jobId });
  });
  worker.on('completed', (job: Job) => {
    runs.recorded(String(job.id));
  });
  worker.on('lockRenewalFailed', (jobIds: string[]) => {
    for (const jobId of jobIds) {
      if (!runs.lockLost(jobId)) continue;
      log(
        `${ROLE}: job ${jobId}: lost the job's lock while onEvent ran (an event loop blocked longer than ` +
          'lockDurationMs, or a run cut by an outage); its signal is aborted and another worker may run the event',
        { jobId },
        'warn',
      );
    }
  });
  worker.on('stalled', (jobId: string) => {
    log(
      `${ROLE}: job ${jobId} stalled (the worker running it died, or lost its lock or Redis); it runs again`,
      { jobId },
      'warn',
    );
  });
  worker.on('failed', (job: Job | undefined, error: Error) => {
    if (job === undefined) return;
    // onEvent's failure, now recorded: retried, or in the failed set.
    const outcome = runs.recorded(String(job.id));
    if (outcome?.failure !== undefined) return logFailure(log, hint, String(job.id), outcome);
    // BullMQ failed it without running onEvent: it stalled more than MAX_STALLED_COUNT times.
    if (reported.has(job)) return;
    const jobId = String(job.id);
    log(
      `${ROLE}: job ${jobId} moved to the failed set without running onEvent: ${failedReasonOf(error)}. Its runs were ` +
        'cut short (a worker died, lost its lock or Redis) and one may have finished: check, then replay(jobId)',
      { jobId, kind: job.name, reason: failedReasonOf(error) },
    );
    report(error, { stage: 'worker', jobId, attempt: job.attemptsMade, final: true });
  });
  const admin = new Queue(queue.name, { connection: client, prefix });
  admin.on('error', () => {
    // Logged through the worker's listener and the connection's.
  });
  let closing: Promise<void> | undefined;
  let clusterNode = false;
  // A standalone connection on a cluster node: stop taking jobs rather than loop on MOVED.
  refuseClusterNode(client, logger, ROLE, () => {
    clusterNode = true;
    void worker.close(true).catch(() => {});
  });
  const checked = <T>(run: () => Promise<T>): Promise<T> =>
    clusterNode ? Promise.reject(clusterNodeError()) : run();

  return {
    async ready() {
      try {
        await worker.waitUntilReady();
      } catch (error) {
        // Closed because its connection reached a cluster node: say that, not "could not connect".
        throw clusterNode ? clusterNodeError() : wrap('Connecting the inbox worker', error);
      }
      if (await connectedToClusterNode(client)) throw clusterNodeError();
    },
    failed: (range = {}) => checked(() => failedEvents(admin, range)),
    replay: (target) => checked(() => replayFailed(admin, target)),
    counts: () => checked(() => jobCounts(admin)),
    close() {
      closing ??= (async () => {
        runs.close();
        // Paused, not closed, while the runs finish: BullMQ's close cannot be forced once begun.
        await worker.pause(true).catch(() => {});
        const settled = await runs.settled(closeTimeoutMs);
        if (!settled) {
          log(
            `${ROLE}: close(): onEvent still running after closeTimeoutMs (${closeTimeoutMs} ms); closing anyway. ` +
              'These jobs run again once their lock expires',
            { jobIds: runs.jobIds(), closeTimeoutMs },
          );
        }
        // BullMQ's close waits for its fetch loop, which waits for a Redis that cannot be reached: without Redis
        // no job's result could be recorded anyway (an unfinished job runs again once its lock expires), so it
        // closes without waiting, as it does when a run is left behind.
        const force = !settled || client.status !== 'ready';
        // A backstop: a job fetched while pausing would be waited for without bound.
        await settleWithin(
          worker.close(force).catch(() => {
            // A worker whose Redis is gone cannot close politely; the connection is dropped below.
          }),
          closeTimeoutMs,
        );
        // Runs that ended with their result neither recorded nor refused (Redis went away meanwhile): their line.
        for (const [jobId, outcome] of runs.unrecorded()) {
          log(
            `${ROLE}: job ${jobId} (${runOf(outcome)}): ${didWhat(outcome)}, but its result was not recorded before ` +
              'the worker closed; the event runs again once its lock expires',
            runMeta(jobId, outcome),
            'warn',
          );
        }
        try {
          await admin.close();
        } catch {
          // Same.
        }
        await closeRedis(client);
      })();
      return closing;
    },
  };
}

/** A run, for its line: `message, attempt 2`. */
function runOf(outcome: RunOutcome): string {
  return `${outcome.kind}, attempt ${outcome.attempt}`;
}

/** What onEvent did: `onEvent returned`, `onEvent failed (TypeError)`. */
function didWhat({ failure }: RunOutcome): string {
  if (failure === undefined) return 'onEvent returned';
  return failure.stopped
    ? `onEvent stopped (${failure.errorName}) as its lock was lost`
    : `onEvent failed (${failure.errorName})`;
}

function runMeta(jobId: string, { kind, attempt, failure }: RunOutcome): Record<string, unknown> {
  return { jobId, kind, attempt, ...(failure === undefined ? {} : { errorName: failure.errorName }) };
}

/** onEvent's failure, once BullMQ recorded it: retried after the backoff, or (no attempt left) in the failed set. */
function logFailure(log: ProcessorContext['log'], hint: string, jobId: string, outcome: RunOutcome): void {
  const { failure } = outcome;
  if (failure === undefined) return;
  const what = failure.stopped ? "onEvent stopped as the job's lock was lost" : 'onEvent failed';
  log(
    `${ROLE}: ${what}${failure.final ? '; no attempt left, moved to the failed set' : '; will retry'}${hint}`,
    runMeta(jobId, outcome),
    failure.final ? 'error' : 'warn',
  );
}

/** A failed reason of BullMQ's own (a stall, a start limit): its words, cut short, never an event's data. */
function failedReasonOf(error: unknown): string {
  return messageOf(error).slice(0, 200) || errorMeta(error).errorName;
}

/** Waits for `promise`, or `ms` at most. */
async function settleWithin(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([promise, new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))]);
  clearTimeout(timer);
}

/** What a job run needs from the worker. */
interface ProcessorContext {
  onEvent: InboxWorkerOptions['onEvent'];
  attempts: number;
  log(message: string, meta: Record<string, unknown>, level?: 'warn' | 'error'): void;
  report(error: unknown, info: InboxWorkerErrorInfo): void;
  UnrecoverableError: typeof BullMQ.UnrecoverableError;
  WaitingError: typeof BullMQ.WaitingError;
  runs: InboxRuns;
  /** Jobs whose failure the processor reported (the worker's `'failed'` listener skips them). */
  reported: WeakSet<Job>;
}

/** Runs `onEvent` for one job: a failure is retried until the last attempt, then kept in the failed set. */
function jobProcessor(context: ProcessorContext) {
  const { onEvent, attempts, log, report, UnrecoverableError, runs, reported } = context;
  return async (job: Job, token?: string): Promise<void> => {
    const jobId = String(job.id);
    const parsed = inboxJobDataSchema.safeParse(job.data);
    if (!parsed.success) {
      const error = new InboxError('An inbox job holds data of an unexpected shape', 'unexpected_reply');
      log(`${ROLE}: ${error.message}; moved to the failed set`, { jobId });
      report(error, { stage: 'job_data', jobId, final: true });
      reported.add(job);
      throw new UnrecoverableError(error.message);
    }
    const attempt = job.attemptsMade + 1;
    const { event, receivedAt } = parsed.data;
    const run = runs.start(jobId);
    let failure: { error: unknown } | undefined;
    try {
      await onEvent(event as unknown as WebhookEvent, {
        jobId,
        attempt,
        attempts,
        receivedAt,
        signal: run.signal,
      });
    } catch (error) {
      failure = { error };
    } finally {
      // Ended before the result is recorded: close() waits for onEvent, BullMQ for the recording.
      runs.end(run);
    }
    if (failure === undefined) {
      // Said (if at all) once BullMQ has recorded the result, or Redis refused it.
      runs.ended(run, { kind: event.kind, attempt });
      return;
    }
    const { error } = failure;
    reported.add(job);
    const { errorName } = errorMeta(error);
    if (run.signal.aborted) {
      if (runs.closing && token !== undefined) return stopped(context, job, token, event.kind);
      // Its lock was lost (and said): BullMQ records the failure, or Redis refuses it, another worker's now.
      runs.ended(run, { kind: event.kind, attempt, failure: { errorName, final: false, stopped: true } });
      throw error;
    }
    const final = attempt >= attempts;
    runs.ended(run, { kind: event.kind, attempt, failure: { errorName, final, stopped: false } });
    report(error, { stage: 'onEvent', jobId, attempt, final });
    if (!final) throw error;
    let message = 'onEvent failed';
    try {
      if (error instanceof Error) message = error.message;
    } catch {
      // A hostile error: keep the generic reason.
    }
    throw new UnrecoverableError(message);
  };
}

/** An `onEvent` that threw after `close()` aborted its signal: the event goes back to the queue, its attempt not counted. */
async function stopped(
  { log, WaitingError }: ProcessorContext,
  job: Job,
  token: string,
  kind: string,
): Promise<never> {
  const jobId = String(job.id);
  await job.moveToWait(token);
  log(
    `${ROLE}: onEvent stopped as the worker closes; the event is back in the queue`,
    { jobId, kind },
    'warn',
  );
  throw new WaitingError();
}

/** The failed set, a page at a time. */
async function failedEvents(
  admin: BullMQ.Queue,
  range: { start?: number; end?: number },
): Promise<FailedInboxEvent[]> {
  let jobs: Job[];
  try {
    jobs = (await admin.getFailed(range.start ?? 0, range.end ?? 99)) as Job[];
  } catch (error) {
    throw wrap('Listing failed inbox events', error);
  }
  return jobs
    .filter((job): job is Job => job !== null && job !== undefined && typeof job.id === 'string')
    .map((job) => {
      const parsed = inboxJobDataSchema.safeParse(job.data);
      return {
        jobId: job.id as string,
        kind: job.name,
        attemptsMade: job.attemptsMade,
        failedReason: job.failedReason ?? undefined,
        failedAt: job.finishedOn ?? undefined,
        event: parsed.success ? (parsed.data.event as unknown as WebhookEvent) : undefined,
      };
    });
}

/** Puts one failed job (by id) or every failed job back, attempts reset; answers how many moved. */
async function replayFailed(admin: BullMQ.Queue, target: string): Promise<number> {
  if (typeof target !== 'string' || target === '') {
    throw new ConfigurationError(`${ROLE}: replay() takes a job id or 'all'`);
  }
  const retry = async (job: Job | undefined): Promise<number> => {
    if (!job || (await job.getState()) !== 'failed') return 0;
    await job.retry('failed', { resetAttemptsMade: true, resetAttemptsStarted: true });
    return 1;
  };
  try {
    if (target !== 'all') return await retry((await admin.getJob(target)) as Job | undefined);
    let replayed = 0;
    // Page from the start each time: a replayed job leaves the failed set.
    for (;;) {
      const page = (await admin.getFailed(0, 99)) as Job[];
      if (page.length === 0) return replayed;
      let moved = 0;
      for (const job of page) moved += await retry(job);
      replayed += moved;
      if (moved === 0) return replayed;
    }
  } catch (error) {
    throw wrap('Replaying failed inbox events', error);
  }
}

async function jobCounts(admin: BullMQ.Queue): Promise<InboxCounts> {
  try {
    const c = await admin.getJobCounts('waiting', 'active', 'delayed', 'completed', 'failed');
    const n = (k: string): number => (typeof c[k] === 'number' ? (c[k] as number) : 0);
    return {
      waiting: n('waiting'),
      active: n('active'),
      delayed: n('delayed'),
      completed: n('completed'),
      failed: n('failed'),
    };
  } catch (error) {
    throw wrap('Counting inbox jobs', error);
  }
}

/** The application's logger and error hook, neither of which may change a job's outcome by throwing. */
function safeHooks(
  options: InboxWorkerOptions,
  logger: Logger | undefined,
): Pick<ProcessorContext, 'log' | 'report'> {
  const log = (message: string, meta: Record<string, unknown>, level: 'warn' | 'error' = 'error'): void =>
    writeLog(logger, level, message, meta);
  // Neither may the application's error hook, even when it is async and rejects.
  const report = (error: unknown, info: InboxWorkerErrorInfo): void =>
    callObserver(options.onError, [error, info], (errorName) => log('onError failed', { errorName }, 'warn'));
  return { log, report };
}
