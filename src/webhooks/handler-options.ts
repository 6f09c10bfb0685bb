/**
 * The webhook handlers' options, their defaults and their validation: what `createWebhookHandler` and
 * `createNodeWebhookHandler` accept. `request-handler.ts` is what they do with them.
 */
import { countOption, durationMs } from '../core/duration.js';
import { ConfigurationError } from '../core/errors.js';
import { type Logger, type LogLevel, log, resolveLogger } from '../core/logger.js';
import { describeSecret, isHeaderSecret, type SecretHint, secretAdvice } from '../core/secret-advice.js';
import {
  DEFAULT_CLAIM_LEASE_MS,
  DEFAULT_DEDUPE_TTL_MS,
  type IdempotencyStore,
  MemoryIdempotencyStore,
} from './dedup.js';
import type { WebhookEvent } from './events.js';

/**
 * The SDK's one `Logger` contract, under the name the webhook options used. Receives operational messages:
 * never payload content, keys that encode phone numbers, or secrets.
 *
 * @deprecated Use `Logger` (the same type, from `wa-gateway-sdk` or `wa-gateway-sdk/webhooks`); this name goes
 * in 1.0.
 */
export type WebhookLogger = Logger;

/** The default logger: the messages and their metadata, which by construction carry no payload content. */
const consoleLogger: Logger = {
  warn: (message, meta) => console.warn(`[wa-gateway webhooks] ${message}`, ...(meta ? [meta] : [])),
  error: (message, meta) => console.error(`[wa-gateway webhooks] ${message}`, ...(meta ? [meta] : [])),
};

/**
 * @internal The logger the `logger` and `logLevel` options mean, by the clients' rules (`resolveLogger`): the given
 * logger or else the console, filtered to `logLevel`, else to `WA_GATEWAY_LOG`, else to `warn`; none for `false`.
 * A bad `logLevel` is a `ConfigurationError`.
 */
export function resolveWebhookLogger(
  option: Logger | false | undefined,
  logLevel?: LogLevel,
): Logger | undefined {
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
  /**
   * `deadline`: `deadlineMs` passed before the delivery's events were processed (answered 503; `index` is the event
   * that was running, if one was). `signature`: the upstream signature could not be checked because a body parser
   * had already consumed the raw body (answered 500: a set-up to fix).
   */
  stage: 'onEvent' | 'dedupe' | 'parse' | 'body' | 'deadline' | 'signature' | 'internal';
  /** The event being processed, for stage `onEvent` and `dedupe`. */
  event?: WebhookEvent;
  /** The event's position in its delivery, for stages `onEvent`, `dedupe` and `deadline`. */
  index?: number | undefined;
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
  dedupe?: IdempotencyStore | false | undefined;
  /** How long a processed event is remembered. Default 24 h. */
  dedupeTtlMs?: number | undefined;
  /**
   * The lease of a claim on an event being processed. Default 800 ms. While `onEvent` runs the handler renews it
   * every third of the lease (with a store that has `renew`, as both stores of the SDK do), until the delivery's
   * deadline. A process that dies mid-event (crash, OOM kill, deploy) stops renewing, so its claim ends within one
   * lease: before the gateway's next attempt, 1 s after a failed one, which then processes the event. Keep it well
   * under 1,000 ms: a longer lease answers the retries 503 and the gateway drops the event after three. The same
   * holds when `release` fails, or when a claim was made but its answer lost: the lease ends by itself.
   */
  claimLeaseMs?: number | undefined;
  /**
   * The key an event is deduped on. Default: `event.idempotencyKey`. Return `null`/`undefined` to run an event
   * without deduplication. It may be async (a key that needs a lookup). Anything but a string, `null` or
   * `undefined`, or a throw, fails the event (500, `onError`), as a run without its dedupe would be a second run.
   */
  dedupeKey?:
    | ((event: WebhookEvent) => string | null | undefined | PromiseLike<string | null | undefined>)
    | undefined;
  /**
   * What to do with an event when the dedupe store cannot be reached (its `claim` fails, e.g. Redis is down).
   * `'process'` (default): run `onEvent` without deduplication and log a warning (stage `dedupe`): at-least-once,
   * as the gateway's delivery rules already require of consumers. `'fail'`: answer 500 so the gateway retries,
   * for an `onEvent` that must never run twice; an outage longer than the gateway's three attempts (about 3 s)
   * then loses the events delivered during it.
   */
  onStoreUnavailable?: 'process' | 'fail' | undefined;
  /** Bodies larger than this are refused with 413. Default 1 MiB. */
  maxBodyBytes?: number | undefined;
  /**
   * Time budget of one delivery, from arrival to answer, in ms; must be below the gateway's 5,000. Default 4,000.
   * When it passes, the handler answers 503 (the gateway retries), starts no further event, and lets the running
   * one finish (handed to `waitUntil` when given) and complete or release its claim.
   */
  deadlineMs?: number | undefined;
  /** Keeps work alive after the response on serverless platforms (Vercel, Workers, Netlify): `ctx.waitUntil`. */
  waitUntil?: ((promise: Promise<unknown>) => void) | undefined;
  /**
   * Also verify the upstream platform's `X-Hub-Signature-256` over the raw body (only useful when the gateway
   * forwards that header and the body bytes unchanged). A wrong signature is answered 403.
   */
  upstreamAppSecret?: string | readonly string[] | undefined;
  /** With `upstreamAppSecret`: refuse (401) deliveries without the header. Default `false` (verify when present). */
  requireUpstreamSignature?: boolean | undefined;
  /**
   * Operational messages (an `onEvent` failure, a refused delivery, a short secret); never payloads, keys or
   * secrets. Default: `console.warn`/`console.error` with a `[wa-gateway webhooks]` prefix, so a failing
   * `onEvent` does not go unnoticed. Pass your own (pino, winston) or `false` for silence. Either is filtered to
   * `logLevel`, as the clients' logger is.
   */
  logger?: Logger | false | undefined;
  /**
   * The least severe level logged (`'off'` logs nothing). Default: the `WA_GATEWAY_LOG` environment variable
   * when it names a level (read where a `process.env` exists), else `'warn'`.
   */
  logLevel?: LogLevel | undefined;
  /**
   * Every failure, with the error object itself (which may hold your own data: log it with care). The logger gets
   * only the error's class name, so this is where a failing `onEvent`'s error can be seen:
   * `onError: (error, info) => console.error(info.stage, error)`.
   */
  onError?: ((error: unknown, info: WebhookErrorInfo) => void) | undefined;
  /**
   * A `TemplateCatalog` (main entry): every `message_template_status_update` event is applied to it before
   * `onEvent` runs, and such events are not deduplicated (a status is idempotent to apply, and a template approved,
   * paused and approved again delivers the same value twice). A failure to apply answers 500, so the gateway retries.
   */
  templates?: { apply(event: WebhookEvent): unknown } | undefined;
}

