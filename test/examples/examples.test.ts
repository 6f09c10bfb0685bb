/**
 * Runs every example that can run offline, so an example that drifts from the SDK fails here: the webhook apps on
 * real sockets receiving the sandbox's deliveries, the bulk send and the media download against the sandbox, the
 * template form against msw, the Next.js route handler with plain `Request`s, and the two platform examples
 * against a small fake platform on 127.0.0.1.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve } from '@hono/node-server';
import { setupServer } from 'msw/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTemplate, main as createTemplateMain, toFormErrors } from '../../examples/create-template.js';
import { main as downloadMedia } from '../../examples/download-media-to-file.js';
import { createApp as createExpressApp } from '../../examples/express-webhook.js';
import { createApp as createHonoApp } from '../../examples/hono-webhook.js';
import { POST } from '../../examples/nextjs-route-handler.js';
import { main as platformReport } from '../../examples/platform-report.js';
import { readRecipients, main as sendBulk } from '../../examples/send-bulk-template.js';
import { main as streamToFile } from '../../examples/stream-messages-to-file.js';
import {
  ConfigurationError,
  GatewayClient,
  PublicApiClient,
  type TemplateCreateRequest,
  UnprocessableEntityError,
} from '../../src/index.js';
import {
  createPublicApiHandlers,
  deliverWebhook,
  imageMessage,
  messageEnvelope,
  type Sandbox,
  startSandbox,
  statusEnvelope,
  statusObject,
  textMessage,
} from '../../src/testing/index.js';
import { type MessageEvent, parseWebhook, StatusTracker } from '../../src/webhooks/index.js';
import { consoleLines } from '../helpers/capture-logger.js';

const SECRET = 'examples-webhook-secret-0123456789abcdef';
const API_KEY = 'sk_test_sandbox';

function listen(server: Server): Promise<string> {
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`),
    ),
  );
}

function close(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
}

/** A queue whose next `enqueue` can be made to fail, as a queue that is briefly down would. */
function testQueue() {
  const items: MessageEvent[] = [];
  let failures = 0;
  return {
    items,
    failNext: (n: number) => {
      failures = n;
    },
    enqueue: async (event: MessageEvent) => {
      if (failures > 0) {
        failures--;
        throw new Error('queue unavailable');
      }
      items.push(event);
    },
  };
}

type AppOptions = { secret: string; tracker: StatusTracker; queue: ReturnType<typeof testQueue> };

const webhookApps: [string, (o: AppOptions) => Promise<Server>][] = [
  ['express-webhook', async (o) => createServer(createExpressApp(o))],
  [
    'hono-webhook',
    (o) =>
      new Promise<Server>((resolve) => {
        const app = createHonoApp(o);
        const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () =>
          resolve(server as Server),
        );
      }),
  ],
];

