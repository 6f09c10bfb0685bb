import { setMaxListeners } from 'node:events';
import { type ApiPromise, apiPromise, responseInfo, type WithResponse } from '../core/api-promise.js';
import { type RequestOptions, requestOf } from '../core/call-options.js';
import {
  ConfigurationError,
  MessageValidationError,
  NotSentError,
  PaymentRequiredError,
  WaGatewayError,
} from '../core/errors.js';
import { mayHaveBeenSent } from '../core/retry-policy.js';
import { excerpt } from '../core/secrets.js';
import { traced } from '../core/tracing.js';
import type { Transport } from '../core/transport.js';
import type { DeepReadonly } from '../core/types.js';
import { unexpectedAnswer } from '../core/unexpected-answer.js';
// A cycle with client.ts, read only when a send fails: the client's retry table decides "was it sent?" too.
import { GATEWAY_RETRY_RULES } from './client.js';
import type { OutboundMessage, SendContact } from './message-schema.js';
import { prepare } from './prepare-message.js';
import { readSendResponse } from './send-response.js';

/**
 * What the gateway is asked to do with a message: the query flags of `POST /v1/wa/message`. They change what
 * is sent, so they are the send's own; `RequestOptions` only change how the request travels.
 */
export interface SendFlags {
  /**
   * Run auth, rate limiting and billing checks but skip the upstream call; a fake wamid comes back and no
   * `delivered` webhook follows. For integration tests against a real gateway.
   */
  isFake?: boolean;
  /** Route through the upstream marketing-lite route (high-volume promotional template sends). */
  mmlite?: boolean;
}

/**
 * `messages.send` options: the send's {@link SendFlags} and the call's {@link RequestOptions} in one object
 * (`send(message, { isFake, signal })`), kept as two named types that the SDK consumes apart.
 */
export interface SendOptions extends SendFlags, RequestOptions {
  /**
   * Retry even when the request failed in flight (connection reset, timeout). Off by default because the
   * message may already be out and would then be sent twice.
   */
  retryInFlight?: boolean;
  /**
   * `false` skips local validation entirely: the message goes out as given (plus `messaging_product`), for
   * message types and fields the spec does not show. The gateway stays the judge. Default `true`.
   */
  validate?: boolean;
  /**
   * Fields the spec does not show, merged into the validated message (objects merge key by key), e.g. a reply
   * `context` or an interactive `header`. A key the message already has is a `MessageValidationError`: this
   * adds fields, it never overrides checked ones.
   */
  extraFields?: UnshownFields;
}

/** Fields the spec does not show, sent on purpose through `extraFields`. */
export type UnshownFields = { readonly [field: string]: unknown };

/**
 * A message the SDK does not check, for `send(message, { validate: false })`: any JSON object with `to` and
 * `type`.
 */
export interface UncheckedMessage {
  readonly to: string;
  readonly type: string;
  readonly [field: string]: unknown;
}

/** What `messages.send` resolves to. */
export interface SendResult {
  /** The wamid. Status events carry it in `statuses[].id`; use it to match delivery receipts. */
  messageId: string;
  /** The number as sent (`input`) and as the network normalised it (`wa_id`). */
  contacts: SendContact[];
  /** The whole response body, fields the spec does not list included. */
  raw: unknown;
}

export interface SendManyOptions extends SendFlags, Omit<RequestOptions, 'signal'> {
  /** How many sends are in flight at once. Default 16. The client's rate limiter still applies. */
  concurrency?: number;
  /**
   * Stops starting new sends; those not started are reported with `notSent: true`. Sends already in flight are
   * not cut (the message may be out either way); their results are reported as they come.
   */
  signal?: AbortSignal;
  /**
   * Called after each result is yielded (in input order), and when a rate-limit pause starts. `done` counts
   * the results yielded so far: to resume after a crash, persist it and pass the source again without its
   * first `done` messages (see docs/observability.md).
   */
  onProgress?: (progress: SendManyProgress) => void;
  /** `false` skips local validation of every message (see `SendOptions.validate`). Default `true`. */
  validate?: boolean;
}

/** Where a `sendMany` stands. */
export interface SendManyProgress {
  /** Results yielded so far: messages `0 .. done - 1` are settled, in input order. */
  done: number;
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
       * `true` when the message certainly did not go out, so resending it cannot duplicate it: it failed
       * validation; it was never started (`BILL_001` paused the batch, the signal aborted, the loop was left);
       * the gateway refused it before forwarding (`AUTH_*`, `RATE_001` after its retries, `BILL_*`, `WABA_001`,
       * `SEC_001`); or the connection was never made. `false` when it may have gone out (`GW_001`, a fault in
       * flight, an answer without a code): check its status events before resending.
       */
      notSent: boolean;
    };

/** OpenTelemetry messaging and HTTP attributes common to every send span. */
const SEND_SPAN = {
  'messaging.system': 'whatsapp',
  'messaging.operation.type': 'send',
  'http.request.method': 'POST',
} as const;

