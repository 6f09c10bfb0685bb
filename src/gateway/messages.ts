import { onAbort } from '../core/abort.js';
import { type ApiPromise, apiPromise, responseInfo, type WithResponse } from '../core/api-promise.js';
import { Deadlines } from '../core/attempt.js';
import { type RequestOptions, requestOf } from '../core/call-options.js';
import { durationMs, MAX_TIMER_MS } from '../core/duration.js';
import {
  MessageValidationError,
  NotSentError,
  TimeoutError,
  unexpectedAnswer,
  WaGatewayError,
} from '../core/errors.js';
import type { OptionKeys } from '../core/option-keys.js';
import type { DeepReadonly } from '../core/plain-data.js';
import { excerpt } from '../core/secrets.js';
import { type Span, traced, tracingLoaded } from '../core/tracing.js';
import type { Transport } from '../core/transport.js';
import type { TemplateCatalog } from '../templates/catalog.js';
import type {
  TemplateDefinition,
  TemplateSendValues,
  UntypedTemplateSendValues,
  ValuesArgument,
} from '../templates/define.js';
import type { OutboundMessage } from './message-schema.js';
import { prepare } from './prepare-message.js';
import type { PostRequest, PostSend, SendFlags, SendResult } from './send.js';
import {
  type CampaignObserver,
  campaignSends,
  checkSendOptions,
  SEND_SPAN,
  type SendManyOptions,
  type SendManyResult,
  sendMany,
} from './send-many.js';
import { readSendResponse } from './send-response.js';
import { checkTemplateMessage, sendTemplateMessage } from './send-template.js';
import { checkServiceWindow, type WindowStore } from './service-window.js';

/**
 * `messages.send` options: the send's {@link SendFlags} and the call's {@link RequestOptions} in one object
 * (`send(message, { isFake, signal })`), kept as two named types that the SDK consumes apart.
 */
export interface SendOptions extends SendFlags, RequestOptions {
  /**
   * Retry even when the request failed in flight (connection reset, timeout). Off by default because the
   * message may already be out and would then be sent twice.
   */
  retryInFlight?: boolean | undefined;
  /**
   * `false` skips local validation: the message goes out as given (plus `messaging_product`, which the message
   * itself may not set), for message types and fields the spec does not show. The gateway stays the judge.
   * Default `true`.
   */
  validate?: boolean | undefined;
  /**
   * Fields the spec does not show, merged into the validated message (objects merge key by key), e.g. a reply
   * `context` or an interactive `header`. A key the message already has is a `MessageValidationError`: this
   * adds fields, it never overrides checked ones.
   */
  extraFields?: UnshownFields | undefined;
}

/** `send`'s and `sendTemplate`'s options, every one (see `OptionKeys`). */
const SEND_KEYS = [
  'isFake',
  'mmlite',
  'retryInFlight',
  'validate',
  'extraFields',
  'signal',
  'timeoutMs',
  'maxRetries',
  'headers',
] as const;
const sendKeys: OptionKeys<SendOptions, typeof SEND_KEYS> = SEND_KEYS;

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

/**
 * What `sendTemplate` takes after the template: with a definition, its values (required when it has something to
 * fill) and the options; with a name, untyped values and the options. One signature with this rest type, not an
 * overload per case, so that a mismatch is reported as the values' own error under every TypeScript version.
 */
export type SendTemplateArguments<T> = T extends string
  ? [values?: UntypedTemplateSendValues, options?: SendOptions]
  : [...ValuesArgument<TemplateSendValues<T>>, options?: SendOptions];

