/**
 * The webhook core: what the Fetch adapter (`fetch-handler.ts`, `createWebhookHandler`) and the Node adapter
 * (`node-handler.ts`) share, from a request's method, headers and body to a status code.
 *
 * The gateway's delivery rules decide every status code here: it expects a 200 within 5 seconds; it retries on a
 * connection error or a 5xx (immediately, after 1 s, after 2 s, then drops the event); a 4xx drops the event for
 * good. So:
 * - 4xx only where a retry cannot help: 405 (not POST), 401 (bad Authorization), 413 (body over the cap), 400
 *   (body that is not an envelope), 401/403 (upstream signature missing/wrong, only when that check is enabled).
 * - 5xx whenever the retry can help: `onEvent` failed (500), the deadline passed (503), another delivery of the same
 *   event is still being processed elsewhere (503), the dedupe store failed (500). A thrown error's own `status`
 *   is never passed through: a library error carrying 422 would otherwise drop the event for good.
 * - 200 for success, duplicates and event kinds the application does not handle.
 *
 * Response bodies are tiny fixed JSON documents; the payload is never echoed. The logger receives reasons, status
 * codes and event kinds: never payload content, idempotency keys (a `wamid` encodes a phone number) or secrets.
 */
import { ConfigurationError, WaGatewayError, WebhookParseError } from '../core/errors.js';
import { type Logger, type LogLevel, resolveLogger } from '../core/logger.js';
import { loadTracing, type Span, startSpan, tracingReady } from '../core/tracing.js';
import { createClaims, ON_EVENT_FAILED } from './claims.js';
import { DEFAULT_DEDUPE_TTL_MS, type IdempotencyStore, MemoryIdempotencyStore } from './dedup.js';
import type { WebhookEvent } from './events.js';
import { parseWebhook } from './parse.js';
import { importHmacKey, verifyAuthorization, verifySignatureWithKeys } from './verify.js';

/**
 * The SDK's one `Logger` contract, under the name the webhook options used. Receives operational messages:
 * never payload content, keys that encode phone numbers, or secrets.
 */
export type WebhookLogger = Logger;

/** The default logger: the messages and their metadata, which by construction carry no payload content. */
const consoleLogger: WebhookLogger = {
  warn: (message, meta) => console.warn(`[wa-gateway webhooks] ${message}`, ...(meta ? [meta] : [])),
  error: (message, meta) => console.error(`[wa-gateway webhooks] ${message}`, ...(meta ? [meta] : [])),
};

/**
 * @internal The logger the `logger` and `logLevel` options mean, by the clients' rules (`resolveLogger`): the given
 * logger or else the console, filtered to `logLevel`, else to `WA_GATEWAY_LOG`, else to `warn`; none for `false`.
 * A bad `logLevel` is a `ConfigurationError`.
 */
export function resolveWebhookLogger(
  option: WebhookLogger | false | undefined,
  logLevel?: LogLevel,
): WebhookLogger | undefined {
  return option === false ? undefined : resolveLogger({ logger: option ?? consoleLogger, logLevel });
}

/** Passed to `onEvent` with each event. */
export interface WebhookEventContext {
  /**
   * Aborted when the handler's deadline passes and it answers 503 so the gateway retries. Pass it to the I/O
   * `onEvent` does, or check it, to stop early: the retry will process the event again unless it completed.
   */
  signal: AbortSignal;
  /** Position of the event in its delivery (0-based). */
  index: number;
  /** Number of events in the delivery. */
  count: number;
}

/** Where a failure reported to `onError` happened. */
export interface WebhookErrorInfo {
  stage: 'onEvent' | 'dedupe' | 'parse' | 'body' | 'internal';
  /** The event being processed, for stage `onEvent` and `dedupe`. */
  event?: WebhookEvent;
  index?: number;
}

