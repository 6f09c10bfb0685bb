/**
 * Checked template sends over real sockets: the sandbox on 127.0.0.1 plays the gateway, the public API and the
 * template lifecycle; a real node:http webhook handler feeds its status events to the catalogue. A send the
 * gateway would refuse fails locally with a typed error and the sandbox receives no request.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { defineTemplate, GatewayClient, PublicApiClient, TemplateCatalog } from '../../src/index.js';
import { type Sandbox, startSandbox } from '../../src/testing/index.js';
import { createNodeWebhookHandler, type TemplateStatusEvent } from '../../src/webhooks/index.js';
import { templateSendRefusal } from '../helpers/refusal.js';
import { orderShippedDefinition } from '../helpers/template-definitions.js';

const SECRET = 'template-e2e-secret-0123456789abcdef';
const orderShipped = defineTemplate(orderShippedDefinition);
const good = { header: '#1042', body: ['Ali', '#1042'], buttons: { 0: '1042' } } as const;

let sandbox: Sandbox | undefined;
let webhooks: Server | undefined;
afterEach(async () => {
  await sandbox?.close();
  await new Promise<void>((r) => (webhooks ? webhooks.close(() => r()) : r()));
  sandbox = webhooks = undefined;
});

/** The application: a catalogue, its webhook endpoint, a gateway client and a public API client. */
async function application(options: { templateApprovalMs?: number } = {}) {
  const catalog = new TemplateCatalog({ definitions: [orderShipped] });
  const events: TemplateStatusEvent[] = [];
  const waiters: (() => void)[] = [];
  const handler = createNodeWebhookHandler({
    secret: SECRET,
    // The handler applies template status events to the catalogue itself, outside deduplication: a template
    // approved, paused and approved again delivers the same value twice.
    templates: catalog,
    onEvent: async (event) => {
      if (event.kind === 'template_status') events.push(event);
      for (const w of waiters.splice(0)) w();
    },
  });
  const server = createServer((req, res) => void handler(req, res));
  webhooks = server;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const s = await startSandbox({
    platform: false,
    webhookUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    webhookSecret: SECRET,
    ...options,
  });
  sandbox = s;
  const sends: unknown[] = [];
  s.observe((e) => {
    if (e.type === 'send') sends.push(e.body);
  });
  const gw = new GatewayClient({
    apiKey: 'sk_test_sandbox',
    baseUrl: s.url,
    rateLimit: false,
    templates: catalog,
  });
  const api = new PublicApiClient({ secretKey: 'sk_org_sandbox', baseUrl: `${s.url}/api/v1` });
  /** Resolves once the webhook has delivered `n` template status events. */
  const statusEvents = async (n: number) => {
    while (events.length < n) await new Promise<void>((r) => waiters.push(r));
    return events;
  };
  return { s, catalog, gw, api, sends, statusEvents };
}

