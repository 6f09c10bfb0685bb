import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { GatewayClient } from '../../src/index.js';
import { deliverWebhook, type Sandbox, startSandbox, textMessage } from '../../src/testing/index.js';
import { SANDBOX_MAX_BODY_BYTES } from '../../src/testing/sandbox/routes.js';
import { createNodeWebhookHandler, parseWebhook, type WebhookEvent } from '../../src/webhooks/index.js';
import { closeAll } from '../helpers/close-all.js';
import { startServer } from '../helpers/http-server.js';

const SECRET = 'sandbox-test-secret-0123456789abcdefgh';
let sandbox: Sandbox | undefined;
let receiver: Server | undefined;
afterEach(async () => {
  await closeAll(sandbox, receiver);
  sandbox = receiver = undefined;
});

/** A webhook endpoint answering with the statuses listed, in turn (the last repeats), recording requests. */
async function endpoint(statuses: number[] = [200]) {
  const seen: { auth: string | undefined; body: string; at: number }[] = [];
  receiver = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push({
        auth: req.headers.authorization,
        body: Buffer.concat(chunks).toString(),
        at: performance.now(),
      });
      res.writeHead(statuses[Math.min(seen.length - 1, statuses.length - 1)]!).end();
    });
  });
  await new Promise<void>((r) => receiver!.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`, seen };
}

describe('startSandbox', () => {
  it('delivers sent → delivered → read with the Bearer secret to a real webhook handler, and charges the fee', async () => {
    const events: WebhookEvent[] = [];
    const handler = createNodeWebhookHandler({ secret: SECRET, onEvent: (e) => void events.push(e) });
    receiver = createServer((req, res) => handler(req, res));
    await new Promise<void>((r) => receiver!.listen(0, '127.0.0.1', r));
    sandbox = await startSandbox({
      webhookUrl: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/`,
      webhookSecret: SECRET,
      balance: 10,
      statusDelaysMs: [10, 20, 30],
    });
    const gw = new GatewayClient({ apiKey: 'sk_test_sandbox', baseUrl: sandbox.url });
    const { messageId } = await gw.messages.send({ to: '998901234567', type: 'text', text: { body: 'Hi' } });
    await sandbox.idle();
    // The spec does not promise arrival order ("consumers order them by timestamp"): neither does this test.
    const statuses = events.flatMap((e) => (e.kind === 'status' ? [e.status] : []));
    expect(statuses.map((s) => [s.id, s.status]).sort()).toEqual([
      [messageId, 'delivered'],
      [messageId, 'read'],
      [messageId, 'sent'],
    ]);
    const byTimestamp = [...statuses].sort((a, b) => Number(a.timestamp) - Number(b.timestamp));
    expect(byTimestamp.map((s) => s.status)).toEqual(['sent', 'delivered', 'read']);
    expect(sandbox.deliveries.every((d) => d.outcome === 'delivered' && d.status === 200)).toBe(true);
    expect(sandbox.simulator.balance).toBe(9);
  });

  it('an is_fake send produces no webhook', async () => {
    const hook = await endpoint();
    sandbox = await startSandbox({
      webhookUrl: hook.url,
      webhookSecret: SECRET,
      statusDelaysMs: [5, 10, 15],
    });
    await new GatewayClient({ apiKey: 'sk_test_sandbox', baseUrl: sandbox.url }).messages.send(
      { to: '998901234567', type: 'text', text: { body: 'Hi' } },
      { isFake: true },
    );
    // The send's answer comes after its status events were scheduled, so idle() covers them: no sleep needed.
    await sandbox.idle();
    expect(sandbox.simulator.sent).toHaveLength(1);
    expect(hook.seen).toHaveLength(0);
  });

  it('injects an incoming message that parses into a typed event', async () => {
    const hook = await endpoint();
    sandbox = await startSandbox({ webhookUrl: hook.url, webhookSecret: SECRET });
    await sandbox.injectMessage(textMessage({ text: { body: 'hello from a user' } }));
    expect(hook.seen[0]?.auth).toBe(`Bearer ${SECRET}`);
    const [event] = parseWebhook(hook.seen[0]!.body);
    expect(event?.kind === 'message' && event.message.type === 'text' && event.message.text.body).toBe(
      'hello from a user',
    );
  });
});