/** The gateway's messages resource: `POST /v1/wa/message`. */
export class Messages {
  readonly #transport: Transport;
  readonly #messagingProduct: string;
  readonly #retryInFlight: boolean;

  /** @internal */
  constructor(transport: Transport, options: { messagingProduct: string; retryInFlight: boolean }) {
    this.#transport = transport;
    this.#messagingProduct = options.messagingProduct;
    this.#retryInFlight = options.retryInFlight;
  }

  /**
   * Sends one message. It is validated locally first: an invalid message throws `MessageValidationError`
   * listing every issue, and no request is made. Success means accepted, not delivered: watch the status
   * webhooks for the returned `messageId`.
   *
   * Retries: a `RATE_001` waits the server's `retry_after`, an `AUTH_004` backs off; a `GW_001` (the
   * upstream refused) and a send that failed in flight are not retried, since the message may be out.
   *
   * Unknown keys are refused (`MessageValidationError` naming each, with a "did you mean"); send options such
   * as `isFake` go in the second argument. A field the spec does not show goes in `extraFields`; a message the
   * SDK should not check at all is sent with `validate: false`.
   *
   * @example
   * const { messageId } = await gw.messages.send({ to: '998901234567', type: 'text', text: { body: 'Hi' } });
   */
  send(message: DeepReadonly<OutboundMessage>, options?: SendOptions): ApiPromise<SendResult>;
  send(message: UncheckedMessage, options: SendOptions & { validate: false }): ApiPromise<SendResult>;
  send(message: unknown, options: SendOptions = {}): ApiPromise<SendResult> {
    return apiPromise(() => {
      const checked = prepare(message, options.validate, options.extraFields);
      if (!checked.valid) throw new MessageValidationError(checked.issues);
      const type = (checked.message as { type?: unknown }).type;
      return traced(
        'wa-gateway send',
        () => ({
          ...SEND_SPAN,
          'server.address': this.#transport.host,
          'wa_gateway.message.type': typeof type === 'string' ? type : 'unknown',
        }),
        () => this.#post(checked.message, options, options),
        (data, span) => span.set('messaging.message.id', data.messageId),
      );
    });
  }

