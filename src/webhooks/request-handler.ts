/**
 * The webhook handler both adapters call (`fetch-handler.ts`, `node-handler.ts`): from a request's method, headers
 * and body to a status code, one step per file in the order a delivery takes them (CONTRIBUTING.md, "Following one
 * webhook delivery"): the Authorization header (`verify.ts`), the body (`read-body.ts`), the upstream signature
 * (`upstream-signature.ts`), the envelope (`parse.ts`), each event's claim and `onEvent` (`claims.ts`), the answer.
 *
 * The gateway's delivery rules decide every status code here: it expects a 200 within 5 seconds; it retries on a
 * connection error or a 5xx (immediately, after 1 s, after 2 s, then drops the event); a 4xx drops the event for
 * good. So:
 * - 4xx only where a retry cannot help: 405 (not POST), 401 (Authorization missing, malformed or not the secret:
 *   the body's `error` says which), 413 (body over the cap), 400
 *   (body that is not an envelope), 401/403 (upstream signature missing/wrong, only when that check is enabled).
 * - 5xx whenever the retry can help: `onEvent` failed (500), the deadline passed (503), another delivery of the same
 *   event is still being processed elsewhere (503), the dedupe store failed (500 with `onStoreUnavailable: 'fail'`;
 *   by default the event runs without deduplication). A thrown error's own `status` is never passed through: a
 *   library error carrying 422 would otherwise drop the event for good.
 * - 200 for success, duplicates and event kinds the application does not handle.
 *
 * Response bodies are tiny fixed JSON documents; the payload is never echoed. The logger receives reasons, status
 * codes and event kinds: never payload content, idempotency keys (a `wamid` encodes a phone number) or secrets.
 */
import { WaGatewayError, WebhookParseError } from '../core/errors.js';
import { log } from '../core/logger.js';
import { callObserver, errorNameOf } from '../core/observer.js';
import { loadTracing, type Span, startSpan, tracingReady } from '../core/tracing.js';
import { createClaims, type EventFailed, ON_ERROR_HINT, ON_EVENT_FAILED, type Outcome } from './claims.js';
import type { WebhookEvent } from './events.js';
import {
  DUPLICATES_HEADER,
  dedupeKeyOf,
  type ResolvedOptions,
  type WebhookErrorInfo,
  type WebhookEventContext,
  type WebhookHandlerOptions,
  type WebhookPlatformContext,
} from './handler-options.js';
import { parseWebhook } from './parse.js';
import { type BodyResult, type BodySource, readBody } from './read-body.js';
import { importHmacKey, RawBodyRequiredError, verifySignatureWithKeys } from './upstream-signature.js';
import { authorizationFailure } from './verify.js';

/** @internal A request as an adapter hands it over: its parts, read once, as data. */
export interface HandlerRequest {
  method: string;
  /** The `Authorization` header, `undefined` when absent or ambiguous. */
  authorization: string | undefined;
  /** The `X-Hub-Signature-256` header, likewise. */
  signature: string | undefined;
  body: BodySource;
}

/** @internal What the handler answers. */
export interface HandlerAnswer {
  status: number;
  body: string;
  headers: Record<string, string>;
}

/** One handler's resolved options and what it keeps between deliveries. */
interface Handler extends ResolvedOptions {
  /** Logs without ever throwing: a broken logger must not change the answer. */
  log: (level: 'warn' | 'error', message: string, meta?: Record<string, unknown>) => void;
  /** Calls `onError` without ever throwing. */
  report: (error: unknown, info: WebhookErrorInfo) => void;
  dedupeKey: NonNullable<WebhookHandlerOptions['dedupeKey']>;
  eventFailed: EventFailed;
  claims: ReturnType<typeof createClaims>;
  /** The upstream HMAC keys, imported on the first delivery that needs them. */
  upstreamKeys: Promise<CryptoKey[]> | null;
}

