import type { WithResponse } from './api-promise.js';
import { SDK_VERSION } from './version.js';

/**
 * OpenTelemetry spans, with `@opentelemetry/api` as an optional peer that the SDK never imports. The API keeps
 * what the application registered (its tracer provider and context manager) on a process-wide global, under
 * `Symbol.for('opentelemetry.js.api.1')`, so that every copy of the API shares it; the SDK reads the same
 * global. No import means nothing for a bundler to resolve and no dynamic `import()` that an edge runtime
 * refuses (workerd rejects computed specifiers), and when no provider is registered every span below is
 * skipped after one property read. Only the few members used here are typed, structurally.
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

interface OtelTracer {
  startSpan(name: string, options?: { kind?: number; attributes?: Attributes }, context?: unknown): OtelSpan;
}

interface OtelContext {
  setValue(key: symbol, value: unknown): OtelContext;
}

/** What the OpenTelemetry API 1.x registers on its global. */
interface OtelGlobal {
  trace?: { getTracer(name: string, version?: string): OtelTracer };
  context?: { active(): OtelContext };
}

/** The API's global registry (major version 1) and its key of the active span in a context. */
const OTEL_GLOBAL = Symbol.for('opentelemetry.js.api.1');
const SPAN_KEY = Symbol.for('OpenTelemetry Context Key SPAN');

/** SpanKind and SpanStatusCode of the OpenTelemetry API (stable numbers). */
const KIND = { internal: 0, server: 1, client: 2 } as const;
const STATUS_ERROR = 2;

let tracerOf: { provider: object; tracer: OtelTracer } | undefined;

function registry(): OtelGlobal | undefined {
  return (globalThis as { [OTEL_GLOBAL]?: OtelGlobal })[OTEL_GLOBAL];
}

/** The SDK's tracer from the registered provider, fetched once per provider; `undefined` when none is. */
function currentTracer(): OtelTracer | undefined {
  const provider = registry()?.trace;
  if (!provider) return undefined;
  if (tracerOf?.provider !== provider) {
    tracerOf = { provider, tracer: provider.getTracer('wa-gateway-sdk', SDK_VERSION) };
  }
  return tracerOf.tracer;
}

/** Kept for the clients' constructors: the registry is read when a span starts, so there is nothing to load. */
export function loadTracing(): void {}

/** Always settled: reading the registry is synchronous. */
export function tracingReady(): Promise<void> | undefined {
  return undefined;
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
  const tracer = currentTracer();
  if (!tracer) return undefined;
  // Without a context manager registered (a bare provider) the API has no context to extend: one that holds the
  // parent alone is what a tracer reads (`getValue`), so an event span is still its delivery's child.
  const context = parent
    ? (registry()?.context?.active().setValue(SPAN_KEY, parent.raw) ?? {
        getValue: (key: symbol) => (key === SPAN_KEY ? parent.raw : undefined),
      })
    : undefined;
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
 * Not `async`: with no recording span it returns `call()`'s own promise, so an untraced call pays neither the
 * extra promise nor the attributes object (pass a function to build them only when a span starts).
 */
export function traced<T>(
  name: string,
  attributes: Attributes | (() => Attributes),
  call: () => Promise<WithResponse<T>>,
  annotate?: (data: T, span: Span) => void,
): Promise<WithResponse<T>> {
  if (!tracingLoaded()) return call();
  const span = startSpan(name, 'client', typeof attributes === 'function' ? attributes() : attributes);
  if (!span) return call();
  return inSpan(span, call, annotate);
}

async function inSpan<T>(
  span: Span,
  call: () => Promise<WithResponse<T>>,
  annotate: ((data: T, span: Span) => void) | undefined,
): Promise<WithResponse<T>> {
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

/** Whether spans may record: a tracer provider is registered. */
export function tracingLoaded(): boolean {
  return registry()?.trace !== undefined;
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
