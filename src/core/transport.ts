import { onAbort, sleep } from './abort.js';
import { Deadlines, Exchange, guardBody, isRedirect, refusedRedirect, requestUnbuilt } from './attempt.js';
import { checkHeaders } from './call-options.js';
import { nonNegativeInt } from './duration.js';
import { requestIdHeader, scrubRequestId, toApiError, toRedirectError } from './error-body.js';
import {
  type ApiError,
  AuthenticationError,
  ConfigurationError,
  InvalidResponseError,
  PaymentRequiredError,
  RateLimitError,
  type RedirectError,
  TimeoutError,
  WaGatewayError,
} from './errors.js';
import { givenValue } from './given-value.js';
import { type AttemptError, callHook, type RequestHooks } from './hooks.js';
import { type Logger, log, logFolded } from './logger.js';
import { callObserver, errorNameOf } from './observer.js';
import { isRecord } from './plain-data.js';
import type { SendLimiter } from './rate-limiter.js';
import { checkQuery } from './request-path.js';
import { mayHaveBeenSent, type RetryRules, retryDelay, settleAttempts } from './retry-policy.js';
import { excerpt, scrub } from './secrets.js';
import { serialise } from './serialise.js';
import type { QueryParams, TransportRequest } from './transport-request.js';
import { runtime, userAgent } from './version.js';

/** Errors the rate limiter refused a request with (nothing was sent): not the gateway's answers. */
const fromLimiter = new WeakSet<object>();

/** A call's outcome: the response, its JSON body when read, how many attempts it took, and the call's number. */
interface Answer {
  response: Response;
  data: unknown;
  attempts: number;
  call: number;
}

/**
 * HTTP for every client: base URL, auth header, JSON bodies, User-Agent, timeout covering the whole exchange,
 * the caller's `AbortSignal` (also during waits between retries), rate limiting, retries by `RetryRules`,
 * and error mapping through `toApiError`.
 *
 * Every request carries its own AbortSignal, whatever it costs a send (docs/benchmarks.md, send-overhead):
 * without it a timed-out request would hold its socket until undici's own 5-minute limit. Its timeout is an entry
 * in the transport's `Deadlines` (one timer for all requests in flight), not a timer of its own. It calls `fetch`
 * directly: retries and timeouts follow the servers' error codes, so a client library would only build the
 * request, at a cost the send bar has no room for.
 *
 * @internal The SDK's own plumbing: built by the clients, never by a user; kept out of the published types.
 */
export class Transport {
  readonly #config: TransportConfig;
  readonly #userAgent = userAgent();
  /** The server's host name, for spans (`server.address`). */
  readonly host: string;
  readonly #defaultHeaders: Record<string, string> | undefined;
  /** The headers of a call that adds none of its own, built once: copied per request, then completed. */
  readonly #plainHeaders: Readonly<Record<string, string>>;
  /** The base URL without its trailing slashes, trimmed once rather than per request. */
  readonly #base: string;
  readonly #deadlines = new Deadlines();
  readonly #observers: Observers;
  /**
   * Node's own fetch is asked to refuse redirects (`redirect: 'error'`, with `window: null`) rather than to hand
   * them back (`'manual'`): for any other mode undici clones the request and tees its body (docs/benchmarks.md,
   * "The request mode"). A redirect it refuses carries no status or `Location`, and the `RedirectError` goes
   * without them (`#refusedRedirect`). Elsewhere (Workers refuse `'error'`) and with a custom `fetch`, `'manual'`.
   */
  readonly #refuseRedirects: boolean;

