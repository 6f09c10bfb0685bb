/**
 * The webhook core: what the Fetch adapter (`fetch-handler.ts`, `createWebhookHandler`) and the Node adapter
 * (`node-handler.ts`) share, from a request's method, headers and body to a status code.
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
import { errorNameOf } from '../core/observer.js';
import { loadTracing, type Span, startSpan, tracingReady } from '../core/tracing.js';
import { createClaims, type EventFailed, ON_ERROR_HINT, ON_EVENT_FAILED, type Outcome } from './claims.js';
import type { WebhookEvent } from './events.js';
import {
  DUPLICATES_HEADER,
  type ResolvedOptions,
  type WebhookEventContext,
  type WebhookPlatformContext,
} from './handler-options.js';
import { parseWebhook } from './parse.js';
import { authorizationFailure, importHmacKey, verifySignatureWithKeys } from './verify.js';

/** @internal The body as an adapter obtained it. */
export type BodyResult =
  | { kind: 'bytes'; bytes: Uint8Array }
  | { kind: 'text'; text: string }
  | { kind: 'parsed'; value: object }
  | { kind: 'too_large' }
  | { kind: 'unavailable'; reason: string };

/** @internal What an adapter hands to the core. */
export interface CoreRequest {
  method: string;
  /** A header by lowercase name, or `undefined` when absent or ambiguous. */
  header(name: string): string | undefined;
  readBody(maxBytes: number): Promise<BodyResult>;
}

/** @internal What the core answers. */
export interface CoreResponse {
  status: number;
  body: string;
  headers: Record<string, string>;
}

/** @internal */
export type WebhookCore = (request: CoreRequest, platform?: WebhookPlatformContext) => Promise<CoreResponse>;

function answer(status: number, error?: string, headers: Record<string, string> = {}): CoreResponse {
  return {
    status,
    body: error === undefined ? '{"ok":true}' : `{"ok":false,"error":"${error}"}`,
    headers: { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers },
  };
}

/** One handler's resolved options and what it keeps between deliveries. */
interface Core extends ResolvedOptions {
  eventFailed: EventFailed;
  claims: ReturnType<typeof createClaims>;
  /** The upstream HMAC keys, imported on the first delivery that needs them. */
  upstreamKeys: Promise<CryptoKey[]> | null;
}

/** @internal Builds the transport-independent core both adapters call from the resolved options. */
export function createWebhookCore(options: ResolvedOptions): WebhookCore {
  /** One failure about one event: an operational line for the logger (never the payload) and the error to onError. */
  const eventFailed: EventFailed = (message, error, stage, event, index, level = 'error') => {
    const hint = stage === 'onEvent' && !options.hasOnError ? ON_ERROR_HINT : '';
    options.log(level, message + hint, {
      kind: event.kind,
      index,
      ...(stage === 'onEvent' ? { errorName: errorNameOf(error) } : {}),
    });
    options.report(error, { stage, event, index });
  };
  const core: Core = {
    ...options,
    eventFailed,
    claims: createClaims({ ...options, eventFailed }),
    upstreamKeys: null,
  };
  loadTracing();
  return async (request, platform) => {
    const ready = tracingReady();
    if (ready) await ready;
    const delivery = startSpan('wa-gateway webhook.delivery', 'server', {
      'http.request.method': request.method,
    });
    const result = await handle(core, request, platform, delivery);
    delivery?.set('http.response.status_code', result.status);
    delivery?.end();
    return result;
  };
}

/** How one event of a delivery ended, for the delivery's answer and the event's span. */
type EventOutcome = Outcome | 'aborted' | 'unkeyed';