/** Extra per-request capabilities of the platform, e.g. a Worker's `ctx`. */
export interface WebhookPlatformContext {
  waitUntil?: (promise: Promise<unknown>) => void;
}

/**
 * Answer header counting the events of a delivery found already processed (onEvent not run). A 200 alone cannot
 * tell a processed event from a recognised duplicate; `wa-gateway trigger` reads this to say which it was.
 */
export const DUPLICATES_HEADER = 'x-wa-gateway-duplicates';

const MIB = 1024 * 1024;
const GATEWAY_TIMEOUT_MS = 5000;

/** How the gateway sends the webhook secret, for the advice of a refused `secret`. */
const WEBHOOK_SECRET_HINT: SecretHint = {
  env: 'WEBHOOK_SECRET',
  scheme: 'Bearer',
  schemeAddedBy: 'the gateway',
};

function secretList(value: unknown, option: string, fn: string): string[] {
  const hint = option === 'secret' ? WEBHOOK_SECRET_HINT : {};
  const list = typeof value === 'string' ? [value] : Array.isArray(value) ? [...value] : null;
  if (list === null || list.length === 0) {
    throw new ConfigurationError(
      `${fn}: \`${option}\` must be a non-empty string or list of strings; got ${describeSecret(value)}.` +
        secretAdvice(value, hint),
    );
  }
  list.forEach((s, i) => {
    // A secret the header cannot carry verbatim (`Bearer <secret>`) could never match: say so now.
    if (!isHeaderSecret(s)) {
      throw new ConfigurationError(
        `${fn}: \`${option}\`${list.length > 1 ? `[${i}]` : ''} must be a non-empty string of visible ` +
          `ASCII characters (no spaces); got ${describeSecret(s)}.${secretAdvice(s, hint)}`,
      );
    }
  });
  return list as string[];
}

/**
 * @internal The handler options, validated, with their defaults resolved: plain values, resolved once per
 * handler. What the handler does with them per request is `request-handler.ts`'s.
 */
export interface ResolvedOptions {
  /** Already filtered to `logLevel`; `undefined` logs nothing. */
  logger: Logger | undefined;
  onError: WebhookHandlerOptions['onError'];
  secrets: string[];
  onEvent: WebhookHandlerOptions['onEvent'];
  templates: WebhookHandlerOptions['templates'];
  /** `undefined`: the event's own `idempotencyKey`. */
  dedupeKey: WebhookHandlerOptions['dedupeKey'];
  deadlineMs: number;
  maxBodyBytes: number;
  dedupeTtlMs: number;
  claimLeaseMs: number;
  onStoreUnavailable: 'process' | 'fail';
  store: IdempotencyStore | null;
  upstreamSecrets: string[] | null;
  requireSignature: boolean;
  waitUntil: WebhookHandlerOptions['waitUntil'];
}

function resolveOnStoreUnavailable(
  value: WebhookHandlerOptions['onStoreUnavailable'],
  fn: string,
): 'process' | 'fail' {
  if (value === undefined || value === 'process' || value === 'fail') return value ?? 'process';
  throw new ConfigurationError(`${fn}: \`onStoreUnavailable\` must be 'process' or 'fail'`);
}

