/**
 * OpenTelemetry spans with the SDK's in-memory exporter, over real sockets: a send (type, wamid, attempts, final
 * error code), a template create, a platform call, a stream range (records, requests, resume), a webhook
 * delivery and each of its events (kind, type, dedup outcome, status answered); the HTTP semantic conventions
 * where they apply; and no attribute holding a payload, a phone number or a secret.
 */
import { context, trace } from '@opentelemetry/api';
import { AsyncHooksContextManager } from '@opentelemetry/context-async-hooks';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { GatewayClient, PlatformClient, PublicApiClient } from '../../src/index.js';
import { messageEnvelope, statusEnvelope, statusObject, textMessage } from '../../src/testing/index.js';
import { createWebhookHandler } from '../../src/webhooks/index.js';
import { startServer } from '../helpers/http-server.js';

const API_KEY = 'pk_live_tracing0123456789abcdefXYZ';
const SECRET_KEY = 'sk_org_tracing0123456789abcdefXYZ';
const TOKEN = 'platform-token-tracing-0123456789';
const WEBHOOK_SECRET = 'webhook-secret-tracing-0123456789abcdef';
const PHONE = '998901234567';
const BODY = 'a private message body';
const exporter = new InMemorySpanExporter();
let server: Awaited<ReturnType<typeof startServer>>;
const failNextSend = { code: '' };

const json = (res: import('node:http').ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};

beforeAll(async () => {
  const contextManager = new AsyncHooksContextManager().enable();
  context.setGlobalContextManager(contextManager);
  trace.setGlobalTracerProvider(
    new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }),
  );
  server = await startServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (path === '/v1/wa/message') {
      if (failNextSend.code) {
        const code = failNextSend.code;
        failNextSend.code = '';
        return json(res, 502, {
          isSuccess: false,
          errors: { code, group: 'UPSTREAM', description: `echo ${BODY}` },
        });
      }
      return json(res, 200, {
        isSuccess: true,
        data: { messages: [{ id: 'wamid.TRACED' }], contacts: [{ input: PHONE, wa_id: PHONE }] },
      });
    }
    if (path === '/api/v1/wa/app1/templates') {
      return json(res, 201, {
        isSuccess: true,
        data: {
          id: 't1',
          name: 'order_shipped',
          language: 'en_US',
          category: 'UTILITY',
          status: 'PENDING',
          sourceId: '9',
        },
      });
    }
    if (path === '/jwt/') {
      json(res, 200, { token: TOKEN, expires_at: '2099-01-01T00:00:00Z' });
      return;
    }
    if (path === '/stats') {
      json(res, 200, []);
      return;
    }
    if (path === '/stream/messages/') {
      res.writeHead(200, { 'content-type': 'application/x-ndjson' });
      const records = [1, 2, 3].map((id) => ({
        id,
        created_at: `2024-01-01T00:00:0${id}.000Z`,
        text: `${BODY} ${id}`,
        phone: PHONE,
      }));
      res.end(records.map((r) => JSON.stringify(r)).join('\n'));
      return;
    }
    json(res, 404, {});
  });
});
afterAll(async () => {
  await server.close();
  trace.disable();
  context.disable();
});
beforeEach(() => exporter.reset());

const tokenPlatform = () =>
  new PlatformClient({ platformUrl: server.url, streamUrl: server.url, token: TOKEN, logLevel: 'off' });
const spans = (name: string): ReadableSpan[] => exporter.getFinishedSpans().filter((s) => s.name === name);
const text = { to: PHONE, type: 'text', text: { body: BODY } } as const;
const FORBIDDEN = [API_KEY, SECRET_KEY, TOKEN, WEBHOOK_SECRET, PHONE, BODY, 'Order {{1}}'];

/** No attribute, event or status of any span carries a payload or a secret. */
function expectNothingLeaked(): void {
  const rendered = exporter
    .getFinishedSpans()
    .map((s) =>
      JSON.stringify({ name: s.name, attributes: s.attributes, events: s.events, status: s.status }),
    );
  expect(rendered.filter((r) => FORBIDDEN.some((f) => r.includes(f)))).toEqual([]);
}

