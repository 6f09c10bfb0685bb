/**
 * One attempt of a request, as the transport runs it: its own abort signal and deadline (`Exchange`), the one
 * timer that serves every attempt's deadline (`Deadlines`), and the watch on a streamed answer's body
 * (`guardBody`). What a fault during an attempt means for "was it sent" is decided here, from the phase it
 * happened in; whether to try again is `retry-policy.ts`'s.
 */
import { MAX_TIMER_MS } from './duration.js';
import { ConnectionError, NotSentError, TimeoutError } from './errors.js';
import { failedBeforeSending, refusedToBuild } from './retry-policy.js';
import { scrubError } from './secrets.js';
import type { TransportRequest } from './transport-request.js';

/**
 * Where a fault was observed: `unbuilt` (the fetch refused to build the request, `requestUnbuilt`: no request, and
 * a repeat is refused the same), `unstarted` (the fetch threw before returning its promise: no request), `connect`
 * (waiting for the answer: sent or not by its errno), `body` (reading the answer: sent).
 */
export type Phase = 'unbuilt' | 'unstarted' | 'connect' | 'body';

/**
 * Whether a fetch's failure is its refusal to build the request (a header value or a URL it cannot carry), so that
 * nothing was sent: a code `refusedToBuild` lists (undici's check before any byte is written), or, from the
 * runtime's own fetch only, a `TypeError` (the Fetch standard's refusal) for a request the runtime's `Request` cannot
 * be made from. The probe builds a fresh copy of the request (`rebuild`), never the init the fetch was given: a
 * user's fetch may have changed it while sending (a body stream read once), and a `Request` that cannot be made from
 * that says nothing about what went out. A network failure is a `TypeError` too, but its request builds: it stays a
 * connection fault. Asked only once a fetch failed.
 */
