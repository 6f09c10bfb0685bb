import { setMaxListeners } from 'node:events';
import { onAbort } from '../core/abort.js';
import { checkSignal, type RequestOptions, requestOf } from '../core/call-options.js';
import { optionalBoolean } from '../core/client-options.js';
import {
  ConfigurationError,
  invalidArgument,
  MessageValidationError,
  NotSentError,
  PaymentRequiredError,
  WaGatewayError,
} from '../core/errors.js';
import { givenValue } from '../core/given-value.js';
import { callHook } from '../core/hooks.js';
import { type OptionKeys, refuseNearMisses } from '../core/option-keys.js';
import type { DeepReadonly } from '../core/plain-data.js';
import { mayHaveBeenSent } from '../core/retry-policy.js';
import { traced } from '../core/tracing.js';
import type { OutboundMessage, SendContact } from './message-schema.js';
import { prepare } from './prepare-message.js';
import { GATEWAY_RETRY_RULES } from './retry-rules.js';
import type { PostSend, SendFlags } from './send.js';

export interface SendManyOptions extends SendFlags, Omit<RequestOptions, 'signal'> {
  /** How many sends are in flight at once. Default 16. The client's rate limiter still applies. */
  concurrency?: number | undefined;
  /**
   * Stops starting new sends; those not started are reported with `notSent: true`. Sends already in flight are
   * not cut (the message may be out either way); their results are reported as they come, then the loop ends.
   * An array (any sync iterable) is read to its end, each message left reported `notSent`; an async iterable (a
   * cursor, a live feed) is read no further: its `return()` is called and a read under way is not waited for
   * (a message it hands over after the abort is not taken: neither sent nor reported; resume from `done`).
   */
  signal?: AbortSignal | undefined;
  /**
   * Called after each result is yielded (in input order), and when a rate-limit pause starts. `done` counts
   * the results yielded so far: to resume after a crash, persist it with `inDoubtUntil`, pass the source again
   * without its first `done` messages, and check the status webhooks of messages `done .. inDoubtUntil - 1`
   * before resending them: they may be out (see docs/observability.md).
   */
  onProgress?: ((progress: SendManyProgress) => void) | undefined;
  /** `false` skips local validation of every message (see `SendOptions.validate`). Default `true`. */
  validate?: boolean | undefined;
  /**
   * Records every result against this campaign id in the client's `campaigns` tracker (a `ConfigurationError`
   * without one): see `CampaignTracker` and docs/campaigns.md.
   */
  campaign?: string | undefined;
}

/**
 * What observes the results of sends made for a campaign: `GatewayClient`'s `campaigns` option, a
 * `CampaignTracker`. The gateway owns this contract and campaigns implement it, so a send imports no campaign
 * code. `sendMany(messages, { campaign })` opens one recorder per call; any other sender of a campaign (a queue's
 * worker) opens its own, hands it each result with `add`, and `flush`es or `close`s it.
 */
export interface CampaignObserver {
  /** Opens a recording of `campaign`'s send results; throws `ConfigurationError` for an id it refuses. */
  recorder(campaign: string): SendManyRecorder;
}

/**
 * One recording of a campaign's send results (see `CampaignObserver`). Its contract with a sender:
 *
 * - each send is bracketed: `beginSend()` before its request (awaiting the promise it may return), `endSend()`
 *   once the request has settled; meanwhile the store keeps its note that a campaign send is under way, so a
 *   status that beats the send's result is parked, not dropped;
 * - every result is handed to `add` (with the message it was for), accepted or refused; the recorder writes it
 *   within a bounded time however long the sender then waits;
 * - `close` is called once the last result has been added (so after every send has settled), and resolves once
 *   every result is written, or throws `CampaignRecordError` with those that could not be.
 * - an `add` that throws does not hold a result back: the loop yields it, and throws that error once it is left.
 */
export interface SendManyRecorder {
  /** Settles once the store's note is written (the first, or the renewal under way). */
  readonly ready: Promise<void>;
  /** The store's note is fresh: a send may start without waiting. */
  readonly isReady: boolean;
  /**
   * A send is about to start: `undefined` when it may at once, else a promise that settles when it may (and
   * rejects when the store's note could not be written: the send must not start). Pair it with `endSend`.
   */
  beginSend(): Promise<void> | undefined;
  /** The request of a send begun with `beginSend` has settled (whatever its outcome). */
  endSend(): void;
  /**
   * Takes one result (`message` is what was sent, for its recipient); a promise only when the call writes (a
   * full buffer), which a sender awaits to slow down to the store's pace.
   */
  add(result: SendManyResult, message: unknown): Promise<void> | undefined;
  /**
   * Writes what is buffered and waits for every write under way; throws `CampaignRecordError` with the results
   * that could not be recorded since the last throw.
   */
  flush(): Promise<void>;
  /** Stops the recording: writes what is left, then throws like `flush` if a result could not be recorded. */
  close(): Promise<void>;
}