describe('OpenTelemetry spans', () => {
  it('a send: message type, wamid, HTTP conventions; a failed send: its final error code', async () => {
    const gw = new GatewayClient({ apiKey: API_KEY, baseUrl: server.url, logLevel: 'off' });
    await gw.messages.send(text);
    failNextSend.code = 'GW_001';
    await expect(gw.messages.send(text)).rejects.toMatchObject({ code: 'GW_001' });
    const [ok, failed] = spans('wa-gateway send');
    expect(ok?.kind).toBe(2); // client
    expect(ok?.attributes).toMatchObject({
      'messaging.system': 'whatsapp',
      'messaging.operation.type': 'send',
      'messaging.message.id': 'wamid.TRACED',
      'wa_gateway.message.type': 'text',
      'http.request.method': 'POST',
      'http.response.status_code': 200,
      'server.address': '127.0.0.1',
    });
    expect(failed?.attributes).toMatchObject({ 'error.type': 'GW_001', 'http.response.status_code': 502 });
    expect(failed?.status).toEqual({ code: 2, message: 'GW_001' });
    expectNothingLeaked();
  });

  it('a send inside the caller’s span is its child; sendMany makes one span per send', async () => {
    const gw = new GatewayClient({ apiKey: API_KEY, baseUrl: server.url, logLevel: 'off' });
    const tracer = trace.getTracer('app');
    await tracer.startActiveSpan('app work', async (parent) => {
      await gw.messages.send(text);
      for await (const r of gw.messages.sendMany([text, text])) expect(r.ok).toBe(true);
      parent.end();
    });
    const parent = spans('app work')[0]!;
    const sends = spans('wa-gateway send');
    expect(sends).toHaveLength(3);
    for (const s of sends) expect(s.parentSpanContext?.spanId).toBe(parent.spanContext().spanId);
  });

  it('a template create and a platform call', async () => {
    const api = new PublicApiClient({
      secretKey: SECRET_KEY,
      baseUrl: `${server.url}/api/v1`,
      logLevel: 'off',
    });
    await api.templates.create('app1', {
      name: 'order_shipped',
      language: 'en_US',
      category: 'UTILITY',
      body: { text: 'Order {{1}} shipped.', examples: ['1'] },
    });
    const platform = tokenPlatform();
    await platform.stats.get();
    expect(spans('wa-gateway template.create')[0]?.attributes).toMatchObject({
      'wa_gateway.template.category': 'UTILITY',
      'wa_gateway.template.status': 'PENDING',
      'http.response.status_code': 201,
    });
    expect(spans('wa-gateway platform GET')[0]?.attributes).toMatchObject({
      'http.request.method': 'GET',
      'url.path': '/stats',
      'http.response.status_code': 200,
    });
    expectNothingLeaked();
  });

  it('a login (POST /jwt/) has its platform span, with no password or token in it', async () => {
    const platform = new PlatformClient({
      platformUrl: server.url,
      streamUrl: server.url,
      username: 'agent',
      password: 'pw-tracing-0123456789',
      logLevel: 'off',
    });
    await platform.auth.login();
    await platform.stats.get();
    expect(spans('wa-gateway platform POST').map((s) => s.attributes)).toEqual([
      expect.objectContaining({
        'http.request.method': 'POST',
        'server.address': '127.0.0.1',
        'url.path': '/jwt/',
        'http.response.status_code': 200,
      }),
    ]);
    expect(JSON.stringify(exporter.getFinishedSpans().map((s) => s.attributes))).not.toContain('pw-tracing');
    expectNothingLeaked();
  });

  it('a stream: records delivered, its one request, and the HTTP attributes', async () => {
    const platform = tokenPlatform();
    for await (const _ of platform.messages.stream({})) {
      // Only the span matters here.
    }
    expect(spans('wa-gateway stream')[0]?.attributes).toEqual({
      'wa_gateway.stream.records': 3,
      'wa_gateway.stream.requests': 1,
      'http.request.method': 'GET',
      'server.address': '127.0.0.1',
      'url.path': '/stream/messages/',
    });
    expectNothingLeaked();
  });

  it('a stream range: records delivered, requests made, and whether it resumed', async () => {
    const platform = tokenPlatform();
    const query = { from: '2024-01-01T00:00:00Z', to: '2024-01-01T00:00:10Z' };
    const all = [];
    for await (const m of platform.messages.streamRange(query)) all.push(m.id);
    const resumed = [];
    for await (const m of platform.messages.streamRange(
      { ...query, from: '2024-01-01T00:00:02Z' },
      { skipIds: [2] },
    ))
      resumed.push(m.id);
    expect(all).toEqual([1, 2, 3]);
    expect(resumed).toEqual([3]);
    const [first, second] = spans('wa-gateway stream.range');
    expect(first?.attributes).toMatchObject({
      'wa_gateway.stream.records': 3,
      'wa_gateway.stream.requests': 1,
      'wa_gateway.stream.resumed': false,
    });
    expect(second?.attributes).toMatchObject({
      'wa_gateway.stream.records': 1,
      'wa_gateway.stream.resumed': true,
    });
    expectNothingLeaked();
  });

  it('a webhook delivery (status answered) and each event in it (kind, type, wamid, dedup outcome)', async () => {
    const handler = createWebhookHandler({ secret: WEBHOOK_SECRET, onEvent: () => {}, logger: {} });
    const deliver = (body: unknown) =>
      handler(
        new Request('http://localhost/webhooks', {
          method: 'POST',
          headers: { authorization: `Bearer ${WEBHOOK_SECRET}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        }),
      );
    const message = messageEnvelope(textMessage({ from: PHONE, text: { body: BODY } }));
    expect((await deliver(message)).status).toBe(200);
    expect((await deliver(message)).status).toBe(200); // the same event again: a duplicate
    expect((await deliver(statusEnvelope(statusObject('delivered', { recipient_id: PHONE })))).status).toBe(
      200,
    );

    const deliveries = spans('wa-gateway webhook.delivery');
    expect(
      deliveries.map((d) => [
        d.kind,
        d.attributes['http.response.status_code'],
        d.attributes['wa_gateway.webhook.events'],
      ]),
    ).toEqual([
      [1, 200, 1],
      [1, 200, 1],
      [1, 200, 1],
    ]);
    const events = spans('wa-gateway webhook.event');
    expect(events.map((e) => e.attributes)).toEqual([
      {
        'wa_gateway.event.kind': 'message',
        'wa_gateway.event.type': 'text',
        'messaging.message.id': 'wamid.FIXTURE000001',
        'wa_gateway.dedup.outcome': 'processed',
      },
      {
        'wa_gateway.event.kind': 'message',
        'wa_gateway.event.type': 'text',
        'messaging.message.id': 'wamid.FIXTURE000001',
        'wa_gateway.dedup.outcome': 'duplicate',
      },
      {
        'wa_gateway.event.kind': 'status',
        'wa_gateway.event.type': 'delivered',
        'messaging.message.id': 'wamid.FIXTURE000002',
        'wa_gateway.dedup.outcome': 'processed',
      },
    ]);
    for (const [i, e] of events.entries())
      expect(e.parentSpanContext?.spanId).toBe(deliveries[i]!.spanContext().spanId);
    expectNothingLeaked();
  });

  it('an event still running for another delivery: a deferred span, then a span of its own for the wait', async () => {
    const [a, b] = [textMessage({ from: PHONE }), textMessage({ from: PHONE })];
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let aRunning: () => void = () => {};
    const aStarted = new Promise<void>((resolve) => {
      aRunning = resolve;
    });
    const handler = createWebhookHandler({
      secret: WEBHOOK_SECRET,
      logger: {},
      onEvent: async (event) => {
        if (event.idempotencyKey === a.id) {
          aRunning();
          await held;
        } else release(); // B runs in the second delivery only once A was deferred there
      },
    });
    const deliver = () =>
      handler(
        new Request('http://localhost/webhooks', {
          method: 'POST',
          headers: { authorization: `Bearer ${WEBHOOK_SECRET}`, 'content-type': 'application/json' },
          body: JSON.stringify(messageEnvelope([a, b])),
        }),
      );
    const first = deliver();
    await aStarted;
    const second = deliver();
    expect((await first).status).toBe(200);
    expect((await second).status).toBe(200);
    // Every span ended. The second delivery: A deferred, B processed, then A waited for (a duplicate); the first:
    // A processed, B a duplicate.
    const events = spans('wa-gateway webhook.event');
    const outcome = (e: (typeof events)[number]) => e.attributes['wa_gateway.dedup.outcome'];
    const secondSpan = events.find((e) => outcome(e) === 'deferred')?.parentSpanContext?.spanId;
    const of = (inSecond: boolean) =>
      events.filter((e) => (e.parentSpanContext?.spanId === secondSpan) === inSecond).map(outcome);
    expect(of(true)).toEqual(['deferred', 'processed', 'duplicate']);
    expect(of(false).sort()).toEqual(['duplicate', 'processed']);
    expectNothingLeaked();
  });
});