/** The gateway's messages resource: `POST /v1/wa/message`. */
export class Messages {
  readonly #transport: Transport;
  readonly #messagingProduct: string;
  readonly #retryInFlight: boolean;
  readonly #serviceWindow: WindowStore | undefined;
  readonly #campaigns: CampaignObserver | undefined;
  readonly #templates: TemplateCatalog | undefined;
  /** The client's `timeoutMs`: what bounds a store's read before a send when the call sets none. */
  readonly #timeoutMs: number;
  /**
   * Whether the catalogue's reads are bounded (`#beforeRequest`): not for its in-memory store. Asked of the
   * catalogue, not by `instanceof`: a value import of its file would put the template rules in the chunk the
   * Durable Objects entry takes its errors from (its bundle went from 32 to 59 KB).
   */
  readonly #catalogueBounded: boolean;
  /** The deadlines of the reads before sends (`#beforeRequest`): one timer for all of them. */
  readonly #deadlines = new Deadlines();
  /** One send with the client's checks (the catalogue's, then the service window's in `#post`). */
  readonly #checkedPost: PostSend;

  /** @internal */
  constructor(
    transport: Transport,
    options: {
      messagingProduct: string;
      retryInFlight: boolean;
      timeoutMs: number;
      serviceWindow?: WindowStore | undefined;
      campaigns?: CampaignObserver | undefined;
      templates?: TemplateCatalog | undefined;
    },
  ) {
    this.#transport = transport;
    this.#messagingProduct = options.messagingProduct;
    this.#retryInFlight = options.retryInFlight;
    this.#serviceWindow = options.serviceWindow;
    this.#campaigns = options.campaigns;
    this.#templates = options.templates;
    this.#catalogueBounded = options.templates?.storeIsLocal !== true;
    this.#timeoutMs = options.timeoutMs;
    const catalog = options.templates;
    // A template the catalogue refuses is refused before a request, like any other check: notSent.
    this.#checkedPost =
      catalog === undefined
        ? (m, f, r, s, o, b) => this.#post(m, f, r, s, o, b)
        : (m, f, r, s, o, b) =>
            this.#beforeRequest(
              CATALOGUE,
              () => checkTemplateMessage(catalog, m),
              r,
              s,
              this.#catalogueBounded,
            ).then(() => this.#post(m, f, r, s, o, b));
    SENDERS.set(this, { post: this.#checkedPost, host: transport.host });
  }

  /**
   * Sends one message. It is validated locally first: an invalid message throws `MessageValidationError`
   * listing every issue, and no request is made. Success means accepted, not delivered: watch the status
   * webhooks for the returned `messageId`.
   *
   * Retries: a `RATE_001` waits the server's `retry_after`, an `AUTH_004` backs off. A `GW_001` (the upstream
   * refused the message: it is not out, and the same message gets the same answer) is never retried, nor, by
   * default, a send that failed in flight, since the message may be out.
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
  send(message: unknown, sendOptions?: SendOptions): ApiPromise<SendResult> {
    return apiPromise(() => {
      const options = checkSendOptions(sendOptions, 'messages.send', sendKeys) ?? NO_OPTIONS;
      const checked = prepare(message, options.validate, options.extraFields);
      if (!checked.valid) throw new MessageValidationError(checked.issues);
      const catalog = this.#templates;
      if (catalog && (checked.message as { type?: unknown }).type === 'template')
        return this.#beforeRequest(
          CATALOGUE,
          () => checkTemplateMessage(catalog, checked.message),
          options,
          undefined,
          this.#catalogueBounded,
        ).then(() => this.#dispatch(checked.message, options));
      return this.#dispatch(checked.message, options);
    }, this.#transport);
  }

  /**
   * Sends a template, its parameters built from `values` and checked before any request: against the definition
   * (a wrong number of body values does not even compile) and, when the client has a catalogue, against what
   * exists (the language, the status `APPROVED`). A refusal is a `TemplateSendError` naming the rule, the
   * template, what it expects and what was given; nothing was sent.
   *
   * `template` is a definition (`defineTemplate`), or its name when the client has a catalogue. `body` holds the
   * body's values in order, `header` the TEXT header's value or a media `{ link }`, `buttons` the values of URL
   * buttons with a variable (and quick-reply payloads) by button index.
   *
   * @example
   * await gw.messages.sendTemplate('998901234567', orderShipped, { body: ['Ali', '#1042'], buttons: { 0: '1042' } });
   */
  sendTemplate<const T extends TemplateDefinition | string>(
    to: string,
    template: T,
    ...[values, sendOptions]: SendTemplateArguments<T>
  ): ApiPromise<SendResult> {
    return apiPromise(() => {
      const options = checkSendOptions(sendOptions, 'messages.sendTemplate', sendKeys) ?? NO_OPTIONS;
      const build = () => sendTemplateMessage(this.#templates, to, template, values);
      // Only a catalogue reads a store; a definition alone builds the message at once.
      return (
        this.#templates
          ? this.#beforeRequest(CATALOGUE, build, options, undefined, this.#catalogueBounded)
          : build()
      ).then((message) => {
        const checked = prepare(message, true, options.extraFields);
        if (!checked.valid) throw new MessageValidationError(checked.issues);
        return this.#dispatch(checked.message, options);
      });
    }, this.#transport);
  }

  /**
   * A read a send makes before its request (the service window's store, the template catalogue's), bounded like
   * the request: by the call's signal, `sendMany`'s stop and the call's `timeoutMs` (else the client's). A store
   * that fails or hangs must neither hold the call past them nor reach the caller untyped: its error becomes a
   * `NotSentError` (its `cause`), the deadline a `TimeoutError`; nothing was sent either way.
   */
  #beforeRequest<R>(
    what: string,
    read: () => Promise<R>,
    request: PostRequest,
    stopSignal: AbortSignal | undefined,
    bounded: boolean,
  ): Promise<R> {
    // A store in this process's memory answers at once and cannot hang: bounding its read cost a checked send 3
    // to 4 points of throughput for nothing (bench/checked-sends.bench.ts), so only its failure is typed.
    if (!bounded) return read().then(undefined, (error: unknown) => Promise.reject(notSent(what, error)));
    const { signal } = request;
    const timeoutMs = durationMs(request.timeoutMs, 'timeoutMs', this.#timeoutMs);
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (stopSignal?.aborted) return Promise.reject(stopSignal.reason);
    return new Promise<R>((resolve, reject) => {
      // Its deadline is an entry in the resource's one timer, as a request's is in the transport's: a timer per
      // send costs a checked send's throughput (bench/checked-sends.bench.ts).
      const deadline = {
        at: 0,
        slot: -1,
        expire: () =>
          settle(
            reject,
            new TimeoutError(
              `Not sent: ${what} did not answer within ${timeoutMs} ms. Nothing reached the server.`,
              {
                mayHaveBeenSent: false,
                timeoutMs,
              },
            ),
          ),
      };
      const unlinkSignal = onAbort(signal, () => settle(reject, signal?.reason));
      const unlinkStop = onAbort(stopSignal, () => settle(reject, stopSignal?.reason));
      const settle = <V>(end: (value: V) => void, value: V): void => {
        this.#deadlines.clear(deadline);
        unlinkSignal();
        unlinkStop();
        end(value);
      };
      this.#deadlines.add(deadline, Math.min(timeoutMs, MAX_TIMER_MS));
      let pending: Promise<R>;
      try {
        pending = read();
      } catch (error) {
        pending = Promise.reject(error);
      }
      pending.then(
        (value) => settle(resolve, value),
        (error: unknown) => settle(reject, notSent(what, error)),
      );
    });
  }

  #dispatch(message: object, options: SendOptions): Promise<WithResponse<SendResult>> {
    // Untraced (the common case), the send builds none of the span's closures.
    if (!tracingLoaded()) return this.#post(message, options, options);
    const type = (message as { type?: unknown }).type;
    return traced(
      'wa-gateway send',
      () => ({
        ...SEND_SPAN,
        'server.address': this.#transport.host,
        'wa_gateway.message.type': typeof type === 'string' ? type : 'unknown',
      }),
      () => this.#post(message, options, options),
      annotateSend,
    );
  }

  async #post(
    valid: object,
    flags: SendFlags,
    request: PostRequest,
    stopSignal?: AbortSignal,
    onSend?: () => void,
    beforeSend?: () => Promise<void>,
  ): Promise<WithResponse<SendResult>> {
    if (Object.hasOwn(valid, 'messaging_product')) {
      throw new MessageValidationError([
        {
          path: ['messaging_product'],
          message: `is set by the SDK (the client's messagingProduct option, '${this.#messagingProduct}'); remove it from the message and extraFields`,
          code: 'custom',
          rule: 'messaging_product.reserved',
        },
      ]);
    }
    if (flags.mmlite === true && (valid as { type?: unknown }).type !== 'template') {
      // The marketing-lite route takes "the same body as a template message": any other type meets GW_001.
      throw new MessageValidationError([
        {
          path: ['type'],
          message:
            "is not 'template': the mmlite option routes template messages only; send this one without it",
          code: 'custom',
          rule: 'mmlite.template_only',
        },
      ]);
    }
    const window = this.#serviceWindow;
    if (window !== undefined)
      await this.#beforeRequest(WINDOW, () => checkServiceWindow(window, valid), request, stopSignal, true);
    const { data, response, attempts, call } = await this.#transport.json({
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
      onSend,
      beforeSend,
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
      response: responseInfo(response, attempts, call),
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
   *   complete (they are not aborted, the message may be out) but their results are no longer reported. With a
   *   `campaign`, leaving the loop resolves only once those results are recorded too (or throws
   *   `CampaignRecordError` with the ones the store refused).
   * - A slow send does not stall the batch: the others go on, and results wait for it to keep the order.
   *
   * @example
   * for await (const r of gw.messages.sendMany(customers.map(toTemplateMessage), { concurrency: 8 })) {
   *   if (r.ok) db.saveWamid(r.index, r.messageId);
   *   else if (r.notSent) retryLater(r.index, r.error);
   *   else alertOps(r.index, r.error);
   * }
   */
  sendMany(
    messages: Iterable<DeepReadonly<OutboundMessage>> | AsyncIterable<DeepReadonly<OutboundMessage>>,
    options?: SendManyOptions,
  ): AsyncGenerator<SendManyResult, void, undefined> {
    // `null` is no options, as for `send`; anything else that is not an object is refused by `sendMany`.
    const given = options ?? {};
    // A template the catalogue refuses is reported like any refusal before a request: notSent, the others go on.
    const c = campaignSends(this.#campaigns, given.campaign, this.#checkedPost);
    return sendMany(c.post, this.#transport.host, messages, given, c.recorder);
  }
}

const NO_OPTIONS: SendOptions = Object.freeze({});
const CATALOGUE = "the template catalogue's store";
const WINDOW = "the service window's store";

/** Each `Messages`' one checked send and its host, for the senders of this folder that drive it (`sendGated`). */
const SENDERS = new WeakMap<Messages, { post: PostSend; host: string }>();

/** Internal: `messages`' one checked send (what `sendMany` drives) and the gateway's host, for `sendGated`. */
export function senderOf(messages: Messages): { post: PostSend; host: string } | undefined {
  return SENDERS.get(messages);
}

function annotateSend(data: SendResult, span: Span): void {
  span.set('messaging.message.id', data.messageId);
}

function safeJson(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/** A store's failure before a send, typed: the SDK's own errors as they are, anything else a `NotSentError`. */
function notSent(what: string, error: unknown): unknown {
  return error instanceof WaGatewayError
    ? error
    : new NotSentError(
        `Not sent: ${what} failed (${error instanceof Error ? error.name : typeof error}) before its request was made; see its cause.`,
        { cause: error },
      );
}
