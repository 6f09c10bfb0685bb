import { onAbort, sleep } from './abort.js';
import { checkHeaders } from './call-options.js';
import { isRecord, requestIdHeader, toApiError, toRedirectError } from './error-body.js';
import {
  AuthenticationError,
  ConnectionError,
  InvalidResponseError,
  PaymentRequiredError,
  RateLimitError,
  TimeoutError,
  WaGatewayError,
} from './errors.js';
import { callHook } from './hooks.js';
import { log } from './logger.js';
import { callMaxRetries, callTimeout, queryString } from './request-parts.js';
import { errnoOf, guardBody, isRedirect } from './response-guard.js';
import { failedBeforeSending, retryDelay } from './retry-policy.js';
import { excerpt, scrub, scrubError } from './secrets.js';
import { serialise } from './serialise.js';
import type { RequestOptions, TransportConfig } from './transport-types.js';
import { userAgent } from './version.js';

export type {
  HttpMethod,
  QueryParams,
  QueryValue,
  RequestOptions,
  TransportConfig,
} from './transport-types.js';

/** A fault observed while waiting for or reading an answer. */
type Phase = 'connect' | 'body';

/**
 * HTTP for every client: base URL, auth header, JSON bodies, User-Agent, timeout covering the whole exchange,
 * the caller's `AbortSignal` (also during waits between retries), rate limiting, retries by `RetryRules`,
 * and error mapping through `toApiError`.
 *
 * Every request carries its own AbortSignal, although undici on Node 20 spends 3–8% of a loopback send
 * following one (measured; sharing one signal between requests was slower still): without it a timed-out
 * request would hold its socket until undici's own 5-minute limit, thousands of sockets against a gateway
 * that hangs at 80 sends per second.
 *
 * It calls `fetch` directly rather than through ky. Retries and timeouts must follow the gateway's error
 * codes, so ky would only build the Request; measured on loopback that alone cost 1.26–1.34× a bare fetch
 * (the bar for the whole send is 1.15×), and ky's per-request clone tees the body and then waits on a tee
 * branch that a fetch double which never reads the body leaves pending forever.
 */
export class Transport {
  readonly #config: TransportConfig;
  readonly #userAgent = userAgent();
  /** The server's host name, for spans (`server.address`). */
  readonly host: string;
  readonly #defaultHeaders: Record<string, string> | undefined;
  /** The base URL without its trailing slashes, trimmed once rather than per request. */
  readonly #base: string;

  constructor(config: TransportConfig) {
    this.#config = config;
    this.host = new URL(config.baseUrl).hostname;
    this.#base = config.baseUrl.replace(/\/+$/, '');
    this.#defaultHeaders = checkHeaders(config.defaultHeaders, 'defaultHeaders');
  }