/** Where a `sendMany` stands. */
export interface SendManyProgress {
  /** Results yielded so far: messages `0 .. done - 1` are settled, in input order. */
  done: number;
  /**
   * Until the next report, no message from this index on is started: messages `done .. inDoubtUntil - 1` may
   * be out (in flight, or settled and waiting for an earlier one to keep the order), the later ones are not.
   * At most `done + concurrency * 4` (the pool's window), and at most `total`.
   */
  inDoubtUntil: number;
  /** How many messages the source holds, when it is an array; else `undefined`. */
  total: number | undefined;
  /** Results with `ok: false` so far. */
  failed: number;
  /** The rate-limit wait now under way in ms (a `RATE_001`'s `retry_after`), else 0. */
  waitMs: number;
}

/** One result of `sendMany`: the message was accepted, or why not (always an SDK error). */
export type SendManyResult =
  | { index: number; ok: true; messageId: string; contacts: SendContact[] }
  | {
      index: number;
      ok: false;
      error: WaGatewayError;
      /**
       * `true` when the message certainly did not go out, so resending it cannot duplicate it: it failed before
       * its request was made, whatever the error (validation, the template catalogue, the service window, a store
       * that threw, a call option refused); it was never started (`BILL_001` paused the batch, the signal aborted,
       * the loop was left); the gateway refused it before forwarding (`AUTH_*`, `RATE_001` after its retries,
       * `BILL_*`, `WABA_001`, `SEC_001`); the upstream refused it (`GW_001`: resending it unchanged gets the same
       * answer); or the connection was never made. `false` when it may have gone out (a fault in flight, an answer
       * without the gateway's code, such as a proxy's bare 502): check its status events before resending.
       */
      notSent: boolean;
    };

/** OpenTelemetry messaging and HTTP attributes common to every send span. */
export const SEND_SPAN = {
  'messaging.system': 'whatsapp',
  'messaging.operation.type': 'send',
  'http.request.method': 'POST',
} as const;

/**
 * The loop behind `messages.sendMany` (its TSDoc says what a caller gets): `post` is `Messages`' one send, and
 * `campaign` the recorder its results go to.
 */