export interface WebhookHandlerOptions {
  /**
   * The webhook secret(s) the gateway sends as `Authorization: Bearer <secret>`. Give a list during a rotation
   * (old and new) so no valid delivery is refused. Each must be non-empty visible ASCII; under 32 characters
   * triggers a warning through `logger`.
   */
  secret: string | readonly string[];
  /**
   * Called once per event, sequentially in document order. Throwing (or rejecting) makes the handler answer 500,
   * so the gateway retries; events of the same delivery that succeeded stay deduped and are not run again.
   */
  onEvent: (event: WebhookEvent, context: WebhookEventContext) => void | Promise<void>;
  /**
   * Where processed events are recorded. Default: a `MemoryIdempotencyStore` per handler (one process). `false`
   * turns deduplication off: then a retry after a failure runs every event of the delivery again.
   */
  dedupe?: IdempotencyStore | false;
  /** How long a processed event is remembered. Default 24 h. */
  dedupeTtlMs?: number;
  /**
   * How long a claim on an event being processed holds before a retry may take it over. Default
   * `deadlineMs + 1000` (5 s): a process that crashed or froze while holding it then loses the event to nobody,
   * since the gateway's next attempt (about 6 s after the first) processes it. It must stay below that: a
   * longer lease answers every retry 503 and the gateway drops the event after three. An `onEvent` that runs
   * longer than the lease may meet its own retry: a duplicate, which the spec already asks consumers to bear.
   */
  claimLeaseMs?: number;
  /**
   * The key an event is deduped on. Default: `event.idempotencyKey`. Return `null`/`undefined` to run an event
   * without deduplication.
   */
  dedupeKey?: (event: WebhookEvent) => string | null | undefined;
  /** Bodies larger than this are refused with 413. Default 1 MiB. */
  maxBodyBytes?: number;
  /**
   * Time budget of one delivery, from arrival to answer, in ms; must be below the gateway's 5,000. Default 4,000.
   * When it passes, the handler answers 503 (the gateway retries), starts no further event, and lets the running
   * one finish (handed to `waitUntil` when given) and complete or release its claim.
   */
  deadlineMs?: number;
  /** Keeps work alive after the response on serverless platforms (Vercel, Workers, Netlify): `ctx.waitUntil`. */
  waitUntil?: (promise: Promise<unknown>) => void;
  /**
   * Also verify the upstream platform's `X-Hub-Signature-256` over the raw body (only useful when the gateway
   * forwards that header and the body bytes unchanged). A wrong signature is answered 403.
   */
  upstreamAppSecret?: string | readonly string[];
  /** With `upstreamAppSecret`: refuse (401) deliveries without the header. Default `false` (verify when present). */
  requireUpstreamSignature?: boolean;
  /**
   * Operational messages (an `onEvent` failure, a refused delivery, a short secret); never payloads, keys or
   * secrets. Default: `console.warn`/`console.error` with a `[wa-gateway webhooks]` prefix, so a failing
   * `onEvent` does not go unnoticed. Pass your own (pino, winston) or `false` for silence. Either is filtered to
   * `logLevel`, as the clients' logger is.
   */
  logger?: WebhookLogger | false;
  /**
   * The least severe level logged (`'off'` logs nothing). Default: the `WA_GATEWAY_LOG` environment variable
   * when it names a level (read where a `process.env` exists), else `'warn'`.
   */
  logLevel?: LogLevel;
  /** Every failure, with the error object itself (which may hold your own data: log it with care). */
  onError?: (error: unknown, info: WebhookErrorInfo) => void;
}

/** Extra per-request capabilities of the platform, e.g. a Worker's `ctx`. */
export interface WebhookPlatformContext {
  waitUntil?: (promise: Promise<unknown>) => void;
}

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

/** How one event of a delivery ended, as seen by the deliveries that wait for it. `duplicate`: done before. */

/**
 * Answer header counting the events of a delivery found already processed (onEvent not run). A 200 alone cannot
 * tell a processed event from a recognised duplicate; `wa-gateway trigger` reads this to say which it was.
 */
export const DUPLICATES_HEADER = 'x-wa-gateway-duplicates';