/** @internal The handler both adapters call, from the resolved options (once per handler). */
export function createRequestHandler(
  options: ResolvedOptions,
): (request: HandlerRequest, platform?: WebhookPlatformContext) => Promise<HandlerAnswer> {
  const { logger, onError, templates } = options;
  const logLine: Handler['log'] = (level, message, meta) => log(logger, level, message, meta);
  // The application's error hook must not change the answer, even when it is async and rejects.
  const report: Handler['report'] = (error, info) =>
    callObserver(onError, [error, info], (errorName) => logLine('warn', 'onError failed', { errorName }));
  const hasOnError = typeof onError === 'function';
  /** One failure about one event: an operational line for the logger (never the payload) and the error to onError. */
  const eventFailed: EventFailed = (message, error, stage, event, index, level = 'error') => {
    // Every stage names the error's class and how to see the error itself: a dedupe store bound to the wrong
    // Durable Object class is otherwise one anonymous warning per event.
    // The event's type (a status's value, a message's type) tells which of a customer's events was lost; its id
    // is left to onError, which gets the event: a wamid encodes a phone number, and logs carry none.
    logLine(level, message + (hasOnError ? '' : ON_ERROR_HINT), {
      kind: event.kind,
      type: eventType(event),
      index,
      errorName: errorNameOf(error),
    });
    report(error, { stage, event, index });
  };
  const dedupeKey = options.dedupeKey ?? ((event: WebhookEvent) => event.idempotencyKey);
  // With a catalogue, template statuses are applied before onEvent and not deduplicated: applying one is
  // idempotent, and a template approved, paused and approved again delivers the same value twice.
  const onEvent: ResolvedOptions['onEvent'] = templates
    ? async (event, context) => {
        if (event.kind === 'template_status') await templates.apply(event);
        await options.onEvent(event, context);
      }
    : options.onEvent;
  const handler: Handler = {
    ...options,
    log: logLine,
    report,
    onEvent,
    dedupeKey: templates
      ? (event) => (event.kind === 'template_status' ? null : dedupeKey(event))
      : dedupeKey,
    eventFailed,
    claims: createClaims({ ...options, onEvent, eventFailed }),
    upstreamKeys: null,
  };
  loadTracing();
  return async (request, platform) => {
    const ready = tracingReady();
    if (ready) await ready;
    const delivery = startSpan('wa-gateway webhook.delivery', 'server', {
      'http.request.method': request.method,
    });
    const result = await handle(handler, request, platform, delivery);
    delivery?.set('http.response.status_code', result.status);
    delivery?.end();
    return result;
  };
}

/** The method, then the Authorization header (before a byte of the body is read), then the rest under the deadline. */
async function handle(
  handler: Handler,
  request: HandlerRequest,
  platform: WebhookPlatformContext | undefined,
  delivery: Span | undefined,
): Promise<HandlerAnswer> {
  const { log, deadlineMs } = handler;
  try {
    if (request.method.toUpperCase() !== 'POST') return answer(405, 'method_not_allowed', { allow: 'POST' });
    const refused = authorizationFailure(request.authorization, handler.secrets);
    if (refused !== null) {
      const { error, message } = UNAUTHORIZED[refused];
      log('warn', `Webhook request refused with 401: ${message}`, { status: 401, reason: error });
      return answer(401, error, { 'www-authenticate': 'Bearer' });
    }
    const controller = new AbortController();
    const progress: Progress = { events: 0, finished: 0 };
    const work = processRequest(handler, request, controller.signal, delivery, progress).catch(
      (error: unknown): HandlerAnswer => internalError(handler, error),
    );
    let timer: ReturnType<typeof setTimeout> | undefined;
    const deadline = new Promise<null>((resolve) => {
      timer = setTimeout(() => resolve(null), deadlineMs);
    });
    const result = await Promise.race([work, deadline]);
    clearTimeout(timer);
    if (result !== null) return result;
    const passed = new WaGatewayError('Webhook deadline passed before processing finished');
    controller.abort(passed);
    // Which event held the delivery up, and how many are left to the retry: what an operator needs to find it.
    log('warn', `${passed.message}; answering 503 so the gateway retries`, {
      status: 503,
      deadlineMs,
      ...progress,
    });
    handler.report(passed, { stage: 'deadline', index: progress.runningEvent });
    const keepAlive = platform?.waitUntil ?? handler.waitUntil;
    try {
      // A waitUntil of yours may be async: its rejection must not end the process.
      Promise.resolve(keepAlive?.(work)).catch(() => {});
    } catch {
      // waitUntil outside a request context throws on some platforms; the answer stands.
    }
    return answer(503, 'deadline_exceeded');
  } catch (error) {
    return internalError(handler, error);
  }
}

/**
 * The 401's error code (in the answer's body) and log line for each way the header can be wrong: whoever set up the
 * sender must know whether it sends no secret or another secret. Neither says anything about the secret itself.
 */
const UNAUTHORIZED = {
  missing: {
    error: 'authorization_missing',
    message:
      'no Authorization header. The gateway sends `Authorization: Bearer <WEBHOOK_SECRET>`: set the webhook ' +
      "secret in the gateway's settings (or $WEBHOOK_SECRET where `wa-gateway trigger` or `sandbox` runs).",
  },
  malformed: {
    error: 'authorization_malformed',
    message:
      'the Authorization header is not `Bearer <secret>` (another scheme, no token, or the secret without ' +
      '`Bearer `). The sender must send `Authorization: Bearer <WEBHOOK_SECRET>`.',
  },
  mismatch: {
    error: 'authorization_mismatch',
    message:
      "the Bearer token is not this handler's secret. The sender and this handler must use the same " +
      'WEBHOOK_SECRET (check both environments); during a rotation pass both: `secret: [newSecret, oldSecret]`.',
  },
} as const;