export async function* sendMany(
  post: PostSend,
  host: string,
  messages: Iterable<DeepReadonly<OutboundMessage>> | AsyncIterable<DeepReadonly<OutboundMessage>>,
  options: SendManyOptions = {},
  campaign?: SendManyRecorder,
): AsyncGenerator<SendManyResult, void, undefined> {
  checkSendOptions(options, 'sendMany', sendManyKeys);
  if (options.onProgress !== undefined && typeof options.onProgress !== 'function') {
    throw new ConfigurationError('sendMany: onProgress must be a function.');
  }
  if (!isIterable(messages)) {
    throw invalidArgument(
      'sendMany',
      [],
      `must be an array or an (async) iterable of messages; got ${givenValue(messages)}`,
      'messages.type',
    );
  }
  const concurrency = options.concurrency ?? 16;
  if (!Number.isInteger(concurrency) || concurrency < 1) {
    throw new ConfigurationError(
      `sendMany concurrency must be a positive integer; got ${String(concurrency)}.`,
    );
  }
  const batch = startBatch(post, host, messages, options);
  // A pool of `concurrency` sends; results leave in input order. A slow send does not hold the others back:
  // finished results wait for it, up to `concurrency * 4` of them, and only then does the pool stop taking new
  // messages (memory stays bounded whatever the source's length). The source is read in the background, one item at
  // a time, so a slow source (a cursor) does not hold back results that are ready.
  const source = toAsyncIterator(messages);
  // An async source may take any time to hand over its next message (a live feed, a stuck cursor): once the caller
  // aborts, it is read no further and a read under way is not waited for. A sync one (an array) answers at once, so
  // it is read to its end as before, every message left reported `notSent`; so is any source after `BILL_001`, whose
  // remaining messages are all reported (the caller's signal or leaving the loop ends that reading too).
  const readsAsync = Symbol.asyncIterator in messages;
  const signal = options.signal;
  const abandoned = () => readsAsync && signal?.aborted === true;
  const done = new Map<number, SendManyResult>();
  const inFlight = new Set<Promise<void>>();
  const maxAhead = concurrency * 4;
  let started = 0;
  let next = 0;
  // The pool starts a message only once every result before it is reported (the loop reports, then pulls), so
  // no message at or past `done + maxAhead` of the last report is started: the bound a resumer needs.
  const reach = (settled: number) =>
    Math.min(settled + maxAhead, batch.progress.total ?? Number.POSITIVE_INFINITY);
  batch.progress.inDoubtUntil = reach(0);
  let exhausted = false;
  let closing = false;
  let pulling = false;
  let pullError: { error: unknown } | undefined;
  let recordError: { error: unknown } | undefined;
  // Something changed (a send settled, an item arrived): `changed` is set before the waiter is woken, so a change
  // that lands while the loop is not waiting (during a yield) is not lost.
  let changed = false;
  let wake: (() => void) | undefined;
  const notify = () => {
    changed = true;
    const w = wake;
    wake = undefined;
    w?.();
  };
  const start = (message: DeepReadonly<OutboundMessage>) => {
    const index = started++;
    const task: Promise<void> = batch.send(message, index).then(async (r) => {
      try {
        await campaign?.add(r, message);
      } catch (error) {
        // A recorder that throws (not the SDK's: it keeps what it could not write for `close`) still gets its
        // result yielded; its error ends the loop once the sends in flight have settled.
        recordError ??= { error };
      } finally {
        done.set(index, r);
        inFlight.delete(task);
        notify();
      }
    });
    inFlight.add(task);
  };
  const pull = () => {
    pulling = true;
    source.next().then(
      (item) => {
        pulling = false;
        // Handed over after the abort or once the loop was left: not the batch's (never sent, never reported).
        if (closing || abandoned()) return;
        if (item.done) exhausted = true;
        else start(item.value);
        notify();
      },
      (error: unknown) => {
        pulling = false;
        if (closing || abandoned()) return;
        exhausted = true;
        pullError = { error };
        notify();
      },
    );
  };
  // The caller's abort wakes the loop, which may be waiting only for a read that never ends.
  const unlinkWake = onAbort(signal, notify);
  try {
    for (;;) {
      changed = false;
      while (done.has(next)) {
        const result = done.get(next)!;
        done.delete(next++);
        batch.progress.done = next;
        batch.progress.inDoubtUntil = reach(next);
        batch.progress.waitMs = 0;
        if (!result.ok) batch.progress.failed++;
        yield result;
        if (options.onProgress) batch.report();
      }
      const reading = !abandoned();
      const room = inFlight.size < concurrency && started - next < maxAhead;
      if (reading && room && !pulling && !exhausted) pull();
      // A source that threw ends the loop with its error, once the sends it gave have been reported. After the
      // caller's abort, an async source's read under way is not waited for.
      if (((exhausted && !pulling) || !reading) && next === started) {
        if (pullError) throw pullError.error;
        return;
      }
      if (!changed) await new Promise<void>((resolve) => (wake = resolve));
    }
  } finally {
    // Broke out, threw, or finished: nothing queued may go out unreported. Sends in flight complete.
    closing = true;
    batch.halt(new NotSentError('sendMany ended before this message was sent.'));
    batch.unlinkCaller();
    unlinkWake();
    try {
      // An async source busy with a read may not end before that read does (an async generator's `return()` waits
      // for its pending `next()`), perhaps never: it is told to stop, not waited for.
      if (pulling && readsAsync) letGo(source);
      else await source.return?.();
    } finally {
      // A campaign's loop is left only once the sends in flight have settled and every result is recorded (or
      // `close` throws CampaignRecordError with those that could not be): none is written after the caller moved on.
      if (campaign) await closeRecording(campaign, inFlight, () => recordError);
    }
  }
}

/**
 * Ends a campaign's recording as its loop is left: once the sends in flight have settled, the recorder writes what
 * it holds (`close` throws `CampaignRecordError` with what it could not), then a recorder's own error is thrown.
 */
async function closeRecording(
  campaign: SendManyRecorder,
  inFlight: ReadonlySet<Promise<void>>,
  recordError: () => { error: unknown } | undefined,
): Promise<void> {
  await Promise.allSettled(inFlight);
  await campaign.close();
  const failed = recordError();
  if (failed) throw failed.error;
}

