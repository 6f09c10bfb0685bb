/** The recording of one `sendMany({ campaign })`'s results, and the error it throws when the store fails. */
import { WaGatewayError } from '../core/errors.js';
import type { SendManyRecorder, SendManyResult } from '../gateway/send-many.js';
import { Batch, type CampaignResult } from './records.js';
import type { CampaignRecordBatch } from './store.js';

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
