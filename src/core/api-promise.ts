import { requestIdHeader, scrubRequestId } from './error-body.js';

/** What a successful call's HTTP answer said, besides its body. */
export interface ResponseInfo {
  /** The HTTP status of the answer that succeeded (after any retries). */
  status: number;
  /** The answer's headers. */
  headers: Headers;
  /**
   * The server's request id (`x-request-id` or `request-id`), to quote to support; `undefined` when absent. Scrubbed
   * of the client's credentials and shortened, as in errors, hooks and log lines (the raw value is in `headers`).
   */
  requestId: string | undefined;
  /** How many attempts the call took (1 when it succeeded at once). */
  attempts: number;
  /**
   * The call's number in this process: the `call` of its log lines and hook events (0 when no request was made).
   * Log it beside your own ids to find the SDK's lines of one call.
   */
  call: number;
}

/** The typed result of a call with its {@link ResponseInfo}. */
export interface WithResponse<T> {
  data: T;
  response: ResponseInfo;
}

/**
 * The promise every SDK call returns: await it for the typed result, or call `.withResponse()` for the result
 * and the answer's status, headers and request id. It is a real `Promise` (`instanceof Promise`, `.then`,
 * `.catch`, `.finally`); the result is derived from the call's `{ data, response }` only when awaited, so an
 * unused `.withResponse()` costs nothing.
 *
 * @example
 * const { data, response } = await gw.messages.send(message).withResponse();
 * console.log(data.messageId, response.status, response.requestId);
 */
export class ApiPromise<T> extends Promise<T> {
  readonly #call: Promise<WithResponse<T>>;
  readonly #redactor: Redactor | undefined;
  #data: Promise<T> | undefined;

  /** @internal */
  constructor(call: Promise<WithResponse<T>>, redactor?: Redactor) {
    // The executor's own value is never observed: then/catch/finally read `#call`.
    super((resolve) => resolve(undefined as T));
    this.#call = call;
    this.#redactor = redactor;
  }

  /** Derived promises (`.then(...)` results) are plain promises. */
  static override get [Symbol.species](): PromiseConstructor {
    return Promise;
  }

  /** The result with the answer's status, headers, request id and attempt count. */
  withResponse(): Promise<WithResponse<T>> {
    const redactor = this.#redactor;
    if (redactor === undefined) return this.#call;
    // Scrubbed here, when asked for: scrubbing on every call would cost every send (docs/benchmarks.md).
    return this.#call.then((r) => {
      const id = r.response.requestId;
      if (id === undefined) return r;
      return {
        data: r.data,
        response: { ...r.response, requestId: scrubRequestId(id, (t) => redactor.redact(t)) },
      };
    });
  }

  #value(): Promise<T> {
    if (this.#data === undefined) this.#data = this.#call.then((r) => r.data);
    return this.#data;
  }

  // biome-ignore lint/suspicious/noThenProperty: a Promise subclass must override then.
  override then<A = T, B = never>(
    onfulfilled?: ((value: T) => A | PromiseLike<A>) | null,
    onrejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
  ): Promise<A | B> {
    return this.#value().then(onfulfilled, onrejected);
  }

  override catch<B = never>(onrejected?: ((reason: unknown) => B | PromiseLike<B>) | null): Promise<T | B> {
    return this.#value().catch(onrejected);
  }

  override finally(onfinally?: (() => void) | null): Promise<T> {
    return this.#value().finally(onfinally);
  }
}

/** What scrubs a client's credentials out of the server's words (its transport). */
export interface Redactor {
  redact(text: string): string;
}

/**
 * Runs `call` (a sync throw becomes a rejection) and wraps it in an {@link ApiPromise}; `redactor` (the client's
 * transport) scrubs the request id `withResponse()` reports.
 */
export function apiPromise<T>(call: () => Promise<WithResponse<T>>, redactor?: Redactor): ApiPromise<T> {
  let started: Promise<WithResponse<T>>;
  try {
    started = call();
  } catch (error) {
    started = Promise.reject(error);
  }
  return new ApiPromise(started, redactor);
}

/** The {@link ResponseInfo} of a fetch answer. */
export function responseInfo(response: Response, attempts: number, call: number): ResponseInfo {
  const { headers } = response;
  return { status: response.status, headers, requestId: requestIdHeader(headers), attempts, call };
}
