import { brandError, StreamError } from '../core/errors.js';

/**
 * The message stream stopped part-way for a reason that may pass: the connection was cut, the server fell
 * silent for longer than `idleTimeoutMs`, the body ended in the middle of a record, or (`streamRange`) a
 * later window's request failed on the connection or with a 5xx or 429. `cause` holds the underlying error
 * (`ConnectionError`, `TimeoutError`, an `ApiError`) when there is one.
 *
 * Every record delivered before it is complete. To carry on, call `streamRange` again from `lastCreatedAt`:
 * `from` is inclusive to the millisecond, so the records of that millisecond already received come again;
 * drop them by `id`.
 *
 * A `StreamError` that is not a `StreamInterruptedError` (a line that is not JSON or not a record) comes back
 * on every attempt: resuming does not help.
 *
 * @example
 * let from: Instant = '2024-01-01T00:00:00Z';
 * let tailMs = Number.NaN; // the millisecond of the latest record saved, and the ids saved in it:
 * let tail = new Set<number>(); // a resume from lastCreatedAt sends them again
 * for (let attempt = 1; ; attempt++) {
 *   try {
 *     for await (const m of platform.messages.streamRange({ from, to })) {
 *       const ms = Date.parse(m.created_at);
 *       if (ms === tailMs && tail.has(m.id)) continue;
 *       if (ms !== tailMs) [tailMs, tail] = [ms, new Set()];
 *       tail.add(m.id);
 *       await save(m);
 *     }
 *     break;
 *   } catch (error) {
 *     if (!(error instanceof StreamInterruptedError) || attempt === 3) throw error;
 *     from = error.lastCreatedAt ?? from;
 *   }
 * }
 */
export class StreamInterruptedError extends StreamError {
  override name = 'StreamInterruptedError';
  /** `created_at` of the last record delivered, as the server wrote it; `undefined` when none was. */
  readonly lastCreatedAt: string | undefined;

  constructor(
    message: string,
    options: { recordsDelivered: number; lastCreatedAt: string | undefined; cause?: unknown },
  ) {
    super(message, {
      recordsDelivered: options.recordsDelivered,
      ...(options.cause === undefined ? {} : { cause: options.cause }),
    });
    this.lastCreatedAt = options.lastCreatedAt;
  }
}
brandError(StreamInterruptedError, 'StreamInterruptedError');
