import { setMaxListeners } from 'node:events';
import {
  InvalidResponseError,
  MessageValidationError,
  PaymentRequiredError,
  type WaGatewayError,
} from '../core/errors.js';
import { excerpt } from '../core/secrets.js';
import type { Transport } from '../core/transport.js';
import type { DeepReadonly } from '../core/types.js';
import { type OutboundMessage, type SendContact, sendResponseSchema } from './message-schema.js';
import { assertValidMessage, validateMessage } from './validate-message.js';

export interface SendOptions {
  /**
   * Run auth, rate limiting and billing checks but skip the upstream call; a fake wamid comes back and no
   * `delivered` webhook follows. For integration tests against a real gateway.
   */
  isFake?: boolean;
  /** Route through the upstream marketing-lite route (high-volume promotional template sends). */
  mmlite?: boolean;
  signal?: AbortSignal;
  timeoutMs?: number;
  /**
   * Retry even when the request failed in flight (connection reset, timeout). Off by default because the
   * message may already be out and would then be sent twice.
   */
  retryInFlight?: boolean;
}

export interface SendResult {
  /** The wamid. Status events carry it in `statuses[].id`; use it to match delivery receipts. */
  messageId: string;
  /** The number as sent (`input`) and as the network normalised it (`wa_id`). */
  contacts: SendContact[];
  /** The whole response body, fields the spec does not list included. */
  raw: unknown;
}

export interface SendManyOptions {
  /** How many sends are in flight at once. Default 16. The client's rate limiter still applies. */
  concurrency?: number;
  isFake?: boolean;
  mmlite?: boolean;
  /** Stops starting new sends; those not started are reported with `notSent: true`. */
  signal?: AbortSignal;
  timeoutMs?: number;
}

export type SendManyResult =
  | { index: number; ok: true; messageId: string; contacts: SendContact[] }
  | {
      index: number;
      ok: false;
      error: WaGatewayError | Error;
      /**
       * `true` when no request was made for this message (it failed validation, sending was paused by
       * `BILL_001`, or the signal aborted before it started). `false` when a request was made and failed.
       */
      notSent: boolean;
    };

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
   * @example
   * const { messageId } = await gw.messages.send({ to: '998901234567', type: 'text', text: { body: 'Hi' } });
   */
  async send(message: DeepReadonly<OutboundMessage>, options: SendOptions = {}): Promise<SendResult> {
    const valid = assertValidMessage(message);
    return this.#post(valid, options);
  }

  async #post(valid: object, options: SendOptions, stopSignal?: AbortSignal): Promise<SendResult> {
    const { data } = await this.#transport.json({
      method: 'POST',
      path: '/v1/wa/message',
      query: { is_fake: options.isFake ? true : undefined, mmlite: options.mmlite ? true : undefined },
      body: { messaging_product: this.#messagingProduct, ...valid },
      signal: options.signal,
      timeoutMs: options.timeoutMs,
      idempotent: false,
      retryInFlight: options.retryInFlight ?? this.#retryInFlight,
      rateLimited: true,
      stopSignal,
    });
    const parsed = sendResponseSchema.safeParse(data);
    if (!parsed.success) {
      throw new InvalidResponseError(
        'The gateway accepted the message (2xx) but its answer carries no message id; the message may be out, ' +
          'so do not resend it blindly.',
        {
          status: 200,
          bodyExcerpt: excerpt(safeJson(data)),
          request: { method: 'POST', path: '/v1/wa/message' },
        },
      );
    }
    return { messageId: parsed.data.data.messages[0]!.id, contacts: parsed.data.data.contacts, raw: data };
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
   * - Breaking out of the loop stops starting new sends; sends already in flight are not aborted.
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
      throw new RangeError(`sendMany concurrency must be a positive integer; got ${String(concurrency)}.`);
    }
    let stopReason: PaymentRequiredError | undefined;
    const sendOptions: SendOptions = {
      ...(options.isFake ? { isFake: true } : {}),
      ...(options.mmlite ? { mmlite: true } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.timeoutMs ? { timeoutMs: options.timeoutMs } : {}),
    };
    // Sends already queued at the rate limiter when a BILL_001 arrives must not go out either.
    const stop = new AbortController();
    // One listener per queued send is expected here, not a leak.
    setMaxListeners(0, stop.signal);
    const start = async (message: DeepReadonly<OutboundMessage>, index: number): Promise<SendManyResult> => {
      if (stopReason) return { index, ok: false, error: stopReason, notSent: true };
      if (options.signal?.aborted)
        return { index, ok: false, error: abortError(options.signal), notSent: true };
      const checked = validateMessage(message);
      if (!checked.valid)
        return { index, ok: false, error: new MessageValidationError(checked.issues), notSent: true };
      try {
        const r = await this.#post(checked.message, sendOptions, stop.signal);
        return { index, ok: true, messageId: r.messageId, contacts: r.contacts };
      } catch (error) {
        if (error === NOT_STARTED && stopReason)
          return { index, ok: false, error: stopReason, notSent: true };
        if (error instanceof PaymentRequiredError && !stopReason) {
          stopReason = error;
          stop.abort(NOT_STARTED);
        }
        // A 402 is answered before forwarding, so that message was not sent either.
        const notSent = error instanceof PaymentRequiredError;
        return {
          index,
          ok: false,
          error: error instanceof Error ? error : new Error(String(error)),
          notSent,
        };
      }
    };

    // A window of at most `concurrency` started sends; results leave in input order.
    const window: Promise<SendManyResult>[] = [];
    let index = 0;
    for await (const message of messages) {
      window.push(start(message, index++));
      if (window.length >= concurrency) yield await window.shift()!;
    }
    while (window.length > 0) yield await window.shift()!;
  }
}

/** The stop signal's reason: the send was stopped before any request was made. */
const NOT_STARTED: unique symbol = Symbol('not started');

function abortError(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new Error('The operation was aborted.');
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