  constructor(config: TransportConfig) {
    this.#config = config;
    this.#refuseRedirects = config.fetch === undefined && runtime().startsWith('node/');
    this.host = new URL(config.baseUrl).hostname;
    this.#base = config.baseUrl.replace(/\/+$/, '');
    this.#defaultHeaders = config.defaultHeaders;
    this.#plainHeaders = {
      'user-agent': this.#userAgent,
      accept: 'application/json',
      ...this.#defaultHeaders,
    };
    this.#observers = {
      logger: config.logger,
      hooks: config.hooks,
      host: this.host,
      redact: (text) => this.redact(text),
      rules: config.retryRules,
    };
  }

  /** `text` with every credential of this client scrubbed: for excerpts of bodies that reach an error. */
  redact(text: string): string {
    return scrub(text, this.#config.secrets());
  }

  /**
   * Sends the request and returns the 2xx response with its body unread (for streams and downloads). The
   * timeout covers the wait for the headers; the caller's signal stays linked for the life of the body.
   */
  stream(options: TransportRequest): Promise<Response> {
    return this.#withRetries(options, false).then((r) => r.response);
  }

  /** `stream()` with the number of attempts it took, for `withResponse()`. */
  open(options: TransportRequest): Promise<{ response: Response; attempts: number; call: number }> {
    return this.#withRetries(options, false);
  }

  /**
   * Sends the request and returns the parsed JSON body (`undefined` for an empty body). The timeout covers
   * reading the body too, so a server that trickles bytes still ends in `TimeoutError`.
   */
  json(options: TransportRequest): Promise<Answer> {
    return this.#withRetries(options, true);
  }

  /**
   * A 2xx answer's JSON body. Decoded inside the attempt, so a failure envelope on a 2xx is retried, paused on
   * and settled like the same failure on its own status.
   */
  #decode(options: TransportRequest, response: Response, text: string): unknown {
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch {
      // An empty body is checked only here, off the happy path (trim copies the whole answer).
      if (text.trim() === '') return undefined;
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
    // A 2xx that still carries the failure envelope (`isSuccess: false`) is a failure, typed by its code.
    if (isRecord(data) && data['isSuccess'] === false) throw this.#answerError(options, response, text);
    return data;
  }

  /**
   * An error answer as its `ApiError`; a refusal of the client's credential (a 401 with one of the client's
   * `refusedCredential.codes`) also says which server refused it and what it takes, never the credential.
   */
  #answerError(options: TransportRequest, response: Response, text: string): ApiError {
    const secrets = this.#config.secrets();
    const error = toApiError({
      status: response.status,
      text,
      headers: response.headers,
      secrets,
      request: { method: options.method, path: options.path },
    });
    const refused = this.#config.refusedCredential;
    if (!(error instanceof AuthenticationError) || !refused?.codes.includes(error.code ?? '')) return error;
    // Scrubbed whole, like a body: a key as short as a prefix must not show even there.
    const advice = scrub(refused.advice(new URL(this.#base).origin), secrets);
    return new AuthenticationError(error.details, `${error.message}${advice}`);
  }

  async #withRetries(options: TransportRequest, readBody: boolean): Promise<Answer> {
    const config = this.#config;
    const idempotent = options.idempotent ?? options.method === 'GET';
    const maxRetries = nonNegativeInt(options.maxRetries, 'maxRetries') ?? config.maxRetries;
    if (options.query !== undefined) checkQuery(`${options.method} ${options.path}`, options.query);
    const auth: AuthState = { refresh: false, rejected: undefined, sent: undefined };
    const { hooks, logger } = config;
    // Timing and events only when someone listens: the common send pays one property read each.
    const observed = logger?.debug !== undefined || hooks !== undefined;
    let reauthenticated = false;
    // The latest failed attempt that may have reached the server: "may have been sent" sticks to the call, and a
    // stop keeps its reason unless such an attempt exists (`settleAttempts`, the one place of both rules).
    let earlier: unknown;
    // `attempt` counts retries (a repeat after a re-login is not one); `made` every attempt, as hooks, the log
    // lines and `withResponse().response.attempts` number them.
    // One number for every attempt of this call, in its log lines and hook events: concurrent calls' retries told
    // apart.
    const call = ++lastCall;
    for (let attempt = 0, made = 1; ; attempt++, made++) {
      const started = observed ? performance.now() : undefined;
      if (hooks?.onRequest) callHook(hooks.onRequest, requestEvent(options, this.host, call, made));
      try {
        const result = await this.#attempt(options, readBody, auth, idempotent, attempt >= maxRetries);
        const data =
          result.text === undefined ? undefined : this.#decode(options, result.response, result.text);
        if (observed)
          observeAttempt(this.#observers, options, call, made, started, result.response, undefined, null);
        return { response: result.response, data, attempts: made, call };
      } catch (caught) {
        const { signal, stopSignal } = options;
        // The caller's abort, or sendMany's and batchSendAll's stop met before this attempt went out.
        const stopped =
          signal?.aborted === true || (stopSignal?.aborted === true && caught === stopSignal.reason);
        const failedLogin = caught instanceof AuthorizationFailed;
        const error = caught instanceof AuthorizationFailed ? loginError(caught.error, earlier) : caught;
        const relogin =
          !stopped &&
          !failedLogin &&
          error instanceof AuthenticationError &&
          config.reauthenticateOn401 === true &&
          !reauthenticated;
        const delay =
          stopped || failedLogin || relogin
            ? null
            : retryDelay(
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
        // Every way out of an attempt is reported here, once: its hook event and its log line.
        observeAttempt(
          this.#observers,
          options,
          call,
          made,
          started,
          undefined,
          error,
          relogin ? 'login' : delay,
        );
        if (stopped)
          throw settleAttempts(signal?.aborted ? signal.reason : error, earlier, true, config.retryRules);
        if (failedLogin) throw settleAttempts(error, earlier, false, config.retryRules);
        if (relogin) {
          reauthenticated = true;
          auth.refresh = true;
          auth.rejected = auth.sent;
          attempt--;
          continue;
        }
        // Only where a repeat is not harmless does it matter that an attempt may have reached the server.
        if (delay !== null && !idempotent && mayHaveBeenSent(error, config.retryRules)) earlier = error;
        await this.#afterFailure(options, error, delay, earlier);
      }
    }
  }

  /** Throws `error` when no retry follows (`delay` null); else tells who must know, and waits `delay`. */
  async #afterFailure(options: TransportRequest, error: unknown, delay: number | null, earlier: unknown) {
    const config = this.#config;
    if (delay === null) {
      // The gateway's BILL_001, not the limiter's own refusal of a bulk send for one (that would renew the stop on
      // every refused send, for as long as sends keep coming).
      if (error instanceof PaymentRequiredError && options.rateLimited && !fromLimiter.has(error)) {
        this.#tellLimiter((limiter) => limiter.paymentRequired?.(error));
      }
      // The gateway's retry_after is the account's, whether or not this call retries: the client's other senders
      // (every process, with a shared limiter) wait it out instead of each meeting its own 429. A wait longer than
      // `maxRetryWaitMs` is the caller's to schedule: nothing is held for it.
      const wait = error instanceof RateLimitError ? error.retryAfterMs : undefined;
      if (wait !== undefined && wait <= config.maxRetryWaitMs && options.rateLimited)
        this.#tellLimiter((limiter) => limiter.pause(wait));
      throw settleAttempts(error, earlier, false, config.retryRules);
    }
    // Every sender of this client backs off together, not each on its own next 429.
    if (error instanceof RateLimitError && options.rateLimited)
      this.#tellLimiter((limiter) => limiter.pause(delay));
    if (options.onRetryWait) callHook(options.onRetryWait, delay);
    const { signal, stopSignal } = options;
    // A stop during the wait ends it at once; the call then ends with the attempt that may be out, if any.
    const wake = signal && stopSignal ? AbortSignal.any([signal, stopSignal]) : (signal ?? stopSignal);
    try {
      await sleep(delay, wake);
    } catch (reason) {
      throw settleAttempts(reason, earlier, true, config.retryRules);
    }
  }

  /**
   * Tells the client's limiter what the gateway answered (a pause, a `BILL_001`). The limiter may be the user's
   * own: one that throws (or rejects) is logged and changes nothing, so the caller still gets the gateway's error.
   */
  #tellLimiter(tell: (limiter: SendLimiter) => unknown): void {
    const { rateLimiter, logger } = this.#config;
    if (rateLimiter === undefined) return;
    // Folded: a storm of 429s with a broken limiter is one line and a count, not a line per answer.
    callObserver(tell, [rateLimiter], (errorName) =>
      logFolded(logger, 'warn', "wa-gateway-sdk: the rate limiter failed to take the gateway's answer", {
        errorName,
      }),
    );
  }

  /** The fetch headers: the client's defaults, then the caller's, then those only the SDK sets. */
  #headers(
    options: TransportRequest,
    authorization: string | undefined,
    body: string | undefined,
  ): Record<string, string> {
    const plain = options.headers === undefined && options.accept === undefined;
    // The common request's headers as one literal: fetch converts this object (and the init) on every request, and
    // its converters took a slow path in profiles on objects grown key by key from a spread.
    if (plain && this.#defaultHeaders === undefined && authorization !== undefined) {
      const ua = this.#userAgent;
      return body === undefined
        ? { 'user-agent': ua, accept: 'application/json', authorization }
        : { 'user-agent': ua, accept: 'application/json', authorization, 'content-type': 'application/json' };
    }
    const headers: Record<string, string> = plain
      ? { ...this.#plainHeaders }
      : {
          'user-agent': this.#userAgent,
          accept: options.accept ?? 'application/json',
          ...this.#defaultHeaders,
          ...checkHeaders(options.headers, 'headers'),
        };
    if (authorization !== undefined) headers['authorization'] = authorization;
    if (body !== undefined) headers['content-type'] = 'application/json';
    return headers;
  }

  /** One attempt: wait for the limiter, take the credential, send, and map what comes back. */
  async #attempt(
    options: TransportRequest,
    readBody: boolean,
    auth: AuthState,
    idempotent: boolean,
    last: boolean,
  ): Promise<{ response: Response; text: string | undefined }> {
    const config = this.#config;
    const { signal, stopSignal } = options;
    // An already-aborted signal never fires 'abort' again: a listener alone would let the request go out.
    if (signal?.aborted) throw signal.reason;
    // The deadline runs from before the wait for the limiter: a send behind another's `retry_after` ends in its
    // own timeout, not `retry_after` later.
    const x = new Exchange(
      options,
      callTimeout(options.timeoutMs) ?? config.timeoutMs,
      idempotent,
      config.secrets,
    );
    this.#deadlines.add(x, x.timeoutMs);
    let release: (() => void) | undefined;
    let init: RequestInit;
    try {
      // Inside the try that clears the deadline: a throw here must not leave the entry holding the process.
      if (signal) x.unlinkCaller = onAbort(signal, () => x.abort(signal.reason));
      if (options.rateLimited && config.rateLimiter)
        release = await this.#acquire(x, config.rateLimiter, last);
      if (stopSignal?.aborted) throw stopSignal.reason;
      // The caller may have aborted while this attempt waited for the limiter.
      if (signal?.aborted) throw signal.reason;
      const pending = this.#credential(x, auth);
      const authorization = typeof pending === 'object' ? await pending : pending;
      auth.sent = authorization;
      if (options.beforeSend) await this.#gate(x, options.beforeSend);
      init = this.#init(x, authorization);
    } catch (error) {
      release?.();
      this.#deadlines.clear(x);
      x.unlinkCaller();
      throw error;
    }
    let keepSignalLinked = false;
    let keepDeadline = false;
    let url: string | undefined;
    try {
      let response: Response;
      options.onSend?.();
      try {
        // Called apart from its await: a fetch that throws at once (a custom fetch's bug, a bad input) started no
        // request, so nothing was sent.
        let started: Promise<Response>;
        try {
          url = this.#url(options);
          started = (config.fetch ?? globalThis.fetch)(url, init);
        } catch (error) {
          throw new FetchNotStarted(error);
        }
        response = await started;
      } catch (error) {
        // Answered (or failed): the limiter may count this request's window from now.
        release?.();
        const unbuilt = (cause: unknown) =>
          url !== undefined &&
          requestUnbuilt(cause, url, () => this.#init(x, auth.sent), config.fetch === undefined);
        if (error instanceof FetchNotStarted)
          throw x.fault(error.cause, unbuilt(error.cause) ? 'unbuilt' : 'unstarted');
        if (this.#refuseRedirects && refusedRedirect(error)) throw this.#refusedRedirect(options);
        // Node's fetch refuses a request it cannot build (a header value) as a rejection, like a connection fault.
        throw x.fault(error, unbuilt(error) ? 'unbuilt' : 'connect');
      }
      release?.();
      if (!response.ok || isRedirect(response)) throw await this.#refusal(x, response);
      if (!readBody) {
        keepSignalLinked = true;
        keepDeadline = options.timeoutCoversBody === true;
        return { response: this.#guard(x, response), text: undefined };
      }
      try {
        return { response, text: await x.text(response) };
      } catch (error) {
        throw x.fault(error, 'body');
      }
    } finally {
      if (!keepDeadline) this.#deadlines.clear(x);
      if (!keepSignalLinked) x.unlinkCaller();
    }
  }

  /**
   * A slot of the client's limiter, waited for under the attempt's signal (its deadline and the caller's abort) and
   * the stop: a wait that outlasts the deadline ends in a `TimeoutError` saying nothing was sent. The `last` attempt
   * also tells the limiter its deadline (`maxWaitMs`), so a pause known to outlast it ends the call at once; an
   * earlier one waits its full timeout, and its retry waits again, so together they may still see a pause out.
   */
  async #acquire(x: Exchange, limiter: SendLimiter, last: boolean): Promise<() => void> {
    const { stopSignal, bulk } = x.options;
    // The stop ends the wait through the attempt's own signal, linked by hand: `AbortSignal.any` per send costs a
    // campaign's throughput (docs/benchmarks.md, "Campaign queue"), and its dependents pile up on the stop.
    const unlinkStop = onAbort(stopSignal, () => x.abort(stopSignal?.reason));
    try {
      return await limiter.acquire(
        x.controller.signal,
        last
          ? { bulk: bulk === true, maxWaitMs: Math.max(0, x.at - performance.now()) }
          : { bulk: bulk === true },
      );
    } catch (error) {
      if (x.timedOut || (error instanceof TimeoutError && !error.mayHaveBeenSent))
        throw x.notStarted(`the rate limiter has no slot for it within ${x.timeoutMs} ms`);
      if (isRecord(error)) fromLimiter.add(error);
      throw error;
    } finally {
      unlinkStop();
    }
  }

  /**
   * The caller's last word before the request goes out (`TransportRequest.beforeSend`), after the limiter and the
   * credential: its rejection ends the attempt with nothing sent, and so does the attempt's deadline, the caller's
   * abort or the stop, if any of them came while it ran (the fetch would otherwise go out on an aborted signal and
   * read as a fault in flight).
   */
  async #gate(x: Exchange, beforeSend: () => Promise<void>): Promise<void> {
    await beforeSend();
    const { signal, stopSignal } = x.options;
    if (x.timedOut) throw x.notStarted(`its gate did not answer within ${x.timeoutMs} ms`);
    if (signal?.aborted) throw signal.reason;
    if (stopSignal?.aborted) throw stopSignal.reason;
  }

  /**
   * The credential for this attempt. A client that answers synchronously (most) gets no promise and no await:
   * that saves a turn of the event loop per request. A login it waits on is bounded by the attempt's signal.
   */
  #credential(x: Exchange, auth: AuthState): string | undefined | Promise<string | undefined> {
    const failed = (error: unknown) => (x.timedOut ? x.noCredential() : new AuthorizationFailed(error));
    let value: string | undefined | Promise<string | undefined>;
    try {
      value = this.#config.authorization({
        refresh: auth.refresh,
        rejected: auth.rejected,
        // The attempt's own signal: the call's timeout and the caller's abort also bound a login it waits on.
        signal: x.controller.signal,
      });
    } catch (error) {
      throw failed(error);
    }
    if (value === undefined || typeof value === 'string') return value;
    return Promise.resolve(value).then(undefined, (error: unknown) => {
      throw failed(error);
    });
  }

  /** The fetch's init: headers with the credential, the JSON body, the attempt's signal. */
  #init(x: Exchange, authorization: string | undefined): RequestInit {
    const { options } = x;
    const { method } = options;
    const signal = x.controller.signal;
    // Never followed: a 307/308 would re-send the body (a password, a message) to the Location's host.
    const body = options.body === undefined ? undefined : serialise(options.body);
    const headers = this.#headers(options, authorization, body);
    if (this.#refuseRedirects) {
      // `window: null` and `'error'` together are undici's one path that sends the request without cloning it.
      return body === undefined
        ? { method, headers, signal, redirect: 'error', window: null }
        : { method, headers, body, signal, redirect: 'error', window: null };
    }
    return body === undefined
      ? { method, headers, signal, redirect: 'manual' }
      : { method, headers, body, signal, redirect: 'manual' };
  }

  /**
   * The `RedirectError` for a 3xx that Node's fetch refused (`redirect: 'error'`): it rejects without the status
   * or the `Location`, and nothing more is asked (a second request would go out unasked for, and `'manual'`, which
   * hands the 3xx back, costs a clone of every request: docs/benchmarks.md, "The request mode"). The error says a
   * redirect happened and what to check; status 0, no location.
   */
  #refusedRedirect(options: TransportRequest): RedirectError {
    return toRedirectError({
      status: 0,
      headers: new Headers(),
      url: this.#url(options),
      secrets: this.#config.secrets(),
      request: { method: options.method, path: options.path },
    });
  }

  /** The error for a 3xx (never followed) or another non-2xx answer. */
  async #refusal(x: Exchange, response: Response): Promise<unknown> {
    const { options } = x;
    if (isRedirect(response)) {
      response.body?.cancel().catch(() => {});
      return toRedirectError({
        status: response.status,
        headers: response.headers,
        url: this.#url(options),
        secrets: this.#config.secrets(),
        request: { method: options.method, path: options.path },
      });
    }
    let text = '';
    try {
      text = await textPrefix(x, response, ERROR_BODY_BYTES);
    } catch {
      // A cut error body still has a status worth reporting.
    }
    return this.#answerError(options, response, text);
  }

  /** A streamed body under the idle timeout, still following the caller's signal until it ends. */
  #guard(x: Exchange, response: Response): Response {
    return guardBody(response, x.idleMs, {
      onIdle: () => x.idle(),
      fault: (error) => x.fault(error, 'body'),
      // The reader left: close the connection whatever wraps the body (a teed body's cancel alone won't).
      cancelled: () => x.controller.abort(),
      done: () => {
        x.unlinkCaller();
        // Kept for the body under `timeoutCoversBody`; clearing an entry already cleared does nothing.
        this.#deadlines.clear(x);
      },
      watch: (stop) => x.onStop(stop),
    });
  }

  #url(options: TransportRequest): string {
    const base = this.#base;
    const path = options.path.startsWith('/') ? options.path : `/${options.path}`;
    const query = options.query ? queryString(options.query) : '';
    return `${base}${path}${query ? `?${query}` : ''}`;
  }
}

