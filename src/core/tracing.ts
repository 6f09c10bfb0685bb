import type { WithResponse } from './api-promise.js';
import { SDK_VERSION } from './version.js';

/**
 * OpenTelemetry spans, with `@opentelemetry/api` as an optional peer: it is imported lazily the first time a
 * client is built, and when it is absent (or no tracer provider is registered) every span below is skipped
 * after one comparison. Only the few members of the API used here are typed, structurally, so the published
 * types do not depend on the package either.
 *
 * Spans sit beside the `onRequest`/`onResponse` hooks, not on them: a hook sees one HTTP attempt, while a span
 * covers an operation (a send and its retries, a stream and its continuation requests, a webhook delivery and
 * its events) and carries what only the operation knows (the wamid, the records delivered, the dedup outcome).
 */

type Attributes = Record<string, string | number | boolean>;

interface OtelSpan {
  setAttribute(key: string, value: string | number | boolean): unknown;
  setStatus(status: { code: number; message?: string }): unknown;
  end(): void;
  isRecording(): boolean;
}

interface OtelApi {
  trace: {
    getTracer(
      name: string,
      version?: string,
    ): {
      startSpan(
        name: string,
        options?: { kind?: number; attributes?: Attributes },
        context?: unknown,
      ): OtelSpan;
    };
    setSpan(context: unknown, span: OtelSpan): unknown;
  };
  context: { active(): unknown };
}

/** SpanKind and SpanStatusCode of the OpenTelemetry API (stable numbers). */
const KIND = { internal: 0, server: 1, client: 2 } as const;
const STATUS_ERROR = 2;

let state: 'idle' | 'loading' | 'ready' | 'absent' = 'idle';
let loading: Promise<void> | undefined;
let tracer: ReturnType<OtelApi['trace']['getTracer']> | undefined;
let otel: OtelApi | undefined;

// A variable, not a literal: bundlers (esbuild, wrangler, vite) must not try to resolve an optional peer.
const OTEL_API = '@opentelemetry/api';

/** Starts loading `@opentelemetry/api` once; later spans wait for it only while it loads. */
export function loadTracing(): void {
  if (state !== 'idle') return;
  state = 'loading';
  loading = (import(/* @vite-ignore */ OTEL_API) as Promise<OtelApi & { default?: OtelApi }>).then(
    (m) => {
      const api = m.trace ? m : m.default;
      otel = api;
      tracer = api?.trace.getTracer('wa-gateway-sdk', SDK_VERSION);
      state = tracer ? 'ready' : 'absent';
    },
    () => {
      state = 'absent';
    },
  );
}

/** Resolves once the optional import settled; already settled in the common case (no await needed then). */
export function tracingReady(): Promise<void> | undefined {
  return state === 'loading' ? loading : undefined;
}

/** A started span, or `undefined` when nothing records (no package, no provider, or sampled out). */
export interface Span {
  set(key: string, value: string | number | boolean | undefined): void;
  /** @internal The OpenTelemetry span, to parent others on. */
  readonly raw: OtelSpan;
  /** Ends the span; with an error, records its type (name or SDK code) and never its message. */
  end(error?: unknown): void;
}

export function startSpan(
  name: string,
  kind: keyof typeof KIND,
  attributes: Attributes,
  parent?: Span,
): Span | undefined {
  if (state !== 'ready' || !tracer) return undefined;
  const context = parent && otel ? otel.trace.setSpan(otel.context.active(), parent.raw) : undefined;
  const span = tracer.startSpan(name, { kind: KIND[kind], attributes }, context);
  if (!span.isRecording()) {
    span.end();
    return undefined;
  }
  return {
    raw: span,
    set(key, value) {
      if (value !== undefined) span.setAttribute(key, value);
    },
    end(error) {
      if (error !== undefined) {
        const type = errorType(error);
        span.setAttribute('error.type', type);
        const status = (error as { status?: unknown }).status;
        if (typeof status === 'number') span.setAttribute('http.response.status_code', status);
        // The error's name only: messages can quote server text, which is not ours to export.
        span.setStatus({ code: STATUS_ERROR, message: type });
      }
      span.end();
    },
  };
}

/** The SDK error code (`RATE_001`), else the error's class name. */
export function errorType(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && code !== '') return code;
  return error instanceof Error ? error.name : typeof error;
}

/**
 * Runs one client call inside a span (when tracing records): the HTTP attributes of the OpenTelemetry
 * conventions from the answer, `error.type` from a failure, and whatever `annotate` adds from the result.
 */
export async function traced<T>(
  name: string,
  attributes: Attributes,
  call: () => Promise<WithResponse<T>>,
  annotate?: (data: T, span: Span) => void,
): Promise<WithResponse<T>> {
  const ready = tracingReady();
  if (ready) await ready;
  const span = startSpan(name, 'client', attributes);
  if (!span) return call();
  try {
    const result = await call();
    span.set('http.response.status_code', result.response.status);
    if (result.response.attempts > 1) span.set('http.request.resend_count', result.response.attempts - 1);
    annotate?.(result.data, span);
    span.end();
    return result;
  } catch (error) {
    span.end(error);
    throw error;
  }
}

/** Whether spans may record: the API loaded. A provider may still be missing (then spans start and drop). */
export function tracingLoaded(): boolean {
  return state === 'ready';
}

/**
 * `records` in a span counting them (`wa_gateway.stream.records`) and what `summary` adds when it ends. Only
 * called when `tracingLoaded()`, so an untraced stream keeps its generator as it is (no layer per record).
 */
export async function* tracedRecords<T>(
  name: string,
  attributes: Attributes,
  records: AsyncGenerator<T, void, undefined>,
  summary: () => Attributes,
): AsyncGenerator<T, void, undefined> {
  const span = startSpan(name, 'client', attributes);
  if (!span) {
    yield* records;
    return;
  }
  let count = 0;
  let failure: unknown;
  try {
    for await (const record of records) {
      count++;
      yield record;
    }
  } catch (error) {
    failure = error;
    throw error;
  } finally {
    span.set('wa_gateway.stream.records', count);
    for (const [key, value] of Object.entries(summary())) span.set(key, value);
    span.end(failure);
  }
}
