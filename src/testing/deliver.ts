import { requireBaseUrl, requireSecret } from '../core/client-options.js';
import { boundedDurationMs, MAX_TIMER_MS } from '../core/duration.js';
import { ConfigurationError } from '../core/errors.js';
import { givenValue } from '../core/given-value.js';
import { callObserver } from '../core/observer.js';
import { DUPLICATES_HEADER } from '../webhooks/handler-options.js';
import { isRedirect } from './attempt-answer.js';
import { shownUrl } from './shown-url.js';

/** One attempt to deliver one event to a webhook endpoint. */
export interface DeliveryAttempt {
  /** Sequential id of the event (all attempts at one event share it). */
  eventId: number;
  /** What the event carries: `status:sent`, `message:text`, ... */
  label: string;
  /**
   * The message the event is about, when it is about one: a status event's `id` (the wamid `messages.send`
   * answered) or an incoming message's `id`; for an envelope carrying several, the first, as `label` names the
   * first. Absent for template and account events, and for `deliverWebhook` calls not given one. With several
   * sends, what tells which message's status was lost or dropped.
   */
  wamid?: string;
  attempt: number;
  /** The HTTP status the endpoint answered, if it answered. */
  status?: number;
  /**
   * Events of the delivery the receiver said it had already processed (its `onEvent` did not run), when it says
   * so: the SDK's webhook handler answers the `x-wa-gateway-duplicates` header. Other receivers answer a plain 200.
   */
  duplicates?: number;
  /** A connection error or timeout, if it did not answer. */
  error?: string;
  /**
   * Where a redirect (3xx) pointed: scheme, host and path, its query hidden. A redirect is not followed (the
   * event would go, re-POSTed, to an address the user did not give): the event is `lost`. Absent when the answer
   * named no usable `Location`.
   */
  location?: string;
  /**
   * `delivered` (2xx); `retrying` (5xx or no answer, attempts left); `lost` (3xx or 4xx: the gateway does not
   * retry); `dropped` (attempts exhausted: the gateway records ProcessingStatus ERROR).
   */
  outcome: 'delivered' | 'retrying' | 'lost' | 'dropped';
  /** Milliseconds the endpoint took to answer (or to fail). */
  durationMs: number;
  at: number;
}

export interface DeliverOptions {
  url: string;
  /** Sent as `Authorization: Bearer <secret>`, as the gateway does. */
  secret?: string | undefined;
  /** The gateway's schedule: attempt 1 at once, 2 after 1 s, 3 after 2 s more. */
  retryDelaysMs?: readonly number[] | undefined;
  /** How long the gateway waits for the 200. Default 5,000 ms, as documented. */
  ackTimeoutMs?: number | undefined;
  eventId?: number | undefined;
  label?: string | undefined;
  /** The message id the body is about, recorded on each attempt (`DeliveryAttempt.wamid`). */
  wamid?: string | undefined;
  onAttempt?: ((attempt: DeliveryAttempt) => void) | undefined;
  /** Stops further attempts (and the one in flight). */
  signal?: AbortSignal | undefined;
  /**
   * Waits for a free connection before each attempt and answers its release: how the sandbox bounds its deliveries
   * in flight. The acknowledgement timeout starts once the attempt has its connection.
   */
  connection?: (() => Promise<() => void>) | undefined;
}

export const GATEWAY_RETRY_DELAYS_MS: readonly number[] = [0, 1000, 2000];

/**
 * A webhook endpoint as an option or flag takes it: an http(s) URL without credentials (the gateway sends the
 * secret as a Bearer header, never in the URL, and a `user:password@` would be sent to wherever it points). The
 * clients' base URL rule, except that a query is allowed: some receivers take a token there. Throws
 * `ConfigurationError` naming `name`.
 *
 * @example
 * requireWebhookUrl(options.webhookUrl, 'startSandbox: `webhookUrl`');
 */
export function requireWebhookUrl(value: unknown, name: string): string {
  if (typeof value === 'string' && URL.canParse(value)) {
    const url = new URL(value);
    if (url.username || url.password) {
      throw new ConfigurationError(
        `${name} must not carry credentials (user:password@): the webhook secret goes in the Authorization header.`,
      );
    }
    url.search = '';
    url.hash = '';
    requireBaseUrl(url.href, name);
    return value;
  }
  return requireBaseUrl(value, name);
}

/**
 * The delivery schedule's options, checked before anything is sent: `retryDelaysMs` a non-empty list of delays of
 * 0 ms or more (a timer's range), `ackTimeoutMs` a positive duration. Throws `ConfigurationError` naming `where`.
 */