/** Runs one event: deduped through the claims when the handler has a store and the event a key, else directly. */
async function runEvent(
  core: Core,
  event: WebhookEvent,
  context: WebhookEventContext,
  signal: AbortSignal,
): Promise<EventOutcome> {
  const { store } = core;
  let key: string | null | undefined = null;
  if (store) {
    try {
      key = core.dedupeKey(event);
    } catch (error) {
      core.eventFailed('dedupeKey threw; answering 500', error, 'dedupe', event, context.index);
      return 'failed';
    }
  }
  if (!store || typeof key !== 'string' || key === '') {
    try {
      await core.onEvent(event, context);
    } catch (error) {
      core.eventFailed(ON_EVENT_FAILED, error, 'onEvent', event, context.index);
      return 'failed';
    }
    return 'unkeyed';
  }
  return core.claims.settle(store, key, event, context, signal);
}

/** The `wa_gateway.dedup.outcome` of an event's span. */
function spanOutcome(outcome: EventOutcome, deduping: boolean): string {
  if (outcome === 'failed' || outcome === 'duplicate') return outcome;
  if (outcome === 'busy') return 'in_progress';
  return deduping ? 'processed' : 'not_deduplicated';
}

async function processEvents(
  core: Core,
  events: WebhookEvent[],
  signal: AbortSignal,
  delivery: Span | undefined,
): Promise<CoreResponse> {
  let failed = 0;
  let busy = 0;
  let duplicates = 0;
  delivery?.set('wa_gateway.webhook.events', events.length);
  for (let index = 0; index < events.length; index++) {
    // Past the deadline the answer was already sent: leave the remaining events to the gateway's retry.
    if (signal.aborted) return answer(503, 'deadline_exceeded');
    const event = events[index]!;
    const span =
      delivery && startSpan('wa-gateway webhook.event', 'internal', eventAttributes(event), delivery);
    let outcome: EventOutcome = 'ok';
    try {
      outcome = await runEvent(core, event, { signal, index, count: events.length }, signal);
    } finally {
      span?.set('wa_gateway.dedup.outcome', spanOutcome(outcome, core.store !== null));
      span?.end();
    }
    if (outcome === 'aborted') return answer(503, 'deadline_exceeded');
    if (outcome === 'failed') failed++;
    else if (outcome === 'busy') busy++;
    else if (outcome === 'duplicate') duplicates++;
  }
  if (failed > 0) return answer(500, 'processing_failed');
  if (busy > 0) return answer(503, 'in_progress');
  return answer(200, undefined, duplicates > 0 ? { [DUPLICATES_HEADER]: String(duplicates) } : {});
}

