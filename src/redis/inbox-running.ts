/**
 * The `onEvent` runs an inbox worker has under way, each with the abort controller behind its `context.signal`:
 * the worker aborts one when BullMQ reports the job's lock lost, and all of them when it closes, then waits for them
 * to return, for a bounded time. The SDK owns these controllers rather than relaying BullMQ's processor signal, so
 * that a run that starts while the worker is closing gets a signal already aborted.
 *
 * Also how each run ended, until BullMQ records its result (or Redis refuses it): one run is one log line, written
 * once its fate is known, with what `onEvent` did and what became of it.
 */
import { RefusalsSaid } from './worker-errors.js';

/** One run of `onEvent`. */
export interface InboxRun {
  readonly jobId: string;
  readonly signal: AbortSignal;
}

/** How a run of `onEvent` ended, kept until its result is recorded or refused. */
export interface RunOutcome {
  readonly kind: string;
  readonly attempt: number;
  /** `undefined` when onEvent returned. `stopped`: it threw after its lock was lost (its signal aborted). */
  readonly failure?: { readonly errorName: string; readonly final: boolean; readonly stopped: boolean };
  /** Whether the run's lost lock was logged already: Redis refusing its result is then no news. */
  readonly lockLost: boolean;
}

/** Why a run's signal was aborted: `signal.reason`, a `DOMException` named `AbortError` as `fetch` expects. */
const reasons = {
  closing: 'The inbox worker is closing: stop, and throw to have the event put back in the queue',
  lock_lost: "The inbox worker lost this job's lock: another worker may run the event",
} as const;

/** @internal The runs under way in one worker. */
export class InboxRuns {
  readonly #runs = new Map<InboxRun, AbortController>();
  readonly #lockLost = new WeakSet<InboxRun>();
  /** Ended runs by job id, until their result is recorded or refused. */
  readonly #ended = new Map<string, RunOutcome>();
  /** Most ended runs kept (a result BullMQ never reports on would stay otherwise). */
  readonly #maxEnded: number;
  /** The jobs whose refused result was said: BullMQ reports one refusal twice. */
  readonly #refusals: RefusalsSaid;
  #closing = false;
  #idle: (() => void)[] = [];

  /** `concurrency`: the worker's; at most that many results await recording at once. */
  constructor(concurrency = 1) {
    this.#maxEnded = concurrency * 2 + 100;
    this.#refusals = new RefusalsSaid(this.#maxEnded);
  }

  /** Whether `close()` has begun: a run aborted then is put back in the queue. */
  get closing(): boolean {
    return this.#closing;
  }

  start(jobId: string): InboxRun {
    const controller = new AbortController();
    const run = { jobId, signal: controller.signal };
    this.#runs.set(run, controller);
    this.#refusals.ran(jobId);
    if (this.#closing) controller.abort(abortReason('closing'));
    return run;
  }

  end(run: InboxRun): void {
    this.#runs.delete(run);
    if (this.#runs.size > 0) return;
    for (const resolve of this.#idle.splice(0)) resolve();
  }

  /**
   * Aborts the runs of `jobId` (one worker may run a job twice: it lost the lock, then took the job again). Answers
   * whether that is news: BullMQ reports a lost lock on every renewal until the run returns, the log once.
   */
  lockLost(jobId: string): boolean {
    let news = true;
    for (const [run, controller] of this.#runs) {
      if (run.jobId !== jobId) continue;
      news = !this.#lockLost.has(run);
      this.#lockLost.add(run);
      controller.abort(abortReason('lock_lost'));
    }
    return news;
  }

  /** Keeps how `run` ended, until `recorded` or `refused` takes it. */
  ended(run: InboxRun, outcome: Omit<RunOutcome, 'lockLost'>): void {
    this.#ended.delete(run.jobId);
    this.#ended.set(run.jobId, { ...outcome, lockLost: this.#lockLost.has(run) });
    for (const jobId of this.#ended.keys()) {
      if (this.#ended.size <= this.#maxEnded) break;
      this.#ended.delete(jobId);
    }
  }

  /** BullMQ recorded the job's result: how its run ended (forgotten now), if this worker ran it. */
  recorded(jobId: string): RunOutcome | undefined {
    const outcome = this.#ended.get(jobId);
    this.#ended.delete(jobId);
    return outcome;
  }

  /**
   * Redis refused to record the job's result: how its run ended the first time it is asked, `'said'` after (BullMQ
   * reports one refusal twice: of the result, then of the failure it makes of that), `undefined` if unknown here.
   */
  refused(jobId: string): RunOutcome | 'said' | undefined {
    if (!this.#refusals.first(jobId)) return 'said';
    const outcome = this.#ended.get(jobId);
    this.#ended.delete(jobId);
    return outcome;
  }

  /**
   * The runs ended whose result was neither recorded nor refused (for `close()` to say), but those whose lost lock
   * was said (their result is another worker's to record); forgotten now.
   */
  unrecorded(): [string, RunOutcome][] {
    const left = [...this.#ended].filter(([, outcome]) => !outcome.lockLost);
    this.#ended.clear();
    return left;
  }

  /** Aborts every run, and every run started from now on. */
  close(): void {
    this.#closing = true;
    for (const controller of this.#runs.values()) controller.abort(abortReason('closing'));
  }

  /** The job ids still running. */
  jobIds(): string[] {
    return [...this.#runs.keys()].map((run) => run.jobId);
  }

  /** Resolves `true` once no run is under way, or `false` after `timeoutMs` if some still are. */
  settled(timeoutMs: number): Promise<boolean> {
    if (this.#runs.size === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), timeoutMs);
      this.#idle.push(() => {
        clearTimeout(timer);
        resolve(true);
      });
    });
  }
}

function abortReason(why: keyof typeof reasons): DOMException {
  return new DOMException(reasons[why], 'AbortError');
}