/** A batch's shared state: its stop switch, its progress, and the send of one of its messages. */
function startBatch(
  post: PostSend,
  host: string,
  messages: Iterable<DeepReadonly<OutboundMessage>> | AsyncIterable<DeepReadonly<OutboundMessage>>,
  options: SendManyOptions,
) {
  // Stops every send that has not started (queued at the rate limiter, or not yet taken from the source):
  // on BILL_001, on the caller's signal, and when the caller breaks out of the loop. Never cuts one in flight.
  const stop = new AbortController();
  // One listener per queued send is expected here, not a leak.
  setMaxListeners(0, stop.signal);
  let stopReason: WaGatewayError | undefined;
  const halt = (reason: WaGatewayError) => {
    if (stop.signal.aborted) return;
    stopReason = reason;
    // The reason itself: a send whose earlier attempt may be out ends with that attempt's error, and this as its
    // cause (`settleAttempts`).
    stop.abort(reason);
  };
  const onCallerAbort = () => halt(abortError(options.signal!));
  if (options.signal?.aborted) onCallerAbort();
  const unlinkCaller = onAbort(options.signal, onCallerAbort);
  const flags: SendFlags = { isFake: options.isFake, mmlite: options.mmlite };
  const progress: SendManyProgress = {
    done: 0,
    inDoubtUntil: 0,
    total: Array.isArray(messages) ? messages.length : undefined,
    failed: 0,
    waitMs: 0,
  };
  // A progress callback is an observer: its failure (a throw or a rejected promise) must not lose a result.
  const report = () => callHook(options.onProgress, { ...progress });
  const request = {
    ...requestOf(options),
    signal: undefined,
    onRetryWait: options.onProgress
      ? (ms: number) => {
          progress.waitMs = ms;
          report();
        }
      : undefined,
  };
  const notStarted = (index: number): SendManyResult =>
    failedSend(
      index,
      stopReason ?? new NotSentError('sendMany stopped before this message was sent.'),
      false,
    );
  const send = async (message: DeepReadonly<OutboundMessage>, index: number): Promise<SendManyResult> => {
    if (stop.signal.aborted) return notStarted(index);
    const checked = prepare(message, options.validate, undefined);
    if (!checked.valid) return failedSend(index, new MessageValidationError(checked.issues), false);
    let requested = false;
    const onSend = () => {
      requested = true;
    };
    try {
      const type = (checked.message as { type?: unknown }).type;
      const { data: r } = await traced(
        'wa-gateway send',
        {
          ...SEND_SPAN,
          'server.address': host,
          'wa_gateway.message.type': typeof type === 'string' ? type : 'unknown',
        },
        () => post(checked.message, flags, request, stop.signal, onSend),
        (data, span) => span.set('messaging.message.id', data.messageId),
      );
      return { index, ok: true, messageId: r.messageId, contacts: r.contacts };
    } catch (error) {
      // The stop, met before this send's request went out.
      if (stop.signal.aborted && error === stop.signal.reason) return notStarted(index);
      if (error instanceof PaymentRequiredError) halt(refusalAlone(error));
      return failedSend(index, error, requested);
    }
  };
  return { send, halt, progress, report, unlinkCaller };
}

/**
 * The `BILL_001` that stops a batch, as every message it never started reports it: the gateway's answer alone. The
 * refused send's own earlier attempt that may be out ("may have been sent", in its message too) is that send's, not
 * theirs.
 */
function refusalAlone(error: PaymentRequiredError): PaymentRequiredError {
  if (error.earlierAttemptMayHaveBeenSent !== true) return error;
  return new PaymentRequiredError({ ...error.details, mayHaveBeenSent: false });
}

/**
 * A send's failure as a result, as `sendMany` reports it and a campaign records it: the one place `notSent` is
 * decided. A failure met before the send's request went out (`requested` false: invalid, refused by the
 * catalogue or the service window, a store that threw, a call option refused, stopped before it started) is
 * certainly not sent, whatever raised it; after, the was-it-sent rule decides (`mayHaveBeenSent`, from the
 * gateway's retry table). An error that is not the SDK's (a store's own, a hostile fetch double's) is wrapped in a
 * typed one, its `cause`: a `NotSentError` before the request, a `WaGatewayError` after. Exported for any other
 * sender of a campaign (a queue's worker) that hands its results to a `SendManyRecorder`.
 */
export function failedSend(index: number, error: unknown, requested: boolean): SendManyResult {
  if (!requested) {
    const e =
      error instanceof WaGatewayError
        ? error
        : new NotSentError(
            `sendMany did not send this message: an error (${error instanceof Error ? error.name : typeof error}) was thrown before its request was made; see its cause.`,
            { cause: error },
          );
    return { index, ok: false, error: e, notSent: true };
  }
  const e =
    error instanceof WaGatewayError
      ? error
      : new WaGatewayError('The send failed with an error that is not an SDK error.', { cause: error });
  return { index, ok: false, error: e, notSent: !mayHaveBeenSent(e, GATEWAY_RETRY_RULES) };
}