/** The answer to a body the adapter could not hand over whole, or `null` when there is a body to parse. */
function refuseBody(core: Core, body: BodyResult): CoreResponse | null {
  const { log, report, maxBodyBytes } = core;
  if (body.kind === 'too_large') {
    // A 4xx is final for the gateway: this delivery is lost for good, so say it loudly.
    log('error', 'Webhook body over maxBodyBytes refused with 413; the gateway will not retry it', {
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

type ReadBody = Extract<BodyResult, { kind: 'bytes' | 'text' | 'parsed' }>;

/** The answer refusing a delivery over the upstream signature, or `null` when it passes (or is not checked). */
async function refuseSignature(
  core: Core,
  request: CoreRequest,
  body: ReadBody,
): Promise<CoreResponse | null> {
  const { log, upstreamSecrets } = core;
  if (upstreamSecrets === null) return null;
  const header = request.header('x-hub-signature-256');
  if (header === undefined) {
    if (!core.requireSignature) return null;
    log('warn', 'Webhook request refused: X-Hub-Signature-256 header missing', { status: 401 });
    return answer(401, 'signature_missing');
  }
  if (body.kind === 'parsed') {
    // 500 and not 4xx: this is the application's set-up, and the gateway's retry keeps the event alive while
    // the log says what to change.
    log(
      'error',
      'Cannot verify X-Hub-Signature-256: a JSON body parser already consumed the raw body. Mount the webhook ' +
        'handler before any body parser (or give it the raw bytes as req.body). Answering 500.',
      { status: 500 },
    );
    return answer(500, 'raw_body_required');
  }
  core.upstreamKeys ??= Promise.all(upstreamSecrets.map(importHmacKey));
  const raw = body.kind === 'bytes' ? body.bytes : body.text;
  if (await verifySignatureWithKeys(raw, header, await core.upstreamKeys)) return null;
  log('warn', 'Webhook request refused: X-Hub-Signature-256 does not match', { status: 403 });
  return answer(403, 'invalid_signature');
}

async function processRequest(
  core: Core,
  request: CoreRequest,
  signal: AbortSignal,
  delivery: Span | undefined,
): Promise<CoreResponse> {
  const body = await request.readBody(core.maxBodyBytes);
  const refused = refuseBody(core, body) ?? (await refuseSignature(core, request, body as ReadBody));
  if (refused) return refused;
  const read = body as ReadBody;
  let events: WebhookEvent[];
  try {
    events = parseWebhook(read.kind === 'bytes' ? read.bytes : read.kind === 'text' ? read.text : read.value);
  } catch (error) {
    if (!(error instanceof WebhookParseError)) throw error;
    // WebhookParseError messages name a location and a type, never payload content.
    core.log('warn', `Webhook body refused with 400: ${error.message}`, { status: 400, path: error.path });
    core.report(error, { stage: 'parse' });
    return answer(400, 'invalid_body');
  }
  return processEvents(core, events, signal, delivery);
}

function internalError(core: Core, error: unknown): CoreResponse {
  core.log('error', 'Webhook handler failed unexpectedly; answering 500', { errorName: errorNameOf(error) });
  core.report(error, { stage: 'internal' });
  return answer(500, 'internal_error');
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
      "secret in the gateway's settings (or `wa-gateway trigger --secret`, `sandbox --webhook-secret`).",
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

async function handle(
  core: Core,
  request: CoreRequest,
  platform: WebhookPlatformContext | undefined,
  delivery: Span | undefined,
): Promise<CoreResponse> {
  const { log, deadlineMs } = core;
  try {
    if (request.method.toUpperCase() !== 'POST') return answer(405, 'method_not_allowed', { allow: 'POST' });
    // The header alone decides: checked before a single body byte is read.
    const refused = authorizationFailure(request.header('authorization'), core.secrets);
    if (refused !== null) {
      const { error, message } = UNAUTHORIZED[refused];
      log('warn', `Webhook request refused with 401: ${message}`, { status: 401, reason: error });
      return answer(401, error, { 'www-authenticate': 'Bearer' });
    }
    const controller = new AbortController();
    const work = processRequest(core, request, controller.signal, delivery).catch(
      (error: unknown): CoreResponse => internalError(core, error),
    );
    let timer: ReturnType<typeof setTimeout> | undefined;
    const deadline = new Promise<null>((resolve) => {
      timer = setTimeout(() => resolve(null), deadlineMs);
    });
    const result = await Promise.race([work, deadline]);
    clearTimeout(timer);
    if (result !== null) return result;
    controller.abort(new WaGatewayError('Webhook deadline passed; the gateway will retry the delivery'));
    log('warn', 'Webhook deadline passed before processing finished; answering 503 so the gateway retries', {
      status: 503,
      deadlineMs,
    });
    const keepAlive = platform?.waitUntil ?? core.waitUntil;
    try {
      keepAlive?.(work);
    } catch {
      // waitUntil outside a request context throws on some platforms; the answer stands.
    }
    return answer(503, 'deadline_exceeded');
  } catch (error) {
    return internalError(core, error);
  }
}

/** A webhook event's span attributes: its kind and type, never its content. */
function eventAttributes(event: WebhookEvent): Record<string, string> {
  const type =
    event.kind === 'message'
      ? event.message.type
      : event.kind === 'status'
        ? event.status.status
        : event.kind === 'unknown'
          ? event.reason
          : event.field;
  return { 'wa_gateway.event.kind': event.kind, 'wa_gateway.event.type': String(type) };
}

/** @internal */
export function concat(chunks: readonly Uint8Array[], total: number): Uint8Array {
  if (chunks.length === 1) return chunks[0]!;
  const out = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}