const MIB = 1024 * 1024;
const GATEWAY_TIMEOUT_MS = 5000;

function answer(status: number, error?: string, headers: Record<string, string> = {}): CoreResponse {
  return {
    status,
    body: error === undefined ? '{"ok":true}' : `{"ok":false,"error":"${error}"}`,
    headers: { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers },
  };
}

function secretList(value: unknown, option: string): string[] {
  const list = typeof value === 'string' ? [value] : Array.isArray(value) ? [...value] : null;
  if (list === null || list.length === 0) {
    throw new ConfigurationError(
      `createWebhookHandler: \`${option}\` must be a non-empty string or list of strings`,
    );
  }
  list.forEach((s, i) => {
    // A secret the header cannot carry verbatim (`Bearer <secret>`) could never match: say so now.
    if (typeof s !== 'string' || !/^[\x21-\x7e]+$/.test(s)) {
      throw new ConfigurationError(
        `createWebhookHandler: \`${option}\`${list.length > 1 ? `[${i}]` : ''} must be a non-empty string of visible ` +
          'ASCII characters (no spaces)',
      );
    }
  });
  return list as string[];
}

function errorName(error: unknown): string {
  try {
    return error instanceof Error ? error.name : typeof error;
  } catch {
    return 'unknown';
  }
}

/** Validates the options (throwing `ConfigurationError`) and resolves their defaults, once per handler. */
function resolveOptions(options: WebhookHandlerOptions) {
  if (typeof options !== 'object' || options === null) {
    throw new ConfigurationError('createWebhookHandler: options are required ({ secret, onEvent })');
  }
  const logger = resolveWebhookLogger(options.logger, options.logLevel);
  const log = (level: 'warn' | 'error', message: string, meta?: Record<string, unknown>): void => {
    try {
      logger?.[level]?.(message, meta);
    } catch {
      // A broken logger must not change the answer.
    }
  };
  const secrets = secretList(options.secret, 'secret');
  secrets.forEach((s, index) => {
    if (s.length < 32) {
      log('warn', 'A webhook secret is shorter than the 32 random characters the gateway advises', { index });
    }
  });
  const onEvent = options.onEvent;
  if (typeof onEvent !== 'function')
    throw new ConfigurationError('createWebhookHandler: `onEvent` must be a function');
  const deadlineMs = options.deadlineMs ?? 4000;
  if (typeof deadlineMs !== 'number' || !(deadlineMs > 0) || deadlineMs >= GATEWAY_TIMEOUT_MS) {
    throw new ConfigurationError(
      'createWebhookHandler: `deadlineMs` must be above 0 and below 5000 (the gateway waits 5 seconds for a 200)',
    );
  }
  const maxBodyBytes = options.maxBodyBytes ?? MIB;
  if (!Number.isInteger(maxBodyBytes) || maxBodyBytes <= 0) {
    throw new ConfigurationError('createWebhookHandler: `maxBodyBytes` must be a positive integer');
  }
  const dedupeTtlMs = options.dedupeTtlMs ?? DEFAULT_DEDUPE_TTL_MS;
  if (!(dedupeTtlMs > 0) || !Number.isFinite(dedupeTtlMs)) {
    throw new ConfigurationError('createWebhookHandler: `dedupeTtlMs` must be a positive number');
  }
  const claimLeaseMs = options.claimLeaseMs ?? deadlineMs + 1000;
  if (!(claimLeaseMs > 0) || !Number.isFinite(claimLeaseMs)) {
    throw new ConfigurationError('createWebhookHandler: `claimLeaseMs` must be a positive number');
  }
  let store: IdempotencyStore | null;
  if (options.dedupe === false) store = null;
  else if (options.dedupe === undefined) store = new MemoryIdempotencyStore({ ttlMs: dedupeTtlMs });
  else if (typeof options.dedupe?.claim === 'function' && typeof options.dedupe.release === 'function') {
    store = options.dedupe;
  } else {
    throw new ConfigurationError('createWebhookHandler: `dedupe` must be an IdempotencyStore or false');
  }
  const dedupeKey = options.dedupeKey ?? ((event: WebhookEvent) => event.idempotencyKey);
  const upstreamSecrets =
    options.upstreamAppSecret === undefined
      ? null
      : secretList(options.upstreamAppSecret, 'upstreamAppSecret');
  const requireSignature = options.requireUpstreamSignature === true;
  if (requireSignature && upstreamSecrets === null) {
    throw new ConfigurationError(
      'createWebhookHandler: `requireUpstreamSignature` needs `upstreamAppSecret`',
    );
  }
  const report = (error: unknown, info: WebhookErrorInfo): void => {
    try {
      options.onError?.(error, info);
    } catch {
      // The application's error hook must not change the answer either.
    }
  };
  return {
    log,
    secrets,
    onEvent,
    deadlineMs,
    maxBodyBytes,
    dedupeTtlMs,
    claimLeaseMs,
    store,
    dedupeKey,
    upstreamSecrets,
    requireSignature,
    report,
  };
}