describe.each(webhookApps)('examples/%s', (_name, start) => {
  const tracker = new StatusTracker();
  const queue = testQueue();
  let server: Server;
  let webhookUrl: string;
  let sandbox: Sandbox;

  beforeAll(async () => {
    server = await start({ secret: SECRET, tracker, queue });
    if (!server.listening) await listen(server);
    webhookUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`;
    sandbox = await startSandbox({
      webhookUrl,
      webhookSecret: SECRET,
      statusDelaysMs: [10, 30, 50],
      retryDelaysMs: [0, 20, 40],
    });
  });
  afterAll(async () => {
    await sandbox.close();
    await close(server);
  });

  it('tracks sent, delivered and read for a message sent through the sandbox', async () => {
    const gw = new GatewayClient({ apiKey: API_KEY, baseUrl: sandbox.url });
    const { messageId } = await gw.messages.send({ to: '998901234567', type: 'text', text: { body: 'Hi' } });
    await sandbox.idle();
    // Arrival order is not guaranteed (nor is it by the gateway): the tracker's result must not depend on it.
    expect(sandbox.deliveries.map((d) => `${d.label} ${d.status} ${d.outcome}`).sort()).toEqual([
      'status:delivered 200 delivered',
      'status:read 200 delivered',
      'status:sent 200 delivered',
    ]);
    expect(tracker.get(messageId)).toMatchObject({ status: 'read', delivered: true, billable: true });
    expect(tracker.get(messageId)?.sentAt).toBeTypeOf('number');
  });

  it('hands incoming messages to the queue', async () => {
    const attempts = await sandbox.injectMessage(textMessage({ text: { body: 'where is my order?' } }));
    expect(attempts.map((a) => a.status)).toEqual([200]);
    const last = queue.items.at(-1);
    expect(last?.message.type === 'text' && last.message.text.body).toBe('where is my order?');
  });

  it('answers 500 when the queue fails, so the gateway retries, and processes the event once', async () => {
    const before = queue.items.length;
    queue.failNext(1);
    // The example logs with the SDK's default (console) logger: what it prints is captured and asserted here.
    const { result: attempts, lines } = await consoleLines(() => sandbox.injectMessage(textMessage()));
    expect(attempts.map((a) => [a.status, a.outcome])).toEqual([
      [500, 'retrying'],
      [200, 'delivered'],
    ]);
    expect(lines).toEqual([expect.stringMatching(/^\[wa-gateway webhooks\] onEvent failed; answering 500/)]);
    expect(queue.items).toHaveLength(before + 1);
  });

  it('accepts a batched delivery over 100 kB (the default express.json() limit)', async () => {
    const messages = Array.from({ length: 300 }, () => textMessage({ text: { body: 'x'.repeat(500) } }));
    const body = JSON.stringify(messageEnvelope(messages));
    expect(body.length).toBeGreaterThan(150_000);
    const before = queue.items.length;
    const attempts = await deliverWebhook(body, { url: webhookUrl, secret: SECRET });
    expect(attempts.map((a) => a.status)).toEqual([200]);
    expect(queue.items).toHaveLength(before + 300);
  });

  it('refuses a delivery with the wrong secret (401)', async () => {
    const { result: attempts, lines } = await consoleLines(() =>
      deliverWebhook(JSON.stringify(statusEnvelope(statusObject('read'))), {
        url: webhookUrl,
        secret: 'not-the-secret-0123456789abcdefghij',
      }),
    );
    expect(attempts.map((a) => [a.status, a.outcome])).toEqual([[401, 'lost']]);
    expect(lines).toEqual([
      expect.stringMatching(
        /^\[wa-gateway webhooks\] Webhook request refused with 401: the Bearer token is not/,
      ),
    ]);
  });
});

describe('examples/nextjs-route-handler', () => {
  const request = (authorization: string | undefined, body: object) =>
    new Request('http://localhost/api/webhooks/whatsapp', {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(authorization ? { authorization } : {}) },
      body: JSON.stringify(body),
    });
  const saved = process.env['WEBHOOK_SECRET'];
  afterAll(() => {
    if (saved === undefined) delete process.env['WEBHOOK_SECRET'];
    else process.env['WEBHOOK_SECRET'] = saved;
  });

  it('imports without the secret (next build) and fails loudly on a request until it is set', async () => {
    delete process.env['WEBHOOK_SECRET'];
    await expect(POST(request(`Bearer ${SECRET}`, messageEnvelope(textMessage())))).rejects.toBeInstanceOf(
      ConfigurationError,
    );
  });

  it('answers 200 to a delivery with the Bearer secret and 401 without it', async () => {
    process.env['WEBHOOK_SECRET'] = SECRET;
    const ok = await POST(request(`Bearer ${SECRET}`, messageEnvelope(textMessage())));
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ ok: true });
    expect((await POST(request(`Bearer ${SECRET}`, statusEnvelope(statusObject('delivered'))))).status).toBe(
      200,
    );
    const { lines } = await consoleLines(async () => {
      expect((await POST(request(undefined, messageEnvelope(textMessage())))).status).toBe(401);
      expect((await POST(request('Bearer wrong-secret', messageEnvelope(textMessage())))).status).toBe(401);
    });
    expect(lines).toEqual([
      expect.stringMatching(
        /^\[wa-gateway webhooks\] Webhook request refused with 401: no Authorization header/,
      ),
      expect.stringMatching(
        /^\[wa-gateway webhooks\] Webhook request refused with 401: the Bearer token is not/,
      ),
    ]);
  });
});

describe('examples/send-bulk-template', () => {
  const csv = [
    'phone,name,language',
    '+998 90 123-45-01,Ali,en_US',
    '998901234502,Vali,ru',
    '998901234503,,',
    '0901234504,Local number,en_US',
    '998901234505,Gulnora,uz',
    '',
    '998901234506,Olim,en_US',
  ];
  async function* lines() {
    yield* csv;
  }
  let sandbox: Sandbox | undefined;
  afterAll(async () => {
    await sandbox?.close();
  });

  it('sends each valid row once and sorts the rest into not sent and failed', async () => {
    sandbox = await startSandbox({ templates: { spring_sale: ['en_US', 'ru'] } });
    const summary = await sendBulk({
      baseUrl: sandbox.url,
      apiKey: API_KEY,
      recipients: readRecipients(lines()),
      concurrency: 3,
    });
    expect(summary.total).toBe(6);
    expect(summary.sent).toBe(4);
    expect(summary.notSent.invalid.map((x) => x.recipient.line)).toEqual([5]);
    expect(summary.notSent.balance).toEqual([]);
    expect(summary.failed.map((x) => [x.recipient.line, x.error.name])).toEqual([[6, 'UpstreamError']]);
    const sent = sandbox.simulator.sent;
    expect(sent.map((m) => m.to).sort()).toEqual([
      '998901234501',
      '998901234502',
      '998901234503',
      '998901234506',
    ]);
    expect(sent.every((m) => m.mmlite && m.type === 'template')).toBe(true);
    type TemplateBody = { template: { components: { parameters: { text: string }[] }[] } };
    const nameOf = (to: string) => {
      const body = sent.find((m) => m.to === to)?.body as TemplateBody | undefined;
      return body?.template.components[0]?.parameters[0]?.text;
    };
    expect(nameOf('998901234501')).toBe('Ali');
    expect(nameOf('998901234503')).toBe('there');
    await sandbox.close();
    sandbox = undefined;
  });

  it('reports every row as not sent when the balance is exhausted (BILL_001), and sends nothing', async () => {
    sandbox = await startSandbox({ balance: 0 });
    const summary = await sendBulk({
      baseUrl: sandbox.url,
      apiKey: API_KEY,
      recipients: readRecipients(lines()),
      concurrency: 2,
    });
    expect(summary.total).toBe(6);
    expect(summary.sent).toBe(0);
    expect(summary.notSent.balance).toHaveLength(6);
    expect(sandbox.simulator.sent).toEqual([]);
    expect(sandbox.simulator.answered['BILL_001']).toBeGreaterThanOrEqual(1);
  });
});

describe('examples/create-template', () => {
  const baseUrl = 'https://api.examples.test/api/v1';
  const secretKey = 'sk_org_examples_0123456789';
  const api = createPublicApiHandlers({ baseUrl, secretKeys: [secretKey], appIds: ['app_1'] });
  const server = setupServer(...api.handlers);
  let requests = 0;
  server.events.on('request:start', () => {
    requests++;
  });
  // Scoped to this block: the other examples talk to real sockets on 127.0.0.1.
  beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
  afterAll(() => server.close());

  const valid = {
    name: 'spring_sale',
    language: 'en_US',
    category: 'MARKETING',
    body: { text: 'Hi {{1}}, everything is 20% off this week.', examples: ['Ali'] },
  };
  const broken = {
    name: 'Spring Sale',
    language: 'en_US',
    category: 'MARKETING',
    body: { text: 'Hi {{1}}, your code is {{2}}', examples: ['Ali'] },
    buttons: [{ type: 'URL', text: 'Shop', url: 'http://shop.example.com' }],
  };

  it('creates a valid template', async () => {
    const outcome = await createTemplateMain({ baseUrl, secretKey, appId: 'app_1', draft: valid });
    expect(outcome).toMatchObject({ ok: true, template: { name: 'spring_sale', status: 'PENDING' } });
    expect(api.created).toHaveLength(1);
  });

  it('maps an invalid template to form errors by field, without a request', async () => {
    const before = requests;
    const outcome = await createTemplateMain({ baseUrl, secretKey, appId: 'app_1', draft: broken });
    expect(requests).toBe(before);
    if (outcome.ok) throw new Error('expected form errors');
    expect(outcome.reason).toBe('invalid');
    expect(Object.keys(outcome.errors)).toEqual(
      expect.arrayContaining(['name', 'body.examples', 'buttons.url']),
    );
    for (const messages of Object.values(outcome.errors)) expect(messages[0]).toMatch(/\w/);
  });

  it("maps the server's 422 with the same function, to the same fields", async () => {
    const client = new PublicApiClient({ secretKey, baseUrl });
    const error = await client.templates
      .create('app_1', broken as unknown as TemplateCreateRequest, { validate: false })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(error).toBeInstanceOf(UnprocessableEntityError);
    const local = await createTemplate(client, 'app_1', broken);
    if (local.ok) throw new Error('expected form errors');
    expect(Object.keys(toFormErrors((error as UnprocessableEntityError).issues)).sort()).toEqual(
      Object.keys(local.errors).sort(),
    );
  });

  it('turns a duplicate name and language into an error on the name field', async () => {
    const outcome = await createTemplateMain({ baseUrl, secretKey, appId: 'app_1', draft: valid });
    expect(outcome).toMatchObject({ ok: false, reason: 'conflict', errors: { name: [expect.any(String)] } });
    expect(api.created).toHaveLength(1);
  });
});

describe('examples/download-media-to-file', () => {
  const bytes = new Uint8Array(randomBytes(256 * 1024));
  let sandbox: Sandbox;
  let dir: string;
  const imageEvent = (id: string): MessageEvent => {
    const [event] = parseWebhook(
      messageEnvelope(imageMessage({ image: { id, mime_type: 'image/jpeg', sha256: 'f'.repeat(64) } })),
    );
    if (event?.kind !== 'message') throw new Error('expected a message event');
    return event;
  };

  beforeAll(async () => {
    sandbox = await startSandbox({
      media: { 'media.example/1': { contentType: 'image/jpeg', body: bytes } },
    });
    dir = await mkdtemp(join(tmpdir(), 'wa-examples-media-'));
  });
  afterAll(async () => {
    await sandbox.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('saves the bytes under a safe name and leaves no partial file', async () => {
    const outcome = await downloadMedia({
      baseUrl: sandbox.url,
      apiKey: API_KEY,
      event: imageEvent('media.example/1'),
      dir,
    });
    expect(outcome).toEqual({
      saved: true,
      path: join(dir, 'media.example_1.jpg'),
      bytes: bytes.byteLength,
      contentType: 'image/jpeg',
    });
    expect(new Uint8Array(await readFile(join(dir, 'media.example_1.jpg')))).toEqual(bytes);
    expect(await readdir(dir)).toEqual(['media.example_1.jpg']);
  });

  it('reports an expired or unknown media id as gone', async () => {
    const outcome = await downloadMedia({
      baseUrl: sandbox.url,
      apiKey: API_KEY,
      event: imageEvent('nope'),
      dir,
    });
    expect(outcome).toEqual({ saved: false, reason: 'gone' });
  });

  it.each([
    [404, ''],
    [501, 'Not Implemented'],
  ])(
    'reports a gateway that does not serve media yet (%i without a code) as not live',
    async (status, body) => {
      const server = createServer((_req, res) =>
        res.writeHead(status, { 'content-type': 'text/plain' }).end(body),
      );
      const url = await listen(server);
      try {
        const outcome = await downloadMedia({
          baseUrl: url,
          apiKey: API_KEY,
          event: imageEvent('media.1'),
          dir,
        });
        expect(outcome).toEqual({ saved: false, reason: 'not_live' });
      } finally {
        await close(server);
      }
    },
  );
});

/** A fake conversation platform: login, the NDJSON message stream, reports and stats. */
describe('platform examples against a fake platform on 127.0.0.1', () => {
  const TOKEN = 'examples-platform-token-0123456789';
  const T0 = Date.parse('2024-05-01T00:00:00Z');
  const HOUR = 3_600_000;
  // Ten days, one message every six hours: more than one week, so streamRange needs two requests.
  const records = Array.from({ length: 40 }, (_, i) => ({
    id: i + 1,
    created_at: new Date(T0 + i * 6 * HOUR).toISOString(),
    conversation: { uuid: '3f2b8c1e-4d5a-4b6c-9e7f-0a1b2c3d4e5f' },
    channel: { uuid: '0c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f', name: 'WhatsApp' },
    type: 'text',
    agent: null,
    customer: {},
    content: `message ${i + 1}`,
  }));
  const periods = (today: number) => ({ today, yesterday: 0, wtd: today, mtd: today });
  const sums = (sum: number | null, count: number) => {
    const p = { sum, count };
    return { today: p, yesterday: { sum: null, count: 0 }, wtd: p, mtd: p };
  };
  const channel = (uuid: string, frtSum: number, frtCount: number) => ({
    uuid,
    name: uuid,
    stats: {
      messages: { received: periods(10), sent: periods(7) },
      customers: { new: periods(1), total: periods(50) },
      response_times: { frt: sums(frtSum, frtCount), art: sums(frtSum * 2, frtCount) },
      agents: [
        {
          uuid: 'agent-1',
          name: 'Dilnoza',
          joined: periods(3),
          viewed: periods(4),
          sent: periods(7),
          frt: sums(frtSum, frtCount),
          art: sums(frtSum * 2, frtCount),
        },
      ],
    },
  });
  const streamRequests: URLSearchParams[] = [];
  const authorizations = new Set<string>();
  let server: Server;
  let url: string;

  function answer(req: IncomingMessage, res: ServerResponse, body: string) {
    const u = new URL(req.url ?? '/', 'http://platform');
    const json = (data: unknown) =>
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(data));
    if (req.method === 'POST' && u.pathname === '/jwt/') {
      const { username, password } = JSON.parse(body) as { username: string; password: string };
      if (username !== 'reporter' || password !== 'correct horse') {
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ non_field_errors: ['Unable to log in with provided credentials.'] }));
        return;
      }
      json({ token: TOKEN, account: { uuid: 'acc-1' }, otp: false, client: { device_id: 'd1' } });
      return;
    }
    authorizations.add(req.headers.authorization ?? '');
    if (u.pathname === '/stream/messages/') {
      streamRequests.push(u.searchParams);
      const gt = Date.parse(u.searchParams.get('created_at__gt') ?? '');
      const lt = Date.parse(u.searchParams.get('created_at__lt') ?? '');
      const lines = records.filter((r) => Date.parse(r.created_at) > gt && Date.parse(r.created_at) < lt);
      res.writeHead(200, { 'content-type': 'application/x-ndjson' });
      res.end(lines.map((r) => `${JSON.stringify(r)}\n`).join(''));
      return;
    }
    if (u.pathname === '/reports/' && u.searchParams.get('data') === 'messages') {
      json({
        messages: [{ date: '2024-05-01', outgoing_messages: 12, incoming_messages: 30, total_messages: 42 }],
      });
      return;
    }
    if (u.pathname === '/reports/' && u.searchParams.get('data') === 'response_times') {
      json({ response_times: [{ date: '2024-05-01', first_response_time: 95, avg_response_time: 30 }] });
      return;
    }
    if (u.pathname === '/stats') {
      // 100 s over 1 response and 20 s over 4: the account average is 120 / 5 = 24 s, not (100 + 5) / 2.
      json([channel('channel-a', 100, 1), channel('channel-b', 20, 4)]);
      return;
    }
    res.writeHead(404).end();
  }

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => {
        body += c.toString('utf8');
      });
      req.on('end', () => answer(req, res, body));
    });
    url = await listen(server);
  });
  afterAll(() => close(server));

  it('stream-messages-to-file writes a range longer than a week to NDJSON, each message once', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'wa-examples-stream-'));
    try {
      const out = join(dir, 'messages.ndjson');
      const progress: number[] = [];
      const done = await streamToFile({
        client: { platformUrl: url, streamUrl: url, username: 'reporter', password: 'correct horse' },
        from: new Date(T0),
        to: new Date(T0 + 10 * 24 * HOUR),
        out,
        onProgress: (p) => progress.push(p.count),
      });
      expect(streamRequests).toHaveLength(2);
      expect(authorizations).toEqual(new Set([`JWT ${TOKEN}`]));
      const lines = (await readFile(out, 'utf8')).trimEnd().split('\n');
      expect(lines.map((l) => (JSON.parse(l) as { id: number }).id)).toEqual(records.map((r) => r.id));
      expect(done).toMatchObject({ count: 40, lastCreatedAt: records.at(-1)?.created_at, path: out });
      expect(progress.at(-1)).toBe(40);
      expect(await readdir(dir)).toEqual(['messages.ndjson']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('platform-report prints the week and the stats tables, never the token', async () => {
    const report = await platformReport({
      client: { platformUrl: url, streamUrl: url, username: 'reporter', password: 'correct horse' },
    });
    expect(report).toContain('logged in: account acc-1');
    expect(report).toMatch(/2024-05-01\s+30\s+12\s+42\s+1m 35s\s+30s/);
    expect(report).toMatch(/today\s+20\s+14\s+24s\s+48s/);
    expect(report).toMatch(/Dilnoza\s+6\s+14\s+24s\s+48s/);
    expect(report).not.toContain(TOKEN);
  });

  it('platform-report fails at login with the server reasons when the password is wrong', async () => {
    await expect(
      platformReport({
        client: { platformUrl: url, streamUrl: url, username: 'reporter', password: 'wrong' },
      }),
    ).rejects.toMatchObject({
      name: 'LoginFailedError',
      reasons: ['Unable to log in with provided credentials.'],
    });
  });
});
