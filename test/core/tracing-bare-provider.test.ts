/**
 * A tracer provider registered alone, with no context manager (docs/observability.md's example; Workers have
 * none): a webhook delivery's event spans are still its children, in its trace. The rest of the tracing suite
 * (tracing.test.ts) registers a context manager, as Node's SDK does; the two cannot share a process's globals.
 */
import { trace } from '@opentelemetry/api';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, expect, it } from 'vitest';
import { messageEnvelope, textMessage } from '../../src/testing/index.js';
import { createWebhookHandler } from '../../src/webhooks/index.js';

const SECRET = 'webhook-secret-bare-provider-0123456789';
const exporter = new InMemorySpanExporter();
trace.setGlobalTracerProvider(
  new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }),
);
afterAll(() => trace.disable());

it("each event span is its delivery's child without a context manager", async () => {
  const handler = createWebhookHandler({ secret: SECRET, logger: false, onEvent: () => {} });
  const body = JSON.stringify(
    messageEnvelope([textMessage({ id: 'wamid.B1' }), textMessage({ id: 'wamid.B2' })]),
  );
  const res = await handler(
    new Request('http://127.0.0.1/hook', {
      method: 'POST',
      headers: { authorization: `Bearer ${SECRET}` },
      body,
    }),
  );
  expect(res.status).toBe(200);
  const spans = exporter.getFinishedSpans();
  const delivery = spans.find((s) => s.name === 'wa-gateway webhook.delivery');
  const events = spans.filter((s) => s.name === 'wa-gateway webhook.event');
  expect(delivery).toBeDefined();
  expect(events).toHaveLength(2);
  for (const event of events) {
    expect(event.parentSpanContext?.spanId).toBe(delivery!.spanContext().spanId);
    expect(event.spanContext().traceId).toBe(delivery!.spanContext().traceId);
  }
});