  async #post(
    valid: object,
    flags: SendFlags,
    request: RequestOptions & {
      retryInFlight?: boolean | undefined;
      onRetryWait?: ((ms: number) => void) | undefined;
    },
    stopSignal?: AbortSignal,
  ): Promise<WithResponse<SendResult>> {
    const { data, response, attempts } = await this.#transport.json({
      method: 'POST',
      path: '/v1/wa/message',
      query:
        flags.isFake || flags.mmlite
          ? { is_fake: flags.isFake ? true : undefined, mmlite: flags.mmlite ? true : undefined }
          : undefined,
      body: { messaging_product: this.#messagingProduct, ...valid },
      ...requestOf(request),
      idempotent: false,
      retryInFlight: request.retryInFlight ?? this.#retryInFlight,
      onRetryWait: request.onRetryWait,
      rateLimited: true,
      stopSignal,
      bulk: stopSignal !== undefined,
    });
    const parsed = readSendResponse(data);
    if (!parsed) {
      throw unexpectedAnswer(
        {
          status: response.status,
          method: 'POST',
          path: '/v1/wa/message',
          bodyExcerpt: excerpt(this.#transport.redact(safeJson(data))),
        },
        'but its body carries no message id; the message may be out, so do not resend it blindly.',
      );
    }
    return {
      data: { messageId: parsed.messageId, contacts: parsed.contacts, raw: data },
      response: responseInfo(response, attempts),
    };
  }

  /**
   * Sends many messages with bounded concurrency, sharing the client's rate limiter, and yields one result
   * per message **in input order**. Accepts any iterable or async iterable, so 100,000 messages can be read
   * lazily from a file or a database cursor.
   *
   * - A `RATE_001` pauses every worker for the server's `retry_after`, then the send is retried.
   * - A `BILL_001` (balance exhausted) stops starting new sends, as the spec asks: every message not yet
   *   started is reported with `ok: false`, `notSent: true` and the same `PaymentRequiredError`, so nothing
   *   is silently dropped.
   * - An invalid message is reported (`MessageValidationError`, `notSent: true`) and the others go on.
   * - Breaking out of the loop stops every send not yet started, queued ones included; sends already in flight
   *   complete (they are not aborted, the message may be out) but their results are no longer reported.
   * - A slow send does not stall the batch: the others go on, and results wait for it to keep the order.
   *
   * @example
   * for await (const r of gw.messages.sendMany(customers.map(toTemplateMessage), { concurrency: 8 })) {
   *   if (r.ok) db.saveWamid(r.index, r.messageId);
   *   else if (r.notSent) retryLater(r.index, r.error);
   *   else alertOps(r.index, r.error);
   * }
   */
  async *sendMany(
    messages: Iterable<DeepReadonly<OutboundMessage>> | AsyncIterable<DeepReadonly<OutboundMessage>>,
    options: SendManyOptions = {},
  ): AsyncGenerator<SendManyResult, void, undefined> {
    const concurrency = options.concurrency ?? 16;
    if (!Number.isInteger(concurrency) || concurrency < 1) {
      throw new ConfigurationError(
        `sendMany concurrency must be a positive integer; got ${String(concurrency)}.`,
      );
    }
    // Stops every send that has not started (queued at the rate limiter, or not yet taken from the source):
    // on BILL_001, on the caller's signal, and when the caller breaks out of the loop. Never cuts one in flight.
    const stop = new AbortController();
    // One listener per queued send is expected here, not a leak.
    setMaxListeners(0, stop.signal);
    let stopReason: WaGatewayError | undefined;
    const halt = (reason: WaGatewayError) => {
      if (stop.signal.aborted) return;
      stopReason = reason;
      stop.abort(NOT_STARTED);
    };
    const onCallerAbort = () => halt(abortError(options.signal!));
    if (options.signal?.aborted) onCallerAbort();
    options.signal?.addEventListener('abort', onCallerAbort, { once: true });
    const flags: SendFlags = { isFake: options.isFake, mmlite: options.mmlite };
    const progress: SendManyProgress = {
      done: 0,
      total: Array.isArray(messages) ? messages.length : undefined,
      failed: 0,
      waitMs: 0,
    };
    const report = () => {
      try {
        options.onProgress?.({ ...progress });
      } catch {
        // A progress callback is an observer: its failure must not lose a result.
      }
    };
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
    const notStarted = (index: number): SendManyResult => ({
      index,
      ok: false,
      error: stopReason ?? new NotSentError('sendMany stopped before this message was sent.'),
      notSent: true,
    });
    const send = async (message: DeepReadonly<OutboundMessage>, index: number): Promise<SendManyResult> => {
      if (stop.signal.aborted) return notStarted(index);
      const checked = prepare(message, options.validate, undefined);
      if (!checked.valid)
        return { index, ok: false, error: new MessageValidationError(checked.issues), notSent: true };
      try {
        const type = (checked.message as { type?: unknown }).type;
        const { data: r } = await traced(
          'wa-gateway send',
          {
            ...SEND_SPAN,
            'server.address': this.#transport.host,
            'wa_gateway.message.type': typeof type === 'string' ? type : 'unknown',
          },
          () => this.#post(checked.message, flags, request, stop.signal),
          (data, span) => span.set('messaging.message.id', data.messageId),
        );
        return { index, ok: true, messageId: r.messageId, contacts: r.contacts };
      } catch (error) {
        if (error === NOT_STARTED) return notStarted(index);
        if (error instanceof PaymentRequiredError) halt(error);
        // The transport throws SDK errors only; anything else (a hostile fetch double) is wrapped, not passed on.
        const e =
          error instanceof WaGatewayError
            ? error
            : new WaGatewayError('The send failed with an error that is not an SDK error.', { cause: error });
        return { index, ok: false, error: e, notSent: !mayHaveBeenSent(e, GATEWAY_RETRY_RULES) };
      }
    };

    // A pool of `concurrency` sends; results leave in input order. A slow send does not hold the others back:
    // finished results wait for it, up to `concurrency * 4` of them, and only then does the pool stop taking new
    // messages (memory stays bounded whatever the source's length).
    const source = toAsyncIterator(messages);
    const done = new Map<number, SendManyResult>();
    const inFlight = new Set<Promise<void>>();
    const maxAhead = concurrency * 4;
    let started = 0;
    let next = 0;
    let exhausted = false;
    try {
      for (;;) {
        while (!exhausted && inFlight.size < concurrency && started - next < maxAhead) {
          const item = await source.next();
          if (item.done) {
            exhausted = true;
            break;
          }
          const index = started++;
          const task: Promise<void> = send(item.value, index).then((r) => {
            done.set(index, r);
            inFlight.delete(task);
          });
          inFlight.add(task);
        }
        while (done.has(next)) {
          const result = done.get(next)!;
          done.delete(next++);
          progress.done = next;
          progress.waitMs = 0;
          if (!result.ok) progress.failed++;
          yield result;
          if (options.onProgress) report();
        }
        if (exhausted && next === started) return;
        if (inFlight.size > 0) await Promise.race(inFlight);
      }
    } finally {
      // Broke out, threw, or finished: nothing queued may go out unreported. Sends in flight complete.
      halt(new NotSentError('sendMany ended before this message was sent.'));
      options.signal?.removeEventListener('abort', onCallerAbort);
      await source.return?.();
    }
  }
}

function toAsyncIterator<T>(source: Iterable<T> | AsyncIterable<T>): AsyncIterator<T> {
  if (Symbol.asyncIterator in source) return source[Symbol.asyncIterator]();
  const it = source[Symbol.iterator]();
  return {
    next: async () => it.next(),
    return: async (value?: unknown) => it.return?.(value) ?? { done: true, value: undefined },
  };
}

/** The stop signal's reason: the send was stopped before any request was made. */
const NOT_STARTED: unique symbol = Symbol('not started');

function abortError(signal: AbortSignal): NotSentError {
  return new NotSentError('sendMany was aborted before this message was sent.', { cause: signal.reason });
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