/** The time and size limits, validated. */
function resolveLimits(options: WebhookHandlerOptions, fn: string) {
  const deadlineMs = options.deadlineMs ?? 4000;
  if (typeof deadlineMs !== 'number' || !(deadlineMs > 0) || deadlineMs >= GATEWAY_TIMEOUT_MS) {
    throw new ConfigurationError(
      `${fn}: \`deadlineMs\` must be above 0 and below 5000 (the gateway waits 5 seconds for a 200)`,
    );
  }
  const maxBodyBytes = countOption(options.maxBodyBytes, `${fn}: \`maxBodyBytes\``, MIB);
  const dedupeTtlMs = durationMs(options.dedupeTtlMs, `${fn}: \`dedupeTtlMs\``, DEFAULT_DEDUPE_TTL_MS);
  const claimLeaseMs = durationMs(options.claimLeaseMs, `${fn}: \`claimLeaseMs\``, DEFAULT_CLAIM_LEASE_MS);
  return { deadlineMs, maxBodyBytes, dedupeTtlMs, claimLeaseMs };
}

function resolveStore(
  dedupe: WebhookHandlerOptions['dedupe'],
  ttlMs: number,
  fn: string,
): IdempotencyStore | null {
  if (dedupe === false) return null;
  if (dedupe === undefined) return new MemoryIdempotencyStore({ ttlMs });
  if (typeof dedupe?.claim === 'function' && typeof dedupe.release === 'function') return dedupe;
  throw new ConfigurationError(`${fn}: \`dedupe\` must be an IdempotencyStore or false`);
}

function resolveUpstream(options: WebhookHandlerOptions, fn: string) {
  const upstreamSecrets =
    options.upstreamAppSecret === undefined
      ? null
      : secretList(options.upstreamAppSecret, 'upstreamAppSecret', fn);
  const requireSignature = options.requireUpstreamSignature ?? false;
  // A flag read from the environment ('true') would read as off, and unsigned deliveries would get in.
  if (typeof requireSignature !== 'boolean')
    throw new ConfigurationError(`${fn}: \`requireUpstreamSignature\` must be true or false`);
  if (requireSignature && upstreamSecrets === null) {
    throw new ConfigurationError(`${fn}: \`requireUpstreamSignature\` needs \`upstreamAppSecret\``);
  }
  return { upstreamSecrets, requireSignature };
}

/**
 * @internal Validates the options (throwing `ConfigurationError`) and resolves their defaults, once per handler.
 * `fn` is the function the application called, named in every message so it finds the call to change.
 */
export function resolveOptions(
  options: WebhookHandlerOptions,
  fn: 'createWebhookHandler' | 'createNodeWebhookHandler',
): ResolvedOptions {
  if (typeof options !== 'object' || options === null) {
    throw new ConfigurationError(`${fn}: options are required ({ secret, onEvent })`);
  }
  const logger = resolveWebhookLogger(options.logger, options.logLevel);
  const secrets = secretList(options.secret, 'secret', fn);
  secrets.forEach((s, index) => {
    if (s.length < 32) {
      log(logger, 'warn', 'A webhook secret is shorter than the 32 random characters the gateway advises', {
        index,
      });
    }
    // Docker's --env-file and some .env loaders keep a value's quotes; every delivery would then get a 401.
    if (/^(["']).*\1$/.test(s))
      log(logger, 'warn', 'A webhook secret is in quotes (kept by an env file?)', { index });
  });
  const onEvent = options.onEvent;
  if (typeof onEvent !== 'function') throw new ConfigurationError(`${fn}: \`onEvent\` must be a function`);
  const templates = options.templates;
  if (templates !== undefined && typeof templates?.apply !== 'function')
    throw new ConfigurationError(`${fn}: \`templates\` must be a TemplateCatalog (with apply)`);
  const limits = resolveLimits(options, fn);
  return {
    logger,
    onError: options.onError,
    secrets,
    onEvent,
    templates,
    dedupeKey: options.dedupeKey,
    ...limits,
    onStoreUnavailable: resolveOnStoreUnavailable(options.onStoreUnavailable, fn),
    store: resolveStore(options.dedupe, limits.dedupeTtlMs, fn),
    ...resolveUpstream(options, fn),
    waitUntil: options.waitUntil,
  };
}

/**
 * @internal The key `dedupeKey` answers for `event`, awaited (a key may need a lookup): a string, or `null` /
 * `undefined` for none. Anything else throws: running the event without its dedupe would run it again on a retry.
 */
export async function dedupeKeyOf(
  dedupeKey: NonNullable<WebhookHandlerOptions['dedupeKey']>,
  event: WebhookEvent,
): Promise<string | null | undefined> {
  const key = await dedupeKey(event);
  if (key != null && typeof key !== 'string')
    throw new ConfigurationError(
      `dedupeKey answered a ${typeof key}: it must answer a string, null or undefined`,
    );
  return key;
}
