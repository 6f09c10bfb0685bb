import type { Expiring } from './deadlines.js';
import { ConnectionError, TimeoutError } from './errors.js';
import { errnoOf } from './response-guard.js';
import { failedBeforeSending } from './retry-policy.js';
import { scrubError } from './secrets.js';
import type { RequestOptions } from './transport-types.js';

/** A fault observed while waiting for or reading an answer. */
export type Phase = 'connect' | 'body';

/**
 * One attempt of a request: the signal its fetch follows, its deadline (in the transport's `Deadlines`), and
 * what a fault during it means (timeout, connection cut, the caller's abort; sent or not).
 */
export class Exchange implements Expiring {
  readonly controller = new AbortController();
  timedOut: 'total' | 'idle' | false = false;
  at = 0;
  slot = -1;
  /** Stops following the caller's signal. */
  unlinkCaller: () => void = NOTHING;
  readonly idleMs: number;

  constructor(
    readonly options: RequestOptions,
    readonly timeoutMs: number,
    readonly idempotent: boolean,
    readonly secrets: () => readonly string[],
  ) {
    this.idleMs = options.idleTimeoutMs ?? timeoutMs;
  }

  expire(): void {
    this.timedOut = 'total';
    this.controller.abort();
  }

  idle(): void {
    this.timedOut = 'idle';
    this.controller.abort();
  }

  /** The deadline passed while the client's `authorization()` (a login) was still running. */
  noCredential(): TimeoutError {
    const { method, path } = this.options;
    return new TimeoutError(
      `${method} ${path}: no credential within ${this.timeoutMs} ms (the login did not answer in time). Nothing reached the server.`,
      { mayHaveBeenSent: false, timeoutMs: this.timeoutMs },
    );
  }

  /** What a fetch or body-read failure means for the caller: the caller's abort reason, or a typed SDK error. */
  fault(error: unknown, phase: Phase): unknown {
    const { signal, method, path } = this.options;
    if (signal?.aborted) return signal.reason;
    const errno = errnoOf(error);
    const sent = phase === 'body' || !failedBeforeSending(errno);
    const what = `${method} ${path}`;
    const consequence = !sent
      ? ' Nothing reached the server.'
      : this.idempotent
        ? ''
        : ' The request may have reached the server, so it was not retried automatically: check before sending it again.';
    if (this.timedOut === 'total') {
      return new TimeoutError(`${what} did not complete within ${this.timeoutMs} ms.${consequence}`, {
        mayHaveBeenSent: sent,
        timeoutMs: this.timeoutMs,
      });
    }
    if (this.timedOut === 'idle') {
      return new TimeoutError(`${what}: the answer stalled, no data for ${this.idleMs} ms.`, {
        mayHaveBeenSent: true,
        timeoutMs: this.idleMs,
      });
    }
    const how = phase === 'body' ? 'was cut while reading the answer' : 'failed';
    return new ConnectionError(`Connection ${how} for ${what}${errno ? ` (${errno})` : ''}.${consequence}`, {
      mayHaveBeenSent: sent,
      ...(errno ? { errno } : {}),
      cause: scrubError(error, this.secrets()),
    });
  }
}

const NOTHING = () => {};