/**
 * The most of an error answer's body that is read: the envelope fits many times over, and the excerpt an error
 * keeps is 500 characters. The rest is cancelled, so a proxy's 400 MB error page costs 64 KB, not 400 MB.
 */
const ERROR_BODY_BYTES = 64 * 1024;

/** The first `limit` bytes of the answer's body as text, the rest cancelled; ends with the attempt (`onStop`). */
function textPrefix(x: Exchange, response: Response, limit: number): Promise<string> {
  const { body } = response;
  if (body === null) return Promise.resolve('');
  const reader = body.getReader();
  return new Promise<string>((resolve, reject) => {
    x.onStop((reason) => {
      reader.cancel().catch(() => {});
      reject(reason);
    });
    const chunks: Uint8Array[] = [];
    let size = 0;
    const next = (): Promise<void> =>
      reader.read().then(({ done, value }) => {
        if (!done) {
          chunks.push(value);
          size += value.byteLength;
          if (size < limit) return next();
          reader.cancel().catch(() => {});
        }
        const bytes = new Uint8Array(Math.min(size, limit));
        let at = 0;
        for (const chunk of chunks) {
          const part = chunk.subarray(0, bytes.byteLength - at);
          bytes.set(part, at);
          at += part.byteLength;
        }
        resolve(new TextDecoder().decode(bytes));
      });
    next().catch(reject);
  });
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

/**
 * A failed login's error, as one call ends with it. Every call waiting on one login gets the same error object, and
 * a call with an earlier attempt that may be out marks the error it ends with (`settleAttempts`): that call gets
 * its own copy, so the mark does not reach the others. Only the SDK's errors are marked, so only they are copied
 * (class, message and stack kept); a call with no such attempt marks nothing and gets the error itself.
 */
function loginError(error: unknown, earlier: unknown): unknown {
  if (earlier === undefined || !(error instanceof WaGatewayError)) return error;
  return Object.create(Object.getPrototypeOf(error), Object.getOwnPropertyDescriptors(error));
}

/** What a client plugs into the shared transport. The transport itself knows no endpoint and no scheme. */
export interface TransportConfig {
  baseUrl: string;
  /**
   * The `Authorization` header value for the next attempt. Called per attempt, so a token manager can log in
   * lazily; `refresh: true` after a 401 when `reauthenticateOn401` is set, with `rejected` the header value
   * the server refused (so a burst of 401s can share one refresh). `undefined` sends no header (a login).
   * An error it throws is the caller's answer as it is: never taken for the server's 401, never retried.
   */
  authorization: (options: {
    refresh: boolean;
    rejected?: string | undefined;
    signal?: AbortSignal;
  }) => string | undefined | Promise<string | undefined>;
  /** On a 401, fetch a fresh credential once and repeat the request (expired platform tokens). */
  reauthenticateOn401?: boolean;
  /**
   * The 401 codes that mean the server refused the credential the client sent (`AUTH_001`), and what to add to
   * that `AuthenticationError`'s message, given the origin the request went to (`refusedSecretAdvice`).
   */
  refusedCredential?: { codes: readonly string[]; advice: (origin: string) => string } | undefined;
  /** Every credential the client holds, scrubbed from anything that reaches an error or a log. */
  secrets: () => readonly string[];
  timeoutMs: number;
  maxRetries: number;
  /** The longest server-given wait honoured before retrying; longer waits are returned to the caller. */
  maxRetryWaitMs: number;
  retryRules: RetryRules;
  rateLimiter?: SendLimiter | undefined;
  /** A custom fetch. When absent, `globalThis.fetch` is looked up on every request (msw and mocks see all). */
  fetch?: typeof fetch | undefined;
  /** Already filtered to the client's level (`resolveLogger`). */
  logger?: Logger | undefined;
  /** Sent with every request; per-call `headers` override them. Checked and lower-cased (`transportConfigOf`). */
  defaultHeaders?: Readonly<Record<string, string>> | undefined;
  hooks?: RequestHooks | undefined;
}

// The parts of a request a call supplies, checked before the first attempt.

/** A call's own `timeoutMs`, checked: a typo must not become a zero or endless timeout. */
function callTimeout(value: number | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !(value > 0) || !Number.isFinite(value)) {
    throw new ConfigurationError(
      `timeoutMs must be a positive number of milliseconds; got ${givenValue(value)}.`,
    );
  }
  return value;
}