/** The body, the upstream signature over it, the envelope, then the events. */
async function processRequest(
  handler: Handler,
  request: HandlerRequest,
  signal: AbortSignal,
  delivery: Span | undefined,
  progress: Progress,
): Promise<HandlerAnswer> {
  const body = await readBody(request.body, handler.maxBodyBytes);
  const refused =
    refuseBody(handler, body) ?? (await refuseSignature(handler, request.signature, body as ReadBody));
  if (refused) return refused;
  const read = body as ReadBody;
  let events: WebhookEvent[];
  try {
    events = parseWebhook(read.kind === 'bytes' ? read.bytes : read.kind === 'text' ? read.text : read.value);
  } catch (error) {
    if (!(error instanceof WebhookParseError)) throw error;
    // WebhookParseError messages name a location and a type, never payload content.
    // A 4xx is final for the gateway, as for the 413: the delivery is lost, so say so (and what usually causes it).
    handler.log('error', `Webhook body refused with 400${NOT_RETRIED}: ${error.message}`, {
      status: 400,
      path: error.path,
    });
    handler.report(error, { stage: 'parse' });
    return answer(400, 'invalid_body');
  }
  return processEvents(handler, events, signal, delivery, progress);
}

type ReadBody = Extract<BodyResult, { kind: 'bytes' | 'text' | 'parsed' }>;

/** Said of every 4xx a body gets: the gateway does not retry one, so its events are lost for good. */
const NOT_RETRIED = '; the gateway will not retry it';

/** The answer to a body that could not be read whole, or `null` when there is a body to parse. */
function refuseBody(handler: Handler, body: BodyResult): HandlerAnswer | null {
  const { log, report, maxBodyBytes } = handler;
  if (body.kind === 'too_large') {
    // A 4xx is final for the gateway: this delivery is lost for good, so say it loudly.
    log('error', `Webhook body over maxBodyBytes refused with 413${NOT_RETRIED}`, {
      status: 413,
      maxBodyBytes,
    });
    report(new WaGatewayError(`A webhook body over maxBodyBytes (${maxBodyBytes}) was refused with 413.`), {
      stage: 'body',
    });
    return answer(413, 'payload_too_large');
  }
  if (body.kind === 'unavailable') {
    log('error', `Webhook body could not be read: ${body.reason}; answering 500`, { status: 500 });
    report(new WaGatewayError(`Webhook body could not be read: ${body.reason}`), { stage: 'body' });
    return answer(500, 'body_unavailable');
  }
  return null;
}

/** The answer refusing a delivery over the upstream signature, or `null` when it passes (or is not checked). */
async function refuseSignature(
  handler: Handler,
  header: string | undefined,
  body: ReadBody,
): Promise<HandlerAnswer | null> {
  const { log, upstreamSecrets } = handler;
  if (upstreamSecrets === null) return null;
  if (header === undefined) {
    if (!handler.requireSignature) return null;
    log('warn', 'Webhook request refused: X-Hub-Signature-256 header missing', { status: 401 });
    return answer(401, 'signature_missing');
  }
  if (body.kind === 'parsed') {
    // 500 and not 4xx: this is the application's set-up, and the gateway's retry keeps the event alive while
    // the log says what to change.
    const error = new RawBodyRequiredError();
    log('error', `${error.message} Answering 500.`, { status: 500 });
    handler.report(error, { stage: 'signature' });
    return answer(500, 'raw_body_required');
  }
  handler.upstreamKeys ??= Promise.all(upstreamSecrets.map(importHmacKey));
  const raw = body.kind === 'bytes' ? body.bytes : body.text;
  if (await verifySignatureWithKeys(raw, header, await handler.upstreamKeys)) return null;
  log('warn', 'Webhook request refused: X-Hub-Signature-256 does not match', { status: 403 });
  return answer(403, 'invalid_signature');
}

/** How far a delivery's events got: read by the deadline's log line and `onError` report. */
interface Progress {
  events: number;
  finished: number;
  /** The index of the event being run or waited for. */
  runningEvent?: number;
}