describe('the sandbox names the message each delivery is about', () => {
  it("a status delivery's attempts carry the sent message's wamid, an incoming message's its own id", async () => {
    const hook = await endpoint([404]);
    const seen: (string | undefined)[] = [];
    sandbox = await startSandbox({
      webhookUrl: hook.url,
      webhookSecret: SECRET,
      statusDelaysMs: [5, 10, 15],
      onDelivery: (a) => void seen.push(a.wamid),
    });
    const gw = new GatewayClient({ apiKey: 'sk_test_sandbox', baseUrl: sandbox.url });
    const first = await gw.messages.send({ to: '998901234567', type: 'text', text: { body: 'a' } });
    const second = await gw.messages.send({ to: '998907654321', type: 'text', text: { body: 'b' } });
    await sandbox.idle();
    const byWamid = (wamid: string) =>
      sandbox!.deliveries
        .filter((d) => d.wamid === wamid)
        .map((d) => `${d.label} ${d.outcome}`)
        .sort();
    for (const { messageId } of [first, second])
      expect(byWamid(messageId)).toEqual(['status:delivered lost', 'status:read lost', 'status:sent lost']);
    expect(seen).toEqual(sandbox.deliveries.map((d) => d.wamid));
    const [incoming] = await sandbox.injectMessage(textMessage({ id: 'wamid.INCOMING1' }));
    expect(incoming).toMatchObject({ label: 'message:text', wamid: 'wamid.INCOMING1' });
  });

  it('deliverWebhook records the wamid it is given on every attempt, and refuses one that is not a string', async () => {
    const hook = await endpoint([503, 200]);
    const attempts = await deliverWebhook('{}', {
      url: hook.url,
      wamid: 'wamid.GIVEN',
      retryDelaysMs: [0, 1],
    });
    expect(attempts.map((a) => [a.attempt, a.wamid])).toEqual([
      [1, 'wamid.GIVEN'],
      [2, 'wamid.GIVEN'],
    ]);
    expect((await deliverWebhook('{}', { url: hook.url }))[0]).not.toHaveProperty('wamid');
    await expect(deliverWebhook('{}', { url: hook.url, wamid: 42 as never })).rejects.toThrow(
      'deliverWebhook: `wamid` must be a string',
    );
    expect(hook.seen).toHaveLength(3);
  });
});