/** `a=1&b=2`, or '' without building a URLSearchParams when every value is absent (the common send). */
function queryString(query: QueryParams): string {
  for (const key in query) {
    const value = query[key];
    if (value !== undefined && value !== null) return toSearchParams(query).toString();
  }
  return '';
}

function toSearchParams(query: QueryParams): URLSearchParams {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue;
    if (Array.isArray(value)) for (const v of value) params.append(key, String(v));
    else params.append(key, String(value));
  }
  return params;
}

// What each attempt tells its observers: debug lines and request hooks, metadata only.

/** Who watches a transport's attempts: its logger, its hooks, and how to scrub the server's words. */
interface Observers {
  logger: Logger | undefined;
  hooks: RequestHooks | undefined;
  host: string;
  redact: (text: string) => string;
  rules: RetryRules;
}

/** The `onRequest` event of attempt `made` (1 for the first), and the base of its `onResponse`. */
function requestEvent(options: TransportRequest, host: string, call: number, made: number) {
  return { method: options.method, path: options.path, host, call, attempt: made };
}

/** The last call's number: calls are numbered in the process, from 1. */
let lastCall = 0;

/**
 * The one report of an attempt, whichever way it ended (an answer, a failure, the caller's abort, a 401 before a
 * re-login): its log line and its `onResponse` event, metadata only, never a header value or a body. `next` is
 * the wait before the next attempt, `'login'` for the repeat at once after a re-login, `null` when none follows.
 * A success is reported only when someone listens (`started` is then set); a failure always is, since a retry's
 * line is a `warn`.
 */
