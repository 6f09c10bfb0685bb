/** The recording of one `sendMany({ campaign })`'s results, and the error it throws when the store fails. */
import { brandError, WaGatewayError } from '../core/errors.js';
import { stringField } from '../core/plain-data.js';
import type { SendManyRecorder, SendManyResult } from '../gateway/send-many.js';
import type { WebhookStatus } from '../webhooks/schemas.js';
import { Batch, type CampaignResult } from './records.js';
import type { CampaignRecordBatch } from './store.js';

/**
 * Some `sendMany` results of a campaign could not be recorded (the store failed), or statuses that had arrived
 * before their results could not be applied once the results were; the sends themselves stand.
 */
export class CampaignRecordError extends WaGatewayError {
  override name = 'CampaignRecordError';
  /** The campaign whose results were not recorded. */
  readonly campaign: string;
  /** Results not recorded: pass them to `tracker.record(campaign, results)` once the store is back. */
  readonly unrecorded: readonly CampaignResult[];
  /**
   * Statuses that arrived before their send results were recorded and could not be applied after: the results
   * themselves are recorded (never record them again); pass each status to `tracker.apply(status)` instead.
   */
  readonly unapplied: readonly WebhookStatus[];
  constructor(
    campaign: string,
    unrecorded: readonly CampaignResult[],
    cause: unknown,
    unapplied: readonly WebhookStatus[] = [],
  ) {
    const parts: string[] = [];
    if (unrecorded.length > 0)
      parts.push(
        `${unrecorded.length} send results of campaign '${campaign}' could not be recorded (the campaign store failed); the messages were sent as reported. Record them again with tracker.record('${campaign}', error.unrecorded) once the store is reachable.`,
      );
    if (unapplied.length > 0)
      parts.push(
        `${unapplied.length} statuses of campaign '${campaign}' that arrived before their send results could not be applied (their results are recorded: do not record them again). Apply each with tracker.apply(status) from error.unapplied once the store is reachable.`,
      );
    super(parts.join(' '), { cause });
    this.campaign = campaign;
    this.unrecorded = unrecorded;
    this.unapplied = unapplied;
  }
}
brandError(CampaignRecordError, 'CampaignRecordError');

