import { requestIdHeader } from './error-body.js';
import { WaGatewayError } from './errors.js';
import { callHook, type RequestHooks } from './hooks.js';
import { type Logger, log } from './logger.js';
import { excerpt } from './secrets.js';
import type { RequestOptions } from './transport-types.js';

/** Who watches a transport's attempts: its logger, its hooks, and how to scrub the server's words. */
export interface Observers {
  logger: Logger | undefined;
  hooks: RequestHooks | undefined;
  host: string;
  redact: (text: string) => string;
}

/** The `onRequest` event of an attempt (and the base of its `onResponse`). */
export function requestEvent(options: RequestOptions, host: string, attempt: number) {
  return { method: options.method, path: options.path, host, attempt: attempt + 1 };
}

/** One attempt's debug line and `onResponse` event: metadata only, never a header value or a body. */
export function observeAttempt(
  observers: Observers,
  options: RequestOptions,
  attempt: number,
  started: number,
  outcome: { response: Response | undefined; error: unknown; retryInMs: number | undefined },
): void {
  const { hooks, logger } = observers;
  const { response, error, retryInMs } = outcome;
  const durationMs = Math.round(performance.now() - started);
  const status = response?.status ?? (error instanceof WaGatewayError ? statusOf(error) : undefined);
  // The server's words, like a body: scrubbed and shortened before a log line or a hook sees them.
  const sent = response ? requestIdHeader(response.headers) : undefined;
  const requestId = response
    ? sent === undefined
      ? undefined
      : excerpt(observers.redact(sent), 100)
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
      ...requestEvent(options, observers.host, attempt),
      status,
      requestId,
      durationMs,
      error,
      retryInMs,
    });
  }
}

/** The log fields of a failed attempt. */
export function failureMeta(options: RequestOptions, attempt: number, error: unknown) {
  return {
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
}

function statusOf(error: WaGatewayError): number | undefined {
  const status = (error as { status?: unknown }).status;
  return typeof status === 'number' ? status : undefined;
}