export function checkDeliverySchedule(
  options: { retryDelaysMs?: unknown; ackTimeoutMs?: unknown },
  where: string,
): void {
  const delays = options.retryDelaysMs;
  if (delays !== undefined) {
    const ok =
      Array.isArray(delays) &&
      delays.length > 0 &&
      delays.every((d) => typeof d === 'number' && Number.isFinite(d) && d >= 0 && d <= MAX_TIMER_MS);
    if (!ok) {
      throw new ConfigurationError(
        `${where}: \`retryDelaysMs\` must be a non-empty list of delays in ms, each from 0 to ${MAX_TIMER_MS}, e.g. [0, 1000, 2000].`,
      );
    }
  }
  boundedDurationMs(options.ackTimeoutMs, `${where}: \`ackTimeoutMs\``, 5000, MAX_TIMER_MS);
}

/**
 * Delivers one webhook body the way the gateway does: POST with `Authorization: Bearer <secret>`, 200 expected
 * within 5 s; on a connection error, a timeout or a 5xx, tries again after 1 s and then after 2 s more; a 4xx
 * is final and the event is lost. A redirect is not followed (the body and the secret would go to an address
 * nobody gave): it is final too, with `location` saying where it pointed. Resolves with every attempt.
 *
 * @example
 * const attempts = await deliverWebhook(JSON.stringify(statusEnvelope(statusObject('delivered'))), {
 *   url: 'http://127.0.0.1:3000/webhooks', secret: process.env.WEBHOOK_SECRET,
 * });
 */
export async function deliverWebhook(body: string, options: DeliverOptions): Promise<DeliveryAttempt[]> {
  if (typeof body !== 'string')
    throw new ConfigurationError('deliverWebhook: `body` must be a string (JSON).');
  if (options === null || typeof options !== 'object')
    throw new ConfigurationError('deliverWebhook(body, options) needs options with the `url` to post to.');
  requireWebhookUrl(options.url, 'deliverWebhook: `url`');
  if (options.secret !== undefined)
    requireSecret(
      options.secret,
      'deliverWebhook: `secret`',
      'the webhook secret sent as Authorization: Bearer',
    );
  checkDeliverySchedule(options, 'deliverWebhook');
  if (options.wamid !== undefined && typeof options.wamid !== 'string')
    throw new ConfigurationError(
      `deliverWebhook: \`wamid\` must be a string (the message id the body is about); got ${givenValue(options.wamid)}.`,
    );
  const delays = options.retryDelaysMs ?? GATEWAY_RETRY_DELAYS_MS;
  const attempts: DeliveryAttempt[] = [];
  for (let i = 0; i < delays.length; i++) {
    if (delays[i]! > 0) await pause(delays[i]!, options.signal);
    if (options.signal?.aborted) break;
    const last = i === delays.length - 1;
    const release = await options.connection?.();
    if (options.signal?.aborted) {
      release?.();
      break;
    }
    const started = performance.now();
    let result: Pick<DeliveryAttempt, 'status' | 'error' | 'outcome' | 'duplicates'>;
    try {
      const timeout = AbortSignal.timeout(options.ackTimeoutMs ?? 5000);
      const res = await fetch(options.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(options.secret ? { authorization: `Bearer ${options.secret}` } : {}),
        },
        body,
        redirect: 'manual',
        signal: options.signal ? AbortSignal.any([options.signal, timeout]) : timeout,
      });
      await res.arrayBuffer().catch(() => undefined);
      const outcome = res.ok ? 'delivered' : res.status < 500 ? 'lost' : last ? 'dropped' : 'retrying';
      const duplicates = Number(res.headers.get(DUPLICATES_HEADER) ?? 0);
      const location = isRedirect(res.status) ? res.headers.get('location') : null;
      result = {
        status: res.status,
        outcome,
        ...(location ? { location: shownUrl(location, options.url) } : {}),
        ...(res.ok && Number.isInteger(duplicates) && duplicates > 0 ? { duplicates } : {}),
      };
    } catch (error) {
      if (options.signal?.aborted) break;
      const timedOut = error instanceof Error && error.name === 'TimeoutError';
      result = {
        error: timedOut ? 'no answer within the acknowledgement timeout' : 'connection error',
        outcome: last ? 'dropped' : 'retrying',
      };
    } finally {
      release?.();
    }
    const attempt: DeliveryAttempt = {
      eventId: options.eventId ?? 1,
      label: options.label ?? 'event',
      ...(options.wamid === undefined ? {} : { wamid: options.wamid }),
      attempt: i + 1,
      ...result,
      durationMs: Math.round(performance.now() - started),
      at: Date.now(),
    };
    attempts.push(attempt);
    callObserver(options.onAttempt, [attempt]);
    if (attempt.outcome !== 'retrying') break;
  }
  return attempts;
}

function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}