  /** `text` with every credential of this client scrubbed: for excerpts of bodies that reach an error. */
  redact(text: string): string {
    return scrub(text, this.#config.secrets());
  }

  /**
   * Sends the request and returns the 2xx response with its body unread (for streams and downloads). The
   * timeout covers the wait for the headers; the caller's signal stays linked for the life of the body.
   */
  stream(options: RequestOptions): Promise<Response> {
    return this.#withRetries(options, false).then((r) => r.response);
  }

  /** `stream()` with the number of attempts it took, for `withResponse()`. */
  open(options: RequestOptions): Promise<{ response: Response; attempts: number }> {
    return this.#withRetries(options, false);
  }

  /**
   * Sends the request and returns the parsed JSON body (`undefined` for an empty body). The timeout covers
   * reading the body too, so a server that trickles bytes still ends in `TimeoutError`.
   */
  async json(options: RequestOptions): Promise<{ data: unknown; response: Response; attempts: number }> {
    const { response, text, attempts } = await this.#withRetries(options, true);
    if (text === undefined) return { data: undefined, response, attempts };
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch {
      // An empty body is checked only here, off the happy path (trim copies the whole answer).
      if (text.trim() === '') return { data: undefined, response, attempts };
      throw new InvalidResponseError(
        `${options.method} ${options.path} answered ${response.status} with a body that is not valid JSON` +
          (options.method === 'GET' ? '.' : '; the request was accepted, so do not resend it blindly.'),
        {
          status: response.status,
          bodyExcerpt: excerpt(scrub(text, this.#config.secrets())),
          request: { method: options.method, path: options.path },
        },
      );
    }
    // A 2xx that still carries the failure envelope is a failure.
    if (isRecord(data) && data['isSuccess'] === false && isRecord(data['errors'])) {
      throw toApiError({
        status: response.status,
        text,
        headers: response.headers,
        secrets: this.#config.secrets(),
        request: { method: options.method, path: options.path },
      });
    }
    return { data, response, attempts };
  }

  async #withRetries(
    options: RequestOptions,
    readBody: boolean,
  ): Promise<{ response: Response; text: string | undefined; attempts: number }> {
    const config = this.#config;
    const idempotent = options.idempotent ?? options.method === 'GET';
    const maxRetries = callMaxRetries(options.maxRetries) ?? config.maxRetries;
    const auth: AuthState = { refresh: false, rejected: undefined, sent: undefined };
    const { hooks, logger } = config;
    // Timing and events only when someone listens: the common send pays one property read each.
    const observed = logger?.debug !== undefined || hooks !== undefined;
    let reauthenticated = false;
    for (let attempt = 0; ; attempt++) {
      const started = observed ? performance.now() : 0;
      if (hooks?.onRequest) callHook(hooks.onRequest, this.#event(options, attempt));
      try {
        const result = await this.#attempt(options, readBody, auth, idempotent);
        if (observed) this.#observe(options, attempt, started, result.response, undefined, undefined);
        return { response: result.response, text: result.text, attempts: attempt + 1 };
      } catch (error) {
        if (options.signal?.aborted) throw options.signal.reason;
        if (error instanceof AuthorizationFailed) throw error.error;
        if (error instanceof AuthenticationError && config.reauthenticateOn401 && !reauthenticated) {
          reauthenticated = true;
          auth.refresh = true;
          auth.rejected = auth.sent;
          attempt--;
          continue;
        }
        const delay = retryDelay(
          error,
          {
            attempt,
            maxRetries,
            maxRetryWaitMs: config.maxRetryWaitMs,
            idempotent,
            retryInFlight: options.retryInFlight ?? false,
          },
          config.retryRules,
        );
        const meta = {
          method: options.method,
          path: options.path,
          attempt: attempt + 1,
          ...(error instanceof WaGatewayError && 'requestId' in error && error.requestId
            ? { requestId: error.requestId }
            : {}),
          error: error instanceof Error ? error.name : typeof error,
          ...(error instanceof WaGatewayError && 'code' in error ? { code: error.code } : {}),
          ...(error instanceof WaGatewayError && 'status' in error ? { status: error.status } : {}),
        };
        if (observed) this.#observe(options, attempt, started, undefined, error, delay ?? undefined);
        if (delay === null) {
          if (error instanceof PaymentRequiredError && options.rateLimited) {
            config.rateLimiter?.paymentRequired?.(error);
          }
          log(config.logger, 'debug', 'wa-gateway-sdk: request failed', meta);
          throw error;
        }
        log(config.logger, 'warn', 'wa-gateway-sdk: retrying request', { ...meta, delayMs: delay });
        // Every sender of this client backs off together, not each on its own next 429.
        if (error instanceof RateLimitError && options.rateLimited) config.rateLimiter?.pause(delay);
        if (options.onRetryWait) callHook(options.onRetryWait, delay);
        await sleep(delay, options.signal);
      }
    }
  }

  #event(options: RequestOptions, attempt: number) {
    return { method: options.method, path: options.path, host: this.host, attempt: attempt + 1 };
  }

  /** One attempt's debug line and `onResponse` event: metadata only, never a header value or a body. */
  #observe(
    options: RequestOptions,
    attempt: number,
    started: number,
    response: Response | undefined,
    error: unknown,
    retryInMs: number | undefined,
  ): void {
    const { hooks, logger } = this.#config;
    const durationMs = Math.round(performance.now() - started);
    const status = response?.status ?? (error instanceof WaGatewayError ? statusOf(error) : undefined);
    // The server's words, like a body: scrubbed and shortened before a log line or a hook sees them.
    const sent = response ? requestIdHeader(response.headers) : undefined;
    const requestId = response
      ? sent === undefined
        ? undefined
        : excerpt(this.redact(sent), 100)
      : error instanceof WaGatewayError && 'requestId' in error && typeof error.requestId === 'string'
        ? error.requestId
        : undefined;
    if (response && logger?.debug) {
      log(logger, 'debug', 'wa-gateway-sdk: request succeeded', {
        method: options.method,
        path: options.path,
        status,
        attempt: attempt + 1,
        durationMs,
        ...(requestId ? { requestId } : {}),
      });
    }
    if (hooks?.onResponse) {
      callHook(hooks.onResponse, {
        ...this.#event(options, attempt),
        status,
        requestId,
        durationMs,
        error,
        retryInMs,
      });
    }
  }

  /** The fetch headers: the client's defaults, then the caller's, then those only the SDK sets. */
  #headers(
    options: RequestOptions,
    authorization: string | undefined,
    body: string | undefined,
  ): Record<string, string> {
    const call = options.headers ? checkHeaders(options.headers, 'headers') : undefined;
    return {
      'user-agent': this.#userAgent,
      accept: options.accept ?? 'application/json',
      ...this.#defaultHeaders,
      ...call,
      ...(authorization === undefined ? {} : { authorization }),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    };
  }