/** The time and timers a recorder runs on (`CampaignTrackerOptions.clock`). */
export interface CampaignClock {
  /** Milliseconds since the epoch. */
  now(): number;
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** `Date.now` and the global timers; a recorder's timers never keep a process alive on their own. */
export const SYSTEM_CLOCK: CampaignClock = {
  now: () => Date.now(),
  setTimeout: (callback, ms) => {
    const timer = setTimeout(callback, ms);
    (timer as { unref?: () => void }).unref?.();
    return timer;
  },
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/** What a recorder needs from its tracker. */
export interface RecorderDeps {
  /** The store's note that a campaign send is under way (`CampaignStore.sending`). */
  sending(): Promise<void>;
  /**
   * Writes a batch (rejects when it could not), then applies the statuses parked for it: those it could not
   * apply are returned, with why.
   */
  write(batch: CampaignRecordBatch): Promise<{ unapplied: readonly WebhookStatus[]; error?: unknown }>;
  clock: CampaignClock;
  batchSize: number;
  /** The longest a result waits in the buffer: at most half of `parkMs`. */
  maxAgeMs: number;
  /** How long the store parks a status after the note (`CampaignStore.parkMs`). */
  parkMs: number;
}

const DONE: Promise<void> = Promise.resolve();

/**
 * One recording of a campaign's send results (`tracker.recorder(id)`, which `sendMany({ campaign })` opens):
 *
 * - results are buffered and written `batchSize` at a time (the send that fills the buffer waits for the write,
 *   so a slow store slows the sends instead of growing memory), or once the oldest is `maxAgeMs` old, at most
 *   half of the store's `parkMs`: a status parked before its result is still there when the result is written,
 *   however long the sender waits between results;
 * - a send starts only while the store's note that a campaign send is under way is less than half of `parkMs`
 *   old (else `beginSend` renews it first), and while a send is out or a result waits in the buffer the note is
 *   renewed every third of `parkMs`: a status that beats its result is parked, never dropped, after any pause of
 *   the source or however long a send takes. An idle recorder keeps no timer (nothing holds it);
 * - a failed write keeps its results, and a status parked for them that could not be applied after is kept too;
 *   `flush` and `close` throw `CampaignRecordError` with them.
 */
export class CampaignRecorder implements SendManyRecorder {
  readonly #deps: RecorderDeps;
  readonly #batch: Batch;
  /** Writes under way; each settles without rejecting (a failure moves its results to `#unrecorded`). */
  readonly #writes = new Set<Promise<void>>();
  #unrecorded: CampaignResult[] = [];
  #unapplied: WebhookStatus[] = [];
  #error: unknown;
  #ageTimer: unknown;
  #renewTimer: unknown;
  /** Sends begun whose request has not settled yet. */
  #sending = 0;
  /** When the store's note was last asked for, by the clock (the note lasts `parkMs` from then at least). */
  #markedAt = Number.NEGATIVE_INFINITY;
  #marking: Promise<void> | undefined;
  #closed = false;

  constructor(
    readonly campaign: string,
    deps: RecorderDeps,
  ) {
    this.#deps = deps;
    this.#batch = new Batch(deps.clock.now);
    this.#mark();
  }

  get isReady(): boolean {
    return this.#deps.clock.now() - this.#markedAt < this.#deps.parkMs / 2;
  }

  get ready(): Promise<void> {
    return this.isReady ? DONE : this.#mark();
  }

  beginSend(): Promise<void> | undefined {
    this.#sending++;
    this.#keepRenewed();
    return this.isReady ? undefined : this.#mark();
  }

  endSend(): void {
    if (this.#sending > 0) this.#sending--;
  }

  /** Buffers one result (`message` is what was sent); a promise only when the buffer is written. */
  add(result: SendManyResult, message: unknown): Promise<void> | undefined {
    const entry: CampaignResult = { result, to: stringField(message, 'to') ?? '' };
    if (this.#closed) return this.#late(entry);
    this.#batch.add(entry);
    if (this.#batch.size >= this.#deps.batchSize) return this.#flush();
    if (this.#batch.size === 1) {
      this.#ageTimer = this.#deps.clock.setTimeout(() => {
        this.#ageTimer = undefined;
        void this.#flush();
      }, this.#deps.maxAgeMs);
      this.#keepRenewed();
    }
    return undefined;
  }

  async flush(): Promise<void> {
    void this.#flush();
    while (this.#writes.size > 0) await Promise.all(this.#writes);
    if (this.#unrecorded.length === 0 && this.#unapplied.length === 0) return;
    const unrecorded = this.#unrecorded;
    const unapplied = this.#unapplied;
    const cause = this.#error;
    this.#unrecorded = [];
    this.#unapplied = [];
    this.#error = undefined;
    throw new CampaignRecordError(this.campaign, unrecorded, cause, unapplied);
  }

  async close(): Promise<void> {
    if (!this.#closed) {
      this.#closed = true;
      if (this.#renewTimer !== undefined) this.#deps.clock.clearTimeout(this.#renewTimer);
      this.#renewTimer = undefined;
    }
    await this.flush();
  }

  /** Starts writing the buffer (if any); the promise settles when that write has, and never rejects. */
  #flush(): Promise<void> {
    if (this.#ageTimer !== undefined) {
      this.#deps.clock.clearTimeout(this.#ageTimer);
      this.#ageTimer = undefined;
    }
    if (this.#batch.size === 0) return DONE;
    const taken = this.#batch.take();
    const write: Promise<void> = Promise.resolve()
      .then(() => this.#deps.write(taken))
      .then(
        ({ unapplied, error }) => {
          this.#writes.delete(write);
          if (unapplied.length === 0) return;
          this.#error ??= error;
          this.#unapplied.push(...unapplied);
        },
        (error: unknown) => {
          this.#writes.delete(write);
          this.#error ??= error;
          this.#unrecorded.push(...taken.results);
        },
      );
    this.#writes.add(write);
    return write;
  }

  /** A result added after `close`: written on its own, its failure thrown to whoever awaits it. */
  #late(entry: CampaignResult): Promise<void> {
    const batch = new Batch(this.#deps.clock.now);
    batch.add(entry);
    return Promise.resolve()
      .then(() => this.#deps.write(batch.take()))
      .then(
        ({ unapplied, error }) => {
          if (unapplied.length > 0) throw new CampaignRecordError(this.campaign, [], error, unapplied);
        },
        (error: unknown) => {
          throw new CampaignRecordError(this.campaign, [entry], error);
        },
      );
  }

  /** Asks the store for its note (once at a time); `ready` while the note is fresh. */
  #mark(): Promise<void> {
    if (this.#marking) return this.#marking;
    const at = this.#deps.clock.now();
    const marking = Promise.resolve()
      .then(() => this.#deps.sending())
      .then(() => {
        if (at > this.#markedAt) this.#markedAt = at;
      });
    this.#marking = marking;
    // A failure reaches every send waiting on `ready` (reported not sent); it is never an unhandled rejection.
    const settled = () => {
      if (this.#marking === marking) this.#marking = undefined;
    };
    marking.then(settled, settled);
    return marking;
  }

  /** Renews the note every third of `parkMs` while a send is out or a result is buffered, until `close`. */
  #keepRenewed(): void {
    if (this.#renewTimer !== undefined || this.#closed) return;
    this.#renewTimer = this.#deps.clock.setTimeout(() => {
      this.#renewTimer = undefined;
      // Idle: the note may lapse (the next `beginSend` renews it first), and no timer holds the recorder.
      if (this.#closed || (this.#sending === 0 && this.#batch.size === 0)) return;
      const again = () => this.#keepRenewed();
      this.#mark().then(again, again);
    }, this.#deps.parkMs / 3);
  }
}
