/**
 * The `onEvent` runs an inbox worker has under way, each with the abort controller behind its `context.signal`:
 * the worker aborts one when BullMQ reports the job's lock lost, and all of them when it closes, then waits for them
 * to return, for a bounded time. The SDK owns these controllers rather than relaying BullMQ's processor signal, so
 * that a run that starts while the worker is closing gets a signal already aborted.
 */

/** One run of `onEvent`. */
export interface InboxRun {
  readonly jobId: string;
  readonly signal: AbortSignal;
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
  #closing = false;
  #idle: (() => void)[] = [];

  /** Whether `close()` has begun: a run aborted then is put back in the queue. */
  get closing(): boolean {
    return this.#closing;
  }

  start(jobId: string): InboxRun {
    const controller = new AbortController();
    const run = { jobId, signal: controller.signal };
    this.#runs.set(run, controller);
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