describe('checked template sends against the sandbox', () => {
  it('refuses locally what the gateway would refuse, then sends once the template is approved', async () => {
    const { s, catalog, gw, api, sends } = await application();
    s.templates.plan('order_shipped', { outcome: 'PENDING' }); // the test moves it, no timer
    const [pushed] = await catalog.push(api, 'app_1');
    expect(pushed).toMatchObject({ result: 'created', status: 'PENDING' });
    const sourceId = pushed!.sourceId!;

    const untyped = gw.messages.sendTemplate.bind(gw.messages) as unknown as (
      ...a: unknown[]
    ) => Promise<unknown>;
    expect(
      await templateSendRefusal(() => gw.messages.sendTemplate('998901234567', orderShipped, good)),
    ).toMatchObject({
      rule: 'template.status',
      status: 'PENDING',
    });

    await s.setTemplateStatus(sourceId, 'APPROVED');
    await s.setTemplateStatus(sourceId, 'PAUSED');
    expect(await catalog.get('order_shipped', 'en_US')).toMatchObject({ status: 'PAUSED' });

    const mismatched = await templateSendRefusal(() =>
      untyped('998901234567', orderShipped, { ...good, body: ['Ali'] }),
    );
    expect(mismatched).toMatchObject({ rule: 'template.status', status: 'PAUSED' });
    await s.setTemplateStatus(sourceId, 'APPROVED');
    expect(
      await templateSendRefusal(() => untyped('998901234567', orderShipped, { ...good, body: ['Ali'] })),
    ).toMatchObject({ rule: 'template.parameters.count', component: 'body', expected: 2, given: 1 });
    expect(
      await templateSendRefusal(() =>
        gw.messages.sendTemplate('998901234567', orderShipped, { ...good, language: 'uz' }),
      ),
    ).toMatchObject({ rule: 'template.language', expected: ['en_US'], given: 'uz' });
    await s.setTemplateStatus(sourceId, 'PAUSED');
    expect(
      await templateSendRefusal(() => gw.messages.sendTemplate('998901234567', orderShipped, good)),
    ).toMatchObject({
      rule: 'template.status',
      status: 'PAUSED',
    });
    expect(sends).toEqual([]); // the sandbox received no request for any of them

    await s.setTemplateStatus(sourceId, 'APPROVED'); // its webhook reaches the handler, which updates the catalogue
    const sent = await gw.messages.sendTemplate('998901234567', orderShipped, good);
    expect(sent.messageId).toMatch(/^wamid\./);
    expect(sends).toHaveLength(1);
  }, 60_000);

  it('plays the lifecycle on its own: PENDING for templateApprovalMs, then the planned outcome with its webhook', async () => {
    const { s, catalog, api, statusEvents } = await application({ templateApprovalMs: 20 });
    const rejectedOne = defineTemplate({ ...orderShippedDefinition, name: 'order_rejected' });
    const pausedOne = defineTemplate({ ...orderShippedDefinition, name: 'order_paused' });
    catalog.define(rejectedOne);
    catalog.define(pausedOne);
    s.templates.plan('order_rejected', { outcome: 'REJECTED', reason: 'TAG_CONTENT_MISMATCH' });
    s.templates.plan('order_paused', { outcome: 'APPROVED', pauseAfterMs: 20 });
    await catalog.push(api, 'app_1');
    const events = await statusEvents(4); // order_shipped APPROVED, order_rejected REJECTED, order_paused APPROVED then PAUSED
    const seen = events.map((e) => `${e.template.message_template_name}:${e.template.event}`);
    expect(seen.sort()).toEqual([
      'order_paused:APPROVED',
      'order_paused:PAUSED',
      'order_rejected:REJECTED',
      'order_shipped:APPROVED',
    ]);
    expect(events.find((e) => e.template.event === 'REJECTED')!.template.reason).toBe('TAG_CONTENT_MISMATCH');
    expect(await catalog.get('order_rejected', 'en_US')).toMatchObject({
      status: 'REJECTED',
      reason: 'TAG_CONTENT_MISMATCH',
    });
    expect(await catalog.get('order_paused', 'en_US')).toMatchObject({ status: 'PAUSED' });
    expect(await catalog.get('order_shipped', 'en_US')).toMatchObject({ status: 'APPROVED' });
    const rejected = await catalog.problem({ name: 'order_rejected', language: { code: 'en_US' } });
    expect(rejected).toMatchObject({ rule: 'template.status', reason: 'TAG_CONTENT_MISMATCH' });
  }, 60_000);

  it('the sandbox answers GW_001 from the same check when the client has no catalogue', async () => {
    const { s, api } = await application();
    s.templates.plan('order_shipped', { outcome: 'PENDING' });
    const { sourceId } = await api.templates.create('app_1', orderShipped);
    await s.setTemplateStatus(sourceId, 'REJECTED', 'INVALID_FORMAT');
    const plain = new GatewayClient({ apiKey: 'sk_test_sandbox', baseUrl: s.url, rateLimit: false });
    await expect(plain.messages.sendTemplate('998901234567', orderShipped, good)).rejects.toMatchObject({
      code: 'GW_001',
      description: expect.stringContaining('is REJECTED, not APPROVED (reason: INVALID_FORMAT)'),
    });
  }, 60_000);
});
