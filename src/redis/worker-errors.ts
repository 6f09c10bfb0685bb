/**
 * A BullMQ worker relays on `'error'` both its connections' failures (an outage: `connection-log.ts` logs those)
 * and errors Redis answered about a job (a lock lost, a job removed while it ran). The SDK's workers (the durable
 * inbox's, the campaign queue's) log the second kind here, as what it is, with the job id: never as an outage,
 * which would hide the real one after it.
 */
import { errorMeta, messageOf, RedisStoreError } from './errors.js';

/** The job id in one of BullMQ's job errors ("could not renew lock for job X", "Missing lock for job X. cmd"). */
const JOB_ID_IN_MESSAGE = /\bjob (\S+?)\.?(?:\s|$)/i;

/** Which of BullMQ's job errors: a worker whose own listener already says one passes its kind to skip it. */
export type JobErrorKind = 'lock-renewal' | 'lock-missing' | 'job-missing' | 'job-moved';

/**
 * What BullMQ's job errors mean, for the log line (data, not branches: the first match wins). `refused`: why Redis
 * refused to record a run's result, for the errors that are such a refusal.
 */
const JOB_ERRORS: readonly { kind: JobErrorKind; pattern: RegExp; says: string; refused?: string }[] = [
  {
    kind: 'lock-renewal',
    pattern: /^could not renew lock for job /,
    says:
      "lost the job's lock while it ran (an event loop blocked longer than lockDurationMs, or a run cut by an " +
      'outage); another worker may run the job',
  },
  {
    kind: 'lock-missing',
    pattern: /^(Missing lock|Lock mismatch) for job /,
    says:
      "could not record the job's result: its lock had expired or another worker held it; that worker runs " +
      'the job (again)',
    refused: 'its lock had expired or another worker held it; that worker runs the job (again)',
  },
  {
    kind: 'job-missing',
    pattern: /^Missing key for job /,
    says: 'the job was removed while it ran',
    refused: 'the job was removed while it ran',
  },
  {
    kind: 'job-moved',
    pattern: /^Job \S+ is not in the /,
    says: 'the job had moved on (another worker, or a replay) while it ran',
    refused: 'the job had moved on (another worker, or a replay) while it ran',
  },
];

/** @internal The job id an error of BullMQ's names, if any. */
export function jobIdOf(error: unknown): string | undefined {
  return JOB_ID_IN_MESSAGE.exec(messageOf(error))?.[1];
}

/** BullMQ's job error this is, if it is one. */
function jobErrorOf(error: unknown): (typeof JOB_ERRORS)[number] | undefined {
  const message = messageOf(error);
  return JOB_ERRORS.find(({ pattern }) => pattern.test(message));
}

/** @internal Which of BullMQ's job errors this is (for a worker whose other listener says that kind). */
export function jobErrorKindOf(error: unknown): JobErrorKind | undefined {
  return jobErrorOf(error)?.kind;
}

/**
 * @internal The error BullMQ emits on `'error'` for each job of a `'lockRenewalFailed'` event (its lock-manager.js):
 * for a `'lockRenewalFailed'` listener that says the lost lock itself, as the `'error'` listener would have.
 */
export function lockRenewalError(jobId: string): Error {
  return new Error(`could not renew lock for job ${jobId}`);
}

/**
 * @internal When `error` is Redis refusing to record a run's result (the job's lock expired or is another worker's,
 * the job was removed or moved on): the job id and why, in words. `undefined` for any other error.
 */
export function refusedResult(error: unknown): { jobId: string; why: string } | undefined {
  const why = jobErrorOf(error)?.refused;
  const jobId = jobIdOf(error);
  return why === undefined || jobId === undefined ? undefined : { jobId, why };
}

/**
 * @internal The jobs whose refused result a worker (the inbox's, the campaign queue's) said: BullMQ reports one
 * refusal twice (of the result, then of the failure it makes of that refusal), the log and `onError` once. A job
 * this worker runs again is forgotten (`ran`), so a refusal of that later run is said too; at most `max` are kept.
 */
export class RefusalsSaid {
  readonly #ids = new Set<string>();
  constructor(readonly max: number) {}

  /** Whether this is the first report of the job's refusal (then noted). */
  first(jobId: string): boolean {
    if (this.#ids.has(jobId)) return false;
    this.#ids.add(jobId);
    for (const id of this.#ids) {
      if (this.#ids.size <= this.max) break;
      this.#ids.delete(id);
    }
    return true;
  }

  /** The job runs here again: a refusal of this run is news. */
  ran(jobId: string): void {
    this.#ids.delete(jobId);
  }
}

/**
 * @internal A BullMQ job error as the `RedisStoreError` a worker's `onError` gets: `lease_lost`, as each is a
 * job's lock or state that another worker (or a replay) took over, never an outage to page someone for. `undefined`
 * for any other error.
 */
export function jobStoreError(error: unknown, operation: string): RedisStoreError | undefined {
  const known = jobErrorOf(error);
  if (known === undefined) return undefined;
  const { errorName } = errorMeta(error);
  const jobId = jobIdOf(error);
  return new RedisStoreError(
    `${operation}: ${jobId === undefined ? 'a job' : `job ${jobId}`}: ${known.says}.`,
    {
      failure: 'lease_lost',
      operation,
      causeName: errorName,
    },
  );
}

/**
 * @internal Logs (through `log`, at the caller's level) a worker error that is not a connection error: a BullMQ
 * job error with its job id and meaning; anything else by its name and code only (its message may quote a
 * command's arguments). `role` names the worker; `saidElsewhere` lists the job errors the worker's other
 * listeners already log.
 */
export function logWorkerError(
  role: string,
  log: (message: string, meta: Record<string, unknown>) => void,
  error: unknown,
  saidElsewhere: readonly JobErrorKind[] = [],
): void {
  const jobId = jobIdOf(error);
  const known = jobErrorOf(error);
  if (known !== undefined && saidElsewhere.includes(known.kind)) return;
  const meta = { ...errorMeta(error), ...(jobId === undefined ? {} : { jobId }) };
  if (known !== undefined && jobId !== undefined) {
    log(`${role}: job ${jobId}: ${known.says} (Redis answered: not an outage)`, meta);
  } else {
    log(`${role}: the worker reported an error (Redis answered: not an outage)`, meta);
  }
}