/** The flags of a send that must be booleans: a string such as `'false'` (from `process.env`) would count as on. */
const SEND_BOOLEANS = ['isFake', 'mmlite', 'retryInFlight', 'validate'] as const;

/** `sendMany`'s options, every one (see `OptionKeys`). */
const SEND_MANY_KEYS = [
  'concurrency',
  'signal',
  'onProgress',
  'validate',
  'campaign',
  'isFake',
  'mmlite',
  'timeoutMs',
  'maxRetries',
  'headers',
] as const;
const sendManyKeys: OptionKeys<SendManyOptions, typeof SEND_MANY_KEYS> = SEND_MANY_KEYS;

/**
 * A send's options, checked before any work (`send`, `sendTemplate`, `sendMany`): `undefined` or `null` is no
 * options; anything but an object, a flag that is not a boolean, a `signal` that is not an `AbortSignal`, or a key
 * that is a near miss of one of `known` (`isfake`, `timeout_ms`: JavaScript callers have no type checker to
 * catch it, and `isfake: true` ignored would send a real message) is a `ConfigurationError`, and nothing is sent.
 * A key close to none is left alone: an object of the caller's may be spread into the options.
 */
export function checkSendOptions<T extends object>(
  options: T | null | undefined,
  call: string,
  known: readonly string[],
): T | undefined {
  if (options === undefined || options === null) return undefined;
  if (typeof options !== 'object') {
    throw new ConfigurationError(`${call}: options must be an object; got ${givenValue(options)}.`);
  }
  const given = options as Record<string, unknown>;
  for (const flag of SEND_BOOLEANS) optionalBoolean(given[flag], `${call}: ${flag}`);
  checkSignal(given.signal, `${call}: signal`);
  refuseNearMisses(given, known, call);
  return options;
}

function isIterable(value: unknown): value is Iterable<unknown> | AsyncIterable<unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Partial<Iterable<unknown> & AsyncIterable<unknown>>;
  return typeof v[Symbol.iterator] === 'function' || typeof v[Symbol.asyncIterator] === 'function';
}

function toAsyncIterator<T>(source: Iterable<T> | AsyncIterable<T>): AsyncIterator<T> {
  if (Symbol.asyncIterator in source) return source[Symbol.asyncIterator]();
  const it = source[Symbol.iterator]();
  return {
    next: async () => it.next(),
    return: async (value?: unknown) => it.return?.(value) ?? { done: true, value: undefined },
  };
}

/**
 * Tells an async source to stop without waiting for it: its `return()` may hang behind a read under way, and its
 * failure (a throw or a rejection) is the source's, which the loop that left it can no longer report.
 */
function letGo(source: AsyncIterator<unknown>): void {
  try {
    const closed = source.return?.();
    if (closed && typeof closed.then === 'function') closed.then(undefined, () => {});
  } catch {
    // As above: nothing left to report it to.
  }
}

function abortError(signal: AbortSignal): NotSentError {
  return new NotSentError('sendMany was aborted before this message was sent.', { cause: signal.reason });
}

/**
 * How `messages.sendMany` takes a campaign: its recorder, and each send bracketed by `beginSend`/`endSend`, so
 * that none starts before the store knows a campaign send is under way and the store keeps knowing it while the
 * send is out (else a status that beats its send result could be lost).
 */
export function campaignSends(
  tracker: CampaignObserver | undefined,
  campaign: string | undefined,
  post: PostSend,
): { post: PostSend; recorder: SendManyRecorder | undefined } {
  if (campaign === undefined) return { post, recorder: undefined };
  if (!tracker) {
    throw new ConfigurationError(
      'sendMany was given a campaign but the client has no tracker: pass new GatewayClient({ ..., campaigns: new CampaignTracker() }).',
    );
  }
  const recorder = tracker.recorder(campaign);
  const notSent = (error: unknown) => {
    throw new NotSentError(
      `The campaign store could not be reached, so this message of campaign '${campaign}' was not sent.`,
      { cause: error },
    );
  };
  // Made once, not per send: the cost per send stays one promise turn.
  const ended = <T>(value: T): T => {
    recorder.endSend();
    return value;
  };
  const failed = (error: unknown): never => {
    recorder.endSend();
    throw error;
  };
  return {
    recorder,
    post: (valid, flags, request, stop, onSend) => {
      const wait = recorder.beginSend();
      const sent =
        wait === undefined
          ? post(valid, flags, request, stop, onSend)
          : wait.then(() => post(valid, flags, request, stop, onSend), notSent);
      return sent.then(ended, failed);
    },
  };
}