describe('the sandbox refuses what the gateway refuses', () => {
  it('refuses a body over its limit with 413, after reading it, and keeps serving', async () => {
    sandbox = await startSandbox();
    // A real send padded with JSON whitespace to the size wanted.
    const send = JSON.stringify({
      messaging_product: 'whatsapp',
      to: '998901234567',
      type: 'text',
      text: { body: 'padded' },
    });
    const post = (bytes: number) =>
      fetch(`${sandbox!.url}/v1/wa/message`, {
        method: 'POST',
        headers: { authorization: 'Bearer sk_test_sandbox', 'content-type': 'application/json' },
        body: send.padEnd(bytes, ' '),
      });
    const over = await post(SANDBOX_MAX_BODY_BYTES + 1);
    expect(over.status).toBe(413);
    expect(await over.json()).toEqual({
      error: `the request body is larger than ${SANDBOX_MAX_BODY_BYTES} bytes`,
    });
    // At the limit the body is read and sent.
    const atLimit = await post(SANDBOX_MAX_BODY_BYTES);
    expect(atLimit.status).toBe(200);
    expect(sandbox.simulator.sent.map((m) => m.body['text'])).toEqual([{ body: 'padded' }]);
    const gw = new GatewayClient({ apiKey: 'sk_test_sandbox', baseUrl: sandbox.url });
    const sent = await gw.messages.send({ to: '998901234567', type: 'text', text: { body: 'still here' } });
    expect(sent.messageId).toMatch(/^wamid\./);
  });

  const post = (url: string, body: unknown) =>
    fetch(`${url}/v1/wa/message`, {
      method: 'POST',
      headers: { authorization: 'Bearer sk_test_sandbox', 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  const text = { to: '998901234567', type: 'text', text: { body: 'Hi' } };

  it.each([
    ['missing', text],
    ['wrong', { messaging_product: 'sms', ...text }],
    ['not lowercase', { messaging_product: 'WhatsApp', ...text }],
    ['not a string', { messaging_product: 1, ...text }],
  ])('messaging_product %s: 502 GW_001 (the upstream refuses it), nothing sent', async (_, body) => {
    const sends: unknown[] = [];
    sandbox = await startSandbox({ onSend: (s) => void sends.push(s) });
    const res = await post(sandbox.url, body);
    expect(res.status).toBe(502);
    expect(await res.json()).toMatchObject({
      isSuccess: false,
      errors: {
        code: 'GW_001',
        group: 'UPSTREAM_ERROR',
        description: expect.stringContaining('messaging_product'),
      },
    });
    expect(sandbox.simulator.sent).toHaveLength(0);
    expect(sends).toEqual([
      { status: 502, error: { code: 'GW_001', description: expect.stringContaining('messaging_product') } },
    ]);
  });

  it('the constant is configurable, like the client; the SDK and a raw body carrying it are accepted', async () => {
    sandbox = await startSandbox({ messagingProduct: 'wa' });
    expect((await post(sandbox.url, { messaging_product: 'whatsapp', ...text })).status).toBe(502);
    const ok = await post(sandbox.url, { messaging_product: 'wa', ...text });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ data: { messaging_product: 'wa' } });
    const gw = new GatewayClient({ apiKey: 'sk_test_sandbox', baseUrl: sandbox.url, messagingProduct: 'wa' });
    await expect(
      gw.messages.send({ to: '998901234567', type: 'text', text: { body: 'Hi' } }),
    ).resolves.toMatchObject({
      messageId: expect.stringMatching(/^wamid\./),
    });
  });

  it('a message the local rules refuse is refused by the sandbox too (GW_001), and reported to onSend', async () => {
    const sends: { status: number; error?: { code: string } }[] = [];
    sandbox = await startSandbox({ onSend: (s) => void sends.push(s) });
    const res = await post(sandbox.url, { messaging_product: 'whatsapp', ...text, to: '+998 90' });
    expect(res.status).toBe(502);
    expect(sends.map((s) => [s.status, s.error?.code])).toEqual([[502, 'GW_001']]);
  });

  it('an id with a malformed % escape is a 400 in the envelope (not an empty 500), and the sandbox keeps serving', async () => {
    const files = { 'a b': { contentType: 'text/plain', body: 'hello' } };
    sandbox = await startSandbox({ media: files });
    const auth = { authorization: 'Bearer sk_test_sandbox' };
    const media = await fetch(`${sandbox.url}/v1/wa/media/%E0?phone_number_id=1`, { headers: auth });
    expect(media.status).toBe(400);
    expect(await media.json()).toEqual({
      isSuccess: false,
      errors: {
        code: 'BAD_REQUEST',
        group: 'BAD_REQUEST',
        description: 'The media id in the path has a malformed percent-escape.',
      },
    });
    const template = await fetch(`${sandbox.url}/api/v1/wa/app%ZZ/templates`, {
      method: 'POST',
      headers: { authorization: 'Bearer sk_org_sandbox', 'content-type': 'application/json' },
      body: '{}',
    });
    expect(template.status).toBe(400);
    expect(await template.json()).toMatchObject({
      isSuccess: false,
      errors: { code: 'REQ_001', group: 'VALIDATION' },
    });
    expect(sandbox.templates.templates).toHaveLength(0);
    // A well-formed escape still names its media.
    const served = await fetch(`${sandbox.url}/v1/wa/media/a%20b?phone_number_id=1`, { headers: auth });
    expect([served.status, await served.text()]).toEqual([200, 'hello']);
  });
});

describe('deliverWebhook: the gateway delivery rules', () => {
  it('retries a 5xx after 1 s, then stops at the 200', async () => {
    const hook = await endpoint([503, 200]);
    const attempts = await deliverWebhook('{}', { url: hook.url, secret: SECRET });
    expect(attempts.map((a) => [a.attempt, a.status, a.outcome])).toEqual([
      [1, 503, 'retrying'],
      [2, 200, 'delivered'],
    ]);
    expect(hook.seen[1]!.at - hook.seen[0]!.at).toBeGreaterThanOrEqual(990);
  });

  it('a 4xx is final: one attempt, the event is lost', async () => {
    const hook = await endpoint([422]);
    const attempts = await deliverWebhook('{}', { url: hook.url });
    expect(attempts.map((a) => a.outcome)).toEqual(['lost']);
    expect(hook.seen).toHaveLength(1);
  });

  it('three failures drop the event, at 0, +1 s and +2 s', async () => {
    const hook = await endpoint([500]);
    const attempts = await deliverWebhook('{}', { url: hook.url });
    expect(attempts.map((a) => a.outcome)).toEqual(['retrying', 'retrying', 'dropped']);
    const gaps = [hook.seen[1]!.at - hook.seen[0]!.at, hook.seen[2]!.at - hook.seen[1]!.at];
    expect(gaps[0]).toBeGreaterThanOrEqual(990);
    expect(gaps[1]).toBeGreaterThanOrEqual(1990);
  });

  it.each([302, 307, 308])(
    'a %i is not followed: one attempt, lost, saying where it pointed without its query; nothing reaches that host',
    async (status) => {
      const elsewhere: string[] = [];
      const other = await startServer((req, res, body) => {
        elsewhere.push(`${req.method} ${req.url} ${body}`);
        res.writeHead(200).end();
      });
      try {
        receiver = createServer((req, res) => {
          req.resume();
          res.writeHead(status, { location: `${other.url}/collect?key=LOCATIONSECRET#frag` }).end();
        });
        await new Promise<void>((r) => receiver!.listen(0, '127.0.0.1', r));
        const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
        const attempts = await deliverWebhook('{"customer":"998901234567"}', { url, secret: SECRET });
        expect(attempts.map((a) => [a.status, a.outcome, a.location])).toEqual([
          [status, 'lost', `${other.url}/collect (query hidden)`],
        ]);
        expect(JSON.stringify(attempts)).not.toContain('LOCATIONSECRET');
        expect(elsewhere).toEqual([]);
      } finally {
        await other.close();
      }
    },
  );

  it('a redirect on the same host is not followed either: the secret goes to the given path only', async () => {
    const seen: { url: string | undefined; auth: string | undefined }[] = [];
    receiver = createServer((req, res) => {
      req.resume();
      seen.push({ url: req.url, auth: req.headers.authorization });
      if (req.url === '/hook') res.writeHead(301, { location: '/hook/' }).end();
      else res.writeHead(200).end();
    });
    await new Promise<void>((r) => receiver!.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    const attempts = await deliverWebhook('{}', { url, secret: SECRET });
    expect(attempts.map((a) => [a.status, a.outcome, a.location])).toEqual([[301, 'lost', `${url}/`]]);
    expect(seen).toEqual([{ url: '/hook', auth: `Bearer ${SECRET}` }]);
  });

  it('an endpoint that does not answer in time counts as a failure', async () => {
    receiver = createServer(() => {});
    await new Promise<void>((r) => receiver!.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/`;
    const attempts = await deliverWebhook('{}', { url, ackTimeoutMs: 100, retryDelaysMs: [0, 10] });
    expect(attempts.map((a) => [a.error, a.outcome])).toEqual([
      ['no answer within the acknowledgement timeout', 'retrying'],
      ['no answer within the acknowledgement timeout', 'dropped'],
    ]);
    receiver.closeAllConnections();
  });
});