  async #attempt(
    options: RequestOptions,
    readBody: boolean,
    auth: AuthState,
    idempotent: boolean,
  ): Promise<{ response: Response; text: string | undefined }> {
    const config = this.#config;
    const { signal } = options;
    const { stopSignal } = options;
    const release =
      options.rateLimited && config.rateLimiter
        ? await config.rateLimiter.acquire(
            stopSignal && signal ? AbortSignal.any([signal, stopSignal]) : (signal ?? stopSignal),
            { bulk: options.bulk === true },
          )
        : undefined;
    const timeoutMs = callTimeout(options.timeoutMs) ?? config.timeoutMs;
    const request = { method: options.method, path: options.path };

    const controller = new AbortController();
    let timedOut: 'total' | 'idle' | false = false;
    const timer = setTimeout(() => {
      timedOut = 'total';
      controller.abort();
    }, timeoutMs);
    const idleMs = options.idleTimeoutMs ?? timeoutMs;
    const unlinkCaller = onAbort(signal, () => controller.abort(signal?.reason));
    let authorization: string | undefined;
    let body: string | undefined;
    let headers: Record<string, string>;
    try {
      if (stopSignal?.aborted) throw stopSignal.reason;
      try {
        const value = config.authorization({
          refresh: auth.refresh,
          rejected: auth.rejected,
          // The attempt's own signal: the call's timeout and the caller's abort also bound a login it waits on.
          signal: controller.signal,
        });
        // Most clients answer synchronously; skipping the await saves a turn of the event loop per request.
        authorization = value === undefined || typeof value === 'string' ? value : await value;
      } catch (error) {
        if (timedOut) {
          throw new TimeoutError(
            `${options.method} ${options.path}: no credential within ${timeoutMs} ms (the login did not answer in time). Nothing reached the server.`,
            { mayHaveBeenSent: false, timeoutMs },
          );
        }
        throw new AuthorizationFailed(error);
      }
      auth.sent = authorization;
      body = options.body === undefined ? undefined : serialise(options.body);
      headers = this.#headers(options, authorization, body);
    } catch (error) {
      release?.();
      clearTimeout(timer);
      unlinkCaller();
      throw error;
    }
    let keepSignalLinked = false;

    const fault = (error: unknown, phase: Phase): unknown => {
      if (signal?.aborted) return signal.reason;
      const errno = errnoOf(error);
      const sent = phase === 'body' || !failedBeforeSending(errno);
      const what = `${options.method} ${options.path}`;
      const consequence = !sent
        ? ' Nothing reached the server.'
        : idempotent
          ? ''
          : ' The request may have reached the server, so it was not retried automatically: check before sending it again.';
      if (timedOut === 'total') {
        return new TimeoutError(`${what} did not complete within ${timeoutMs} ms.${consequence}`, {
          mayHaveBeenSent: sent,
          timeoutMs,
        });
      }
      if (timedOut === 'idle') {
        return new TimeoutError(`${what}: the answer stalled, no data for ${idleMs} ms.`, {
          mayHaveBeenSent: true,
          timeoutMs: idleMs,
        });
      }
      const how = phase === 'body' ? 'was cut while reading the answer' : 'failed';
      return new ConnectionError(
        `Connection ${how} for ${what}${errno ? ` (${errno})` : ''}.${consequence}`,
        {
          mayHaveBeenSent: sent,
          ...(errno ? { errno } : {}),
          cause: scrubError(error, config.secrets()),
        },
      );
    };

    try {
      let response: Response;
      try {
        response = await (config.fetch ?? globalThis.fetch)(this.#url(options), {
          method: options.method,
          headers,
          signal: controller.signal,
          // Never followed: a 307/308 would re-send the body (a password, a message) to the Location's host.
          redirect: 'manual',
          ...(body === undefined ? {} : { body }),
        });
      } catch (error) {
        throw fault(error, 'connect');
      } finally {
        // Answered (or failed): the limiter may count this request's window from now.
        release?.();
      }
      if (isRedirect(response)) {
        response.body?.cancel().catch(() => {});
        throw toRedirectError({
          status: response.status,
          headers: response.headers,
          url: this.#url(options),
          secrets: config.secrets(),
          request,
        });
      }
      if (!response.ok) {
        let text = '';
        try {
          text = await response.text();
        } catch {
          // A cut error body still has a status worth reporting.
        }
        throw toApiError({
          status: response.status,
          text,
          headers: response.headers,
          secrets: config.secrets(),
          request,
        });
      }
      if (!readBody) {
        keepSignalLinked = true;
        const guarded = guardBody(response, idleMs, {
          onIdle: () => {
            timedOut = 'idle';
            controller.abort();
          },
          fault: (error) => fault(error, 'body'),
          // The reader left: close the connection whatever wraps the body (a teed body's cancel alone won't).
          cancelled: () => controller.abort(),
          done: () => unlinkCaller(),
        });
        return { response: guarded, text: undefined };
      }
      try {
        return { response, text: await response.text() };
      } catch (error) {
        throw fault(error, 'body');
      }
    } finally {
      clearTimeout(timer);
      if (!keepSignalLinked) unlinkCaller();
    }
  }

  #url(options: RequestOptions): string {
    const base = this.#base;
    const path = options.path.startsWith('/') ? options.path : `/${options.path}`;
    const query = options.query ? queryString(options.query) : '';
    return `${base}${path}${query ? `?${query}` : ''}`;
  }
}

function statusOf(error: WaGatewayError): number | undefined {
  const status = (error as { status?: unknown }).status;
  return typeof status === 'number' ? status : undefined;
}

/** Which credential went out, so a 401 can say which one the server refused. */
interface AuthState {
  refresh: boolean;
  rejected: string | undefined;
  sent: string | undefined;
}

/** An error thrown by the client's own `authorization()`: returned to the caller as it is. */
class AuthorizationFailed {
  constructor(readonly error: unknown) {}
}