/** @internal Validates options and builds the transport-independent core both adapters call. */
export function createWebhookCore(options: WebhookHandlerOptions): WebhookCore {
  const {
    log,
    secrets,
    onEvent,
    deadlineMs,
    maxBodyBytes,
    dedupeTtlMs,
    claimLeaseMs,
    store,
    dedupeKey,
    upstreamSecrets,
    requireSignature,
    report,
  } = resolveOptions(options);
  let upstreamKeys: Promise<CryptoKey[]> | null = null;

  /** One failure about one event: an operational line for the logger (never the payload) and the error to onError. */
  const eventFailed = (
    message: string,
    error: unknown,
    stage: WebhookErrorInfo['stage'],
    event: WebhookEvent,
    index: number,
  ): void => {
    log('error', message, {
      kind: event.kind,
      index,
      ...(stage === 'onEvent' ? { errorName: errorName(error) } : {}),
    });
    report(error, { stage, event, index });
  };
  const claims = createClaims({ onEvent, eventFailed, claimLeaseMs, dedupeTtlMs });

  async function processEvents(
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
      const counted = { failed, busy, duplicates };
      try {
        const context: WebhookEventContext = { signal, index, count: events.length };
        let key: string | null | undefined = null;
        if (store) {
          try {
            key = dedupeKey(event);
          } catch (error) {
            eventFailed('dedupeKey threw; answering 500', error, 'dedupe', event, index);
            failed++;
            continue;
          }
        }
        if (!store || typeof key !== 'string' || key === '') {
          try {
            await onEvent(event, context);
          } catch (error) {
            eventFailed(ON_EVENT_FAILED, error, 'onEvent', event, index);
            failed++;
          }
          continue;
        }
        const outcome = await claims.settle(store, key, event, context, signal);
        if (outcome === 'aborted') return answer(503, 'deadline_exceeded');
        if (outcome === 'failed') failed++;
        else if (outcome === 'busy') busy++;
        else if (outcome === 'duplicate') duplicates++;
      } finally {
        span?.set(
          'wa_gateway.dedup.outcome',
          failed > counted.failed
            ? 'failed'
            : busy > counted.busy
              ? 'in_progress'
              : duplicates > counted.duplicates
                ? 'duplicate'
                : store
                  ? 'processed'
                  : 'not_deduplicated',
        );
        span?.end();
      }
    }
    if (failed > 0) return answer(500, 'processing_failed');
    if (busy > 0) return answer(503, 'in_progress');
    return answer(200, undefined, duplicates > 0 ? { [DUPLICATES_HEADER]: String(duplicates) } : {});
  }

  async function processRequest(
    request: CoreRequest,
    signal: AbortSignal,
    delivery: Span | undefined,
  ): Promise<CoreResponse> {
    const body = await request.readBody(maxBodyBytes);
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
    if (upstreamSecrets !== null) {
      const header = request.header('x-hub-signature-256');
      if (header === undefined) {
        if (requireSignature) {
          log('warn', 'Webhook request refused: X-Hub-Signature-256 header missing', { status: 401 });
          return answer(401, 'signature_missing');
        }
      } else if (body.kind === 'parsed') {
        // 500 and not 4xx: this is the application's set-up, and the gateway's retry keeps the event alive while
        // the log says what to change.
        log(
          'error',
          'Cannot verify X-Hub-Signature-256: a JSON body parser already consumed the raw body. Mount the webhook ' +
            'handler before any body parser (or give it the raw bytes as req.body). Answering 500.',
          { status: 500 },
        );
        return answer(500, 'raw_body_required');
      } else {
        upstreamKeys ??= Promise.all(upstreamSecrets.map(importHmacKey));
        const raw = body.kind === 'bytes' ? body.bytes : body.text;
        if (!(await verifySignatureWithKeys(raw, header, await upstreamKeys))) {
          log('warn', 'Webhook request refused: X-Hub-Signature-256 does not match', { status: 403 });
          return answer(403, 'invalid_signature');
        }
      }
    }
    let events: WebhookEvent[];
    try {
      events = parseWebhook(
        body.kind === 'bytes' ? body.bytes : body.kind === 'text' ? body.text : body.value,
      );
    } catch (error) {
      if (!(error instanceof WebhookParseError)) throw error;
      // WebhookParseError messages name a location and a type, never payload content.
      log('warn', `Webhook body refused with 400: ${error.message}`, { status: 400, path: error.path });
      report(error, { stage: 'parse' });
      return answer(400, 'invalid_body');
    }
    return processEvents(events, signal, delivery);
  }

  loadTracing();
  return async (request, platform) => {
    const ready = tracingReady();
    if (ready) await ready;
    const delivery = startSpan('wa-gateway webhook.delivery', 'server', {
      'http.request.method': request.method,
    });
    const result = await handle(request, platform, delivery);
    delivery?.set('http.response.status_code', result.status);
    delivery?.end();
    return result;
  };

  async function handle(
    request: CoreRequest,
    platform: Parameters<WebhookCore>[1],
    delivery: Span | undefined,
  ): Promise<CoreResponse> {
    try {
      if (request.method.toUpperCase() !== 'POST')
        return answer(405, 'method_not_allowed', { allow: 'POST' });
      // The header alone decides: checked before a single body byte is read.
      if (!verifyAuthorization(request.header('authorization'), secrets)) {
        log('warn', 'Webhook request refused: missing or invalid Authorization header', { status: 401 });
        return answer(401, 'unauthorized', { 'www-authenticate': 'Bearer' });
      }
      const controller = new AbortController();
      const work = processRequest(request, controller.signal, delivery).catch(
        (error: unknown): CoreResponse => {
          log('error', 'Webhook handler failed unexpectedly; answering 500', { errorName: errorName(error) });
          report(error, { stage: 'internal' });
          return answer(500, 'internal_error');
        },
      );
      let timer: ReturnType<typeof setTimeout> | undefined;
      const deadline = new Promise<null>((resolve) => {
        timer = setTimeout(() => resolve(null), deadlineMs);
      });
      const result = await Promise.race([work, deadline]);
      clearTimeout(timer);
      if (result !== null) return result;
      controller.abort(new WaGatewayError('Webhook deadline passed; the gateway will retry the delivery'));
      log(
        'warn',
        'Webhook deadline passed before processing finished; answering 503 so the gateway retries',
        {
          status: 503,
          deadlineMs,
        },
      );
      const keepAlive = platform?.waitUntil ?? options.waitUntil;
      try {
        keepAlive?.(work);
      } catch {
        // waitUntil outside a request context throws on some platforms; the answer stands.
      }
      return answer(503, 'deadline_exceeded');
    } catch (error) {
      log('error', 'Webhook handler failed unexpectedly; answering 500', { errorName: errorName(error) });
      report(error, { stage: 'internal' });
      return answer(500, 'internal_error');
    }
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