function observeAttempt(
  observers: Observers,
  options: TransportRequest,
  call: number,
  made: number,
  started: number | undefined,
  response: Response | undefined,
  error: unknown,
  next: number | 'login' | null,
): void {
  const { hooks, logger } = observers;
  const durationMs = started === undefined ? undefined : Math.round(performance.now() - started);
  const status = response?.status ?? (error instanceof WaGatewayError ? statusOf(error) : undefined);
  // The server's words, like a body: scrubbed and shortened before a log line or a hook sees them.
  const sent = response ? requestIdHeader(response.headers) : undefined;
  const requestId = response
    ? sent === undefined
      ? undefined
      : scrubRequestId(sent, observers.redact)
    : error instanceof WaGatewayError && 'requestId' in error && typeof error.requestId === 'string'
      ? error.requestId
      : undefined;
  if (response) {
    log(logger, 'debug', 'wa-gateway-sdk: request succeeded', {
      method: options.method,
      path: options.path,
      status,
      call,
      attempt: made,
      ...(durationMs === undefined ? {} : { durationMs }),
      ...(requestId ? { requestId } : {}),
    });
  } else {
    const line = {
      method: options.method,
      path: options.path,
      call,
      attempt: made,
      ...(requestId ? { requestId } : {}),
      error: error instanceof Error ? error.name : typeof error,
      ...(error instanceof WaGatewayError && 'code' in error ? { code: error.code } : {}),
      ...(status === undefined ? {} : { status }),
      ...(durationMs === undefined ? {} : { durationMs }),
    };
    if (next === null) log(logger, 'debug', 'wa-gateway-sdk: request failed', line);
    // An expired token is routine: its repeat after the re-login is no warning.
    else if (next === 'login')
      log(logger, 'debug', 'wa-gateway-sdk: credential refused, repeating after a login', line);
    // Folded: a storm of 429s (many clients on one key) is one line and a count, not a line per retry.
    else logFolded(logger, 'warn', 'wa-gateway-sdk: retrying request', { ...line, delayMs: next });
  }
  if (hooks?.onResponse) {
    callHook(hooks.onResponse, {
      ...requestEvent(options, observers.host, call, made),
      status,
      requestId,
      durationMs: durationMs ?? 0,
      error: response
        ? undefined
        : attemptError(error, status, requestId, mayHaveBeenSent(error, observers.rules)),
      retryInMs: next === 'login' ? 0 : (next ?? undefined),
    });
  }
}

/** `onResponse`'s `error`: what failed, never the error object (its message and body are the server's words). */
function attemptError(
  error: unknown,
  status: number | undefined,
  requestId: string | undefined,
  sent: boolean,
): AttemptError {
  const code = error instanceof WaGatewayError ? (error as { code?: unknown }).code : undefined;
  return {
    name: errorNameOf(error),
    ...(typeof code === 'string' || code === null ? { code } : {}),
    ...(status === undefined ? {} : { status }),
    ...(requestId === undefined ? {} : { requestId }),
    mayHaveBeenSent: sent,
  };
}

function statusOf(error: WaGatewayError): number | undefined {
  const status = (error as { status?: unknown }).status;
  return typeof status === 'number' ? status : undefined;
}

/** A fetch that threw before returning its promise: no request was started. */
class FetchNotStarted {
  constructor(readonly cause: unknown) {}
}