export function requestUnbuilt(
  error: unknown,
  url: string,
  rebuild: () => RequestInit,
  runtimeFetch: boolean,
): boolean {
  const errno = errnoOf(error);
  if (errno !== undefined) return refusedToBuild(errno);
  if (
    !runtimeFetch ||
    typeof Request !== 'function' ||
    (error as { name?: unknown } | null)?.name !== 'TypeError'
  )
    return false;
  try {
    // Without the attempt's signal: this probe must not listen to it.
    new Request(url, { ...rebuild(), signal: null });
    return false;
  } catch {
    return true;
  }
}

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
    readonly options: TransportRequest,
    readonly timeoutMs: number,
    readonly idempotent: boolean,
    readonly secrets: () => readonly string[],
  ) {
    this.idleMs = options.idleTimeoutMs ?? timeoutMs;
  }

  /** Told of the attempt's abort: the body being read (`text`, `guardBody`), if any. */
  #onStop: ((reason: unknown) => void) | undefined;

  expire(): void {
    this.timedOut = 'total';
    this.abort(undefined);
  }

  idle(): void {
    this.timedOut = 'idle';
    this.abort(undefined);
  }

  /** Ends the attempt: its fetch, and the read of its body (see `onStop`). */
  abort(reason: unknown): void {
    this.controller.abort(reason);
    this.#onStop?.(this.controller.signal.reason);
  }

  /**
   * Calls `stop` with the abort's reason when the attempt is aborted (its deadline, the caller's signal), at once if
   * it already was. The reader of the body listens here rather than trusting the fetch to end its body: Node 20's
   * undici (6.24) at times completes a body after its signal aborted, and a fetch that is a test double or a
   * polyfill may never end it.
   */
  onStop(stop: (reason: unknown) => void): void {
    const { signal } = this.controller;
    if (signal.aborted) stop(signal.reason);
    else this.#onStop = stop;
  }

  /** The answer's body as text, unless the attempt is aborted first (`onStop`). */
  text(response: Response): Promise<string> {
    return new Promise<string>((resolve, reject) => {
      this.onStop(reject);
      if (this.controller.signal.aborted) response.body?.cancel().catch(() => {});
      else response.text().then(resolve, reject);
    });
  }

  /** The deadline passed while the client's `authorization()` (a login) was still running. */
  noCredential(): TimeoutError {
    return this.notStarted(`no credential within ${this.timeoutMs} ms (the login did not answer in time)`);
  }

  /** The deadline passed before the request went out; `why` says what it waited for. */
  notStarted(why: string): TimeoutError {
    const { method, path } = this.options;
    return new TimeoutError(`${method} ${path}: ${why}. Nothing reached the server.`, {
      mayHaveBeenSent: false,
      timeoutMs: this.timeoutMs,
    });
  }

  /** What a fetch or body-read failure means for the caller: the caller's abort reason, or a typed SDK error. */
  fault(error: unknown, phase: Phase): unknown {
    const { signal, method, path } = this.options;
    if (signal?.aborted) return signal.reason;
    const what = `${method} ${path}`;
    if (phase === 'unbuilt') {
      return new NotSentError(
        `${what} was not sent: the runtime's fetch refused to build the request (a header value or the URL it ` +
          'cannot carry; see the cause). Nothing reached the server, and a repeat would be refused the same way.',
        { cause: scrubError(error, this.secrets()) },
      );
    }
    const errno = errnoOf(error);
    const sent = phase === 'body' || (phase === 'connect' && !failedBeforeSending(errno));
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

/** A timer handle as Node gives it; elsewhere (a number) it has no ref/unref and is never waited on anyway. */
type Timer = ReturnType<typeof setTimeout> & { ref?: () => unknown; unref?: () => unknown };

/** Something with a deadline in a `Deadlines` set: `expire()` is called once it passes. */
export interface Expiring {
  /** `performance.now()` time at which it expires. */
  at: number;
  /** Its place in the set, -1 when not in it. */
  slot: number;
  expire(): void;
}

/**
 * The timeouts of one transport's requests in flight, behind a single timer armed for the earliest of them.
 * A request adds and clears an entry (two array writes) instead of arming and clearing its own timer: with the
 * same timeout for every request, a later request never re-arms it, so the timer fires about once per timeout
 * period however many requests go by. It fires at the earliest deadline, as a per-request timer would (timers
 * have 1 ms resolution and may fire up to 1 ms early, so an entry not yet due is re-checked at most 1 ms
 * later). The timer keeps the process alive only while a request is in flight (a call waiting on a custom
 * `authorization()` or `fetch` that holds no handle must still end in its timeout, as with a timer of its own);
 * once the last entry is cleared it stays armed but unref'd, so an idle transport never holds the process and a
 * sequence of requests does not re-arm it each time.
 */
export class Deadlines {
  readonly #live: Expiring[] = [];
  #timer: Timer | undefined;
  #armedAt = Number.POSITIVE_INFINITY;

  /** Expires `entry` `ms` from now unless `clear(entry)` comes first. */
  add(entry: Expiring, ms: number): void {
    entry.at = performance.now() + ms;
    entry.slot = this.#live.length;
    this.#live.push(entry);
    if (entry.at < this.#armedAt) this.#arm(entry.at);
    else if (this.#live.length === 1) this.#timer?.ref?.();
  }

  clear(entry: Expiring): void {
    const slot = entry.slot;
    if (slot < 0) return;
    entry.slot = -1;
    const last = this.#live.pop() as Expiring;
    if (last !== entry) {
      this.#live[slot] = last;
      last.slot = slot;
    }
    if (this.#live.length === 0) this.#timer?.unref?.();
  }

  #arm(at: number): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#armedAt = at;
    // A delay above 2^31 - 1 ms is taken as 1 ms by setTimeout (and warned about): wait the most it allows, and
    // check again then.
    const delay = Math.min(MAX_TIMER_MS, Math.max(0, Math.ceil(at - performance.now())));
    const timer = setTimeout(this.#check, delay) as Timer;
    if (this.#live.length === 0) timer.unref?.();
    this.#timer = timer;
  }

  readonly #check = (): void => {
    this.#timer = undefined;
    this.#armedAt = Number.POSITIVE_INFINITY;
    const now = performance.now();
    const due: Expiring[] = [];
    let next = Number.POSITIVE_INFINITY;
    for (const entry of this.#live) {
      if (entry.at <= now) due.push(entry);
      else if (entry.at < next) next = entry.at;
    }
    // Cleared before any expires: an expiry's abort runs listeners that may add or clear entries.
    for (const entry of due) this.clear(entry);
    if (next < this.#armedAt) this.#arm(next);
    for (const entry of due) entry.expire();
  };
}

/**
 * The body of a streamed answer, watched: a silence of the *server* longer than `idleMs` aborts it
 * (TimeoutError), a cut or abort surfaces as the SDK's typed error rather than a bare AbortError, and when the
 * body ends, fails or is cancelled by its reader the caller's signal is let go (a long-lived signal shared by
 * many streams would otherwise collect one listener per stream). Pull-based: the idle clock runs only while
 * the reader is waiting for data, so a slow reader (back pressure) is never mistaken for a silent server.
 */
export function guardBody(
  response: Response,
  idleMs: number,
  hooks: {
    onIdle: () => void;
    fault: (error: unknown) => unknown;
    cancelled: () => void;
    done: () => void;
    /** Registers the call that ends the body when the attempt is aborted (`Exchange.onStop`). */
    watch: (stop: (reason: unknown) => void) => void;
  },
): Response {
  const source = response.body;
  if (!source) {
    hooks.done();
    return response;
  }
  const reader = source.getReader();
  let finished = false;
  const finish = () => {
    if (!finished) {
      finished = true;
      hooks.done();
    }
  };
  const guarded = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        // The caller's abort ends the body here, whether or not the fetch ends its own.
        hooks.watch((reason) => {
          if (finished) return;
          finish();
          controller.error(hooks.fault(reason));
          reader.cancel().catch(() => {});
        });
      },
      async pull(controller) {
        let timer: ReturnType<typeof setTimeout> | undefined;
        // Raced rather than left to the fetch's abort: not every fetch (a test double, a polyfill) errors
        // its body when the signal aborts.
        const idle = new Promise<'idle'>((resolve) => {
          timer = setTimeout(() => resolve('idle'), idleMs);
        });
        try {
          const result = await Promise.race([reader.read(), idle]);
          if (finished) return;
          if (result === 'idle') {
            hooks.onIdle();
            finish();
            controller.error(hooks.fault(new Error('idle')));
            reader.cancel().catch(() => {});
          } else if (result.done) {
            finish();
            controller.close();
          } else {
            controller.enqueue(result.value);
          }
        } catch (error) {
          if (finished) return;
          finish();
          controller.error(hooks.fault(error));
        } finally {
          clearTimeout(timer);
        }
      },
      cancel(reason) {
        finish();
        hooks.cancelled();
        // Not awaited: a teed source (msw tees mocked bodies) only settles its cancel once every branch is
        // cancelled, and the reader who broke out of its loop must not wait on that.
        reader.cancel(reason).catch(() => {});
      },
    },
    { highWaterMark: 0 },
  );
  return new Response(guarded, {
    status: response.status,
    statusText: response.statusText,
    headers: response.headers,
  });
}

/** A 3xx, or a browser's `opaqueredirect` (status 0) that hides it. */
export function isRedirect(response: Response): boolean {
  return (response.status >= 300 && response.status < 400) || response.type === 'opaqueredirect';
}

/**
 * Whether a fetch rejected because the server answered with a redirect the request asked it to refuse
 * (`redirect: 'error'`): undici's `TypeError('fetch failed')` and msw's `TypeError('Failed to fetch')` both give
 * the cause `unexpected redirect` (an `Error` or a string).
 */
export function refusedRedirect(error: unknown): boolean {
  if (!(error instanceof TypeError)) return false;
  const cause: unknown = error.cause;
  return (cause instanceof Error ? cause.message : cause) === 'unexpected redirect';
}

/** The system error code from undici's `fetch failed` chain (`cause`, or the first of an AggregateError). */
export function errnoOf(error: unknown, depth = 0): string | undefined {
  if (depth > 5 || typeof error !== 'object' || error === null) return undefined;
  const e = error as { code?: unknown; cause?: unknown; errors?: unknown };
  if (typeof e.code === 'string' && e.code !== 'ABORT_ERR') return e.code;
  // undici refuses the fetch spec's blocked ports (1, 6000, ...) before connecting, with no code at all.
  if (error instanceof Error && error.message === 'bad port') return 'ERR_BAD_PORT';
  if (Array.isArray(e.errors) && e.errors.length > 0) return errnoOf(e.errors[0], depth + 1);
  return errnoOf(e.cause, depth + 1);
}