async function processEvents(
  handler: Handler,
  events: WebhookEvent[],
  signal: AbortSignal,
  delivery: Span | undefined,
  progress: Progress,
): Promise<HandlerAnswer> {
  let failed = 0;
  let busy = 0;
  let duplicates = 0;
  const count = events.length;
  progress.events = count;
  delivery?.set('wa_gateway.webhook.events', count);
  // An event still running here for an earlier delivery (a hung or slow `onEvent`) is waited for after the events
  // that follow it: waiting first would spend every retry's deadline on it, and the gateway drops the events
  // behind it after its last retry, though nothing was wrong with them.
  const later: number[] = [];
  for (let step = 0; step < count + later.length; step++) {
    // Past the deadline the answer was already sent: leave the remaining events to the gateway's retry.
    if (signal.aborted) return answer(503, 'deadline_exceeded');
    const index = step < count ? step : later[step - count]!;
    const event = events[index]!;
    const span =
      delivery && startSpan('wa-gateway webhook.event', 'internal', eventAttributes(event), delivery);
    let outcome: EventOutcome = 'ok';
    progress.runningEvent = index;
    try {
      outcome = await runEvent(handler, event, { signal, index, count }, signal, step < count);
    } finally {
      // A deferred event's span ends here too: its wait, later in the delivery, gets a span of its own.
      span?.set('wa_gateway.dedup.outcome', spanOutcome(outcome, handler.store !== null));
      span?.end();
    }
    if (outcome === 'aborted') return answer(503, 'deadline_exceeded');
    if (outcome === 'deferred') later.push(index);
    else progress.finished++;
    if (outcome === 'failed') failed++;
    else if (outcome === 'busy') busy++;
    else if (outcome === 'duplicate') duplicates++;
  }
  if (failed > 0) return answer(500, 'processing_failed');
  if (busy > 0) return answer(503, 'in_progress');
  return answer(200, undefined, duplicates > 0 ? { [DUPLICATES_HEADER]: String(duplicates) } : {});
}

/** How one event of a delivery ended, for the delivery's answer and the event's span. */
type EventOutcome = Outcome | 'aborted' | 'unkeyed' | 'deferred';

/**
 * Runs one event: deduped through the claims when the handler has a store and the event a key, else directly.
 * `deferred` (only when `mayDefer`): the event is running in this process for another delivery, to be waited for
 * once the rest of this one is done.
 */
async function runEvent(
  handler: Handler,
  event: WebhookEvent,
  context: WebhookEventContext,
  signal: AbortSignal,
  mayDefer: boolean,
): Promise<EventOutcome> {
  const { store } = handler;
  let key: string | null | undefined = null;
  if (store) {
    try {
      key = await dedupeKeyOf(handler.dedupeKey, event);
    } catch (error) {
      handler.eventFailed('dedupeKey failed; answering 500', error, 'dedupe', event, context.index);
      return 'failed';
    }
  }
  if (!store || typeof key !== 'string' || key === '') {
    try {
      await handler.onEvent(event, context);
    } catch (error) {
      handler.eventFailed(ON_EVENT_FAILED, error, 'onEvent', event, context.index);
      return 'failed';
    }
    return 'unkeyed';
  }
  if (mayDefer && handler.claims.runningHere(key)) return 'deferred';
  return handler.claims.settle(store, key, event, context, signal);
}

/** The `wa_gateway.dedup.outcome` of an event's span. */
function spanOutcome(outcome: EventOutcome, deduping: boolean): string {
  if (outcome === 'failed' || outcome === 'duplicate' || outcome === 'deferred') return outcome;
  if (outcome === 'busy') return 'in_progress';
  return deduping ? 'processed' : 'not_deduplicated';
}

function answer(status: number, error?: string, headers: Record<string, string> = {}): HandlerAnswer {
  return {
    status,
    body: error === undefined ? '{"ok":true}' : `{"ok":false,"error":"${error}"}`,
    headers: { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers },
  };
}

function internalError(handler: Handler, error: unknown): HandlerAnswer {
  handler.log('error', 'Webhook handler failed unexpectedly; answering 500', {
    errorName: errorNameOf(error),
  });
  handler.report(error, { stage: 'internal' });
  return answer(500, 'internal_error');
}

/** An event's type, never its content: a message's type, a status's value, an unknown event's reason, a field. */
function eventType(event: WebhookEvent): string {
  // Cut short: a status's value and a field's name are the sender's words, of any length.
  return (
    event.kind === 'message'
      ? event.message.type
      : event.kind === 'status'
        ? event.status.status
        : event.kind === 'unknown'
          ? event.reason
          : event.field
  ).slice(0, 40);
}

/**
 * A webhook event's span attributes: its kind and type, and for a message or a status its wamid
 * (`messaging.message.id`, as the send's span has it), so a trace joins a send to its statuses.
 */
function eventAttributes(event: WebhookEvent): Record<string, string> {
  const id = (event.kind === 'status' ? event.status : event.kind === 'message' ? event.message : undefined)
    ?.id;
  return {
    'wa_gateway.event.kind': event.kind,
    'wa_gateway.event.type': eventType(event),
    ...(id ? { 'messaging.message.id': id } : {}),
  };
}
