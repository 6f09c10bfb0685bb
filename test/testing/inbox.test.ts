import { readdirSync, readFileSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { GatewayClient, PublicApiClient } from '../../src/index.js';
import { type Sandbox, type SandboxOptions, startSandbox } from '../../src/testing/index.js';
import { bundleInboxAssets } from '../../src/testing/sandbox/inbox/bundle.js';
import { createNodeWebhookHandler, type WebhookEvent } from '../../src/webhooks/index.js';
import { closeAll } from '../helpers/close-all.js';

const SECRET = 'inbox-test-secret-0123456789abcdefghij';
let sandbox: Sandbox | undefined;
let receiver: Server | undefined;
afterEach(async () => {
  await closeAll(sandbox, receiver);
  sandbox = receiver = undefined;
});

async function start(options: SandboxOptions = {}) {
  const events: WebhookEvent[] = [];
  const handler = createNodeWebhookHandler({ secret: SECRET, onEvent: (e) => void events.push(e) });
  receiver = createServer((req, res) => handler(req, res));
  await new Promise<void>((r) => receiver!.listen(0, '127.0.0.1', r));
  sandbox = await startSandbox({
    inbox: true,
    webhookUrl: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/`,
    webhookSecret: SECRET,
    statusDelaysMs: [5, 10, 15],
    templateApprovalMs: 20,
    ...options,
  });
  const gw = new GatewayClient({ apiKey: 'sk_test_sandbox', baseUrl: sandbox.url, maxRetries: 0 });
  return { sandbox, gw, events };
}

/** A raw request, so the Host and Origin headers are ours to choose (fetch would not let us). */
function raw(
  url: string,
  options: { method?: string; headers?: Record<string, string>; body?: string },
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: options.method ?? 'GET', headers: options.headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks).toString() }),
      );
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

const template = {
  name: 'order_shipped',
  language: 'en_US',
  category: 'UTILITY',
  header: { format: 'TEXT', text: 'Order {{1}} update', examples: ['#1042'] },
  body: { text: 'Hi {{1}}, order {{2}} ships today.', examples: ['Ali', '#1042'] },
  buttons: [{ type: 'URL', text: 'Track', url: 'https://shop.example.com/t/{{1}}', example: ['1042'] }],
} as const;

describe('sandbox template registry', () => {
  it('creates through PublicApiClient at the spec path, approves after a delay and sends message_template_status_update', async () => {
    const { sandbox, events } = await start();
    const api = new PublicApiClient({ secretKey: 'sk_org_sandbox', baseUrl: `${sandbox.url}/api/v1` });
    const created = await api.templates.create('app_1', template);
    expect(created).toMatchObject({ name: 'order_shipped', language: 'en_US', status: 'PENDING' });
    await sandbox.idle();
    expect(sandbox.templates.find('order_shipped', 'en_US')?.status).toBe('APPROVED');
    const update = events.find((e) => e.kind === 'template_status');
    expect(update?.kind === 'template_status' && update.template).toMatchObject({
      event: 'APPROVED',
      message_template_id: Number(created.sourceId),
      message_template_name: 'order_shipped',
      message_template_language: 'en_US',
    });
    await expect(api.templates.create('app_1', template)).rejects.toMatchObject({ code: 'UPSTREAM_017' });
    const wrongKey = new PublicApiClient({ secretKey: 'sk_org_other', baseUrl: `${sandbox.url}/api/v1` });
    await expect(wrongKey.templates.create('app_1', template)).rejects.toMatchObject({
      code: 'ORGANIZATION_SECRET_011',
    });
  });

  it('answers a template send whose parameters do not match the approved template with GW_001', async () => {
    // Approval is left to the test (no timer race): the template stays PENDING until approve().
    const { sandbox, gw } = await start({ templateApprovalMs: 600_000 });
    const api = new PublicApiClient({ secretKey: 'sk_org_sandbox', baseUrl: `${sandbox.url}/api/v1` });
    const { sourceId } = await api.templates.create('app_1', template);
    const send = (components: unknown[]) =>
      gw.messages.send({
        to: '998901234567',
        type: 'template',
        template: { name: 'order_shipped', language: { code: 'en_US' }, components },
      } as never);
    const text = (t: string) => ({ type: 'text', text: t });
    const good = [
      { type: 'header', parameters: [text('#1042')] },
      { type: 'body', parameters: [text('Ali'), text('#1042')] },
      { type: 'button', sub_type: 'url', index: '0', parameters: [text('1042')] },
    ];
    // Still PENDING: not approved yet.
    await expect(send(good)).rejects.toMatchObject({ code: 'GW_001', status: 502 });
    sandbox.templates.approve(sourceId);
    await expect(send(good)).resolves.toMatchObject({ messageId: expect.stringMatching(/^wamid\./) });
    const cases = [
      good.slice(1), // header parameter missing
      [good[0], { type: 'body', parameters: [text('Ali')] }, good[2]], // one body parameter short
      [
        good[0],
        {
          type: 'body',
          parameters: [text('Ali'), { type: 'image', image: { link: 'https://x.test/a.png' } }],
        },
        good[2],
      ],
      [...good, { type: 'button', sub_type: 'url', index: '1', parameters: [text('x')] }], // no such dynamic button
    ];
    for (const components of cases) {
      await expect(send(components)).rejects.toMatchObject({
        code: 'GW_001',
        description: expect.stringContaining('template parameter mismatch'),
      });
    }
  });
});

describe('sandbox controls', () => {
  it('closes and reopens the 24-hour window: a non-template send gets GW_001, a customer message reopens it', async () => {
    const { sandbox, gw } = await start();
    sandbox.simulator.closedWindows.add('998901234567');
    const text = { to: '998901234567', type: 'text', text: { body: 'Hi' } } as const;
    await expect(gw.messages.send(text)).rejects.toMatchObject({
      code: 'GW_001',
      description: expect.stringContaining('24-hour'),
    });
    await expect(gw.messages.send({ ...text, to: '998901234568' })).resolves.toBeDefined();
    await sandbox.injectMessage({
      from: '998901234567',
      id: 'wamid.IN1',
      timestamp: '1',
      type: 'text',
      text: { body: 'hello' },
    });
    await expect(gw.messages.send(text)).resolves.toBeDefined();
  });

  it('delivers the next send as sent then failed with the chosen upstream code, reversed and twice when asked', async () => {
    const { sandbox, gw, events } = await start();
    sandbox.faults.nextFailure = { code: 131049, title: 'Not delivered' };
    sandbox.faults.statusOrder = 'reversed';
    sandbox.faults.duplicateStatuses = true;
    const { messageId } = await gw.messages.send({ to: '998901234567', type: 'text', text: { body: 'Hi' } });
    await sandbox.idle();
    expect(sandbox.deliveries.map((d) => d.label)).toEqual([
      'status:failed',
      'status:failed',
      'status:sent',
      'status:sent',
    ]);
    // The app's handler dedupes the second copies.
    const statuses = events.flatMap((e) => (e.kind === 'status' ? [e.status] : []));
    expect(statuses.map((s) => s.status)).toEqual(['failed', 'sent']);
    expect(statuses[0]).toMatchObject({ id: messageId, errors: [{ code: 131049, title: 'Not delivered' }] });
    expect(sandbox.faults.nextFailure).toBeNull();
  });
});

describe('inbox server', () => {
  it('serves its pages with a strict CSP and refuses foreign hosts, foreign origins and non-JSON posts', async () => {
    const { sandbox } = await start();
    const page = await raw(sandbox.inboxUrl!, {});
    expect(page.status).toBe(200);
    const csp = String(page.headers['content-security-policy']);
    for (const part of [
      "default-src 'none'",
      "script-src 'self'",
      "require-trusted-types-for 'script'",
      "frame-ancestors 'none'",
    ])
      expect(csp).toContain(part);
    expect(csp).not.toContain('unsafe');
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    expect(page.body).not.toMatch(/<script>| on\w+=/);

    const rebound = await raw(sandbox.inboxUrl!, { headers: { host: 'evil.example:80' } });
    expect(rebound.status).toBe(421);
    const controls = `${sandbox.url}/inbox/api/controls`;
    const body = JSON.stringify({ balance: 0 });
    const crossOrigin = await raw(controls, {
      method: 'POST',
      headers: { origin: 'https://evil.example', 'content-type': 'application/json' },
      body,
    });
    expect(crossOrigin.status).toBe(403);
    const form = await raw(controls, { method: 'POST', headers: { 'content-type': 'text/plain' }, body });
    expect(form.status).toBe(415);
    expect(sandbox.simulator.balance).toBe(Number.POSITIVE_INFINITY);
    const ok = await raw(controls, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect(ok.status).toBe(200);
    expect(sandbox.simulator.balance).toBe(0);
  });

  it('is off unless asked for', async () => {
    sandbox = await startSandbox();
    expect(sandbox.inboxUrl).toBeUndefined();
    expect((await fetch(`${sandbox.url}/`)).status).toBe(404);
  });
});

describe('inbox page files', () => {
  // The budget, gzipped: the inbox page (script + style) and the template preview page, which carries
  // validateTemplate and the zod it is built on (zod's locales left out).
  const BUDGET = { inbox: 12 * 1024, preview: 75 * 1024 };

  it('stay within the size budget', async () => {
    const files = await bundleInboxAssets();
    const gz = (name: string) => gzipSync(files[name]!).byteLength;
    const inbox = gz('inbox.js') + gz('inbox.css');
    const preview = gz('preview.js') + gz('inbox.css');
    console.log(
      `inbox page ${inbox} B gzipped (budget ${BUDGET.inbox}); preview page ${preview} B (budget ${BUDGET.preview})`,
    );
    expect(inbox).toBeLessThanOrEqual(BUDGET.inbox);
    expect(preview).toBeLessThanOrEqual(BUDGET.preview);
    expect(files['preview.js']).toContain('WA_TPL_0');
  });

  it('never turn a string into HTML: no HTML sink anywhere in the page sources', () => {
    const dir = join(import.meta.dirname, '../../src/testing/sandbox/inbox/client');
    for (const file of readdirSync(dir)) {
      const source = readFileSync(join(dir, file), 'utf8');
      expect(source, file).not.toMatch(
        /innerHTML|outerHTML|insertAdjacentHTML|document\.write|\beval\(|new Function/,
      );
    }
  });
});
