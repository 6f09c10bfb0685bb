/**
 * `POST /__sandbox/inject` and `sandbox.injectMessage`: a customer's message as a newcomer writes it arrives as that
 * message (its id and time filled in), and what no delivery could carry is refused with every problem named.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createRouter } from '../../src/conversations/index.js';
import { ConfigurationError, GatewayClient } from '../../src/index.js';
import { messageEnvelope, type Sandbox, startSandbox, textMessage } from '../../src/testing/index.js';
import { createNodeWebhookHandler, type WebhookEvent } from '../../src/webhooks/index.js';
import { closeAll } from '../helpers/close-all.js';

const SECRET = 'sandbox-inject-secret-0123456789abcdefgh';
let sandbox: Sandbox | undefined;
let receiver: Server | undefined;
afterEach(async () => {
  await closeAll(sandbox, receiver);
  sandbox = receiver = undefined;
});

/** A sandbox delivering to an app on the SDK's handler; `onEvent` may answer as a bot would. */
async function start(onEvent: (event: WebhookEvent) => unknown = () => undefined) {
  const events: WebhookEvent[] = [];
  const handler = createNodeWebhookHandler({
    secret: SECRET,
    logger: false,
    onEvent: async (e) => {
      events.push(e);
      await onEvent(e);
    },
  });
  receiver = createServer((req, res) => void handler(req, res));
  await new Promise<void>((r) => receiver!.listen(0, '127.0.0.1', r));
  sandbox = await startSandbox({
    webhookUrl: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/`,
    webhookSecret: SECRET,
  });
  return { sandbox, events };
}

const inject = (url: string, body: unknown, query = '') =>
  fetch(`${url}/__sandbox/inject${query}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

describe('POST /__sandbox/inject', () => {
  it('fills in a missing id and timestamp (a fresh wamid, now): the app gets a text message, not unknown', async () => {
    const { sandbox, events } = await start();
    const before = Math.floor(Date.now() / 1000);
    const res = await inject(sandbox.url, { from: '998901234567', type: 'text', text: { body: 'hi' } });
    expect(res.status).toBe(202);
    const { ids } = (await res.json()) as { ids: string[] };
    await sandbox.idle();
    expect(events).toHaveLength(1);
    const event = events[0]!;
    if (event.kind !== 'message' || event.message.type !== 'text') throw new Error(`got ${event.kind}`);
    expect(event.message.id).toBe(ids[0]);
    expect(event.message.id).toMatch(/^wamid\.SBXIN/);
    expect(event.timestamp).toBeGreaterThanOrEqual(before);
    expect(event.timestamp).toBeLessThanOrEqual(Math.floor(Date.now() / 1000));
    // An id and a time given are kept; a whole envelope's messages are filled the same way.
    await inject(sandbox.url, {
      from: '998901234567',
      id: 'wamid.MINE',
      timestamp: '1714554000',
      type: 'text',
      text: { body: 'x' },
    });
    const whole = messageEnvelope({ from: '998901234568', type: 'text', text: { body: 'y' } });
    expect((await inject(sandbox.url, whole)).status).toBe(202);
    await sandbox.idle();
    expect(events.slice(1).map((e) => e.kind === 'message' && [e.message.id, e.message.type])).toEqual([
      ['wamid.MINE', 'text'],
      [expect.stringMatching(/^wamid\.SBXIN/), 'text'],
    ]);
  });

  it.each([
    ['no sender', { type: 'text', text: { body: 'hi' } }, "from: the customer's number is required"],
    [
      'a sender as people write it',
      { from: '+998 90 123 45 67', type: 'text', text: { body: 'hi' } },
      'from: a number as the gateway writes it',
    ],
    ['no type', { from: '998901234567', text: { body: 'hi' } }, 'type: Expected a non-empty string'],
    ['a text without its text', { from: '998901234567', type: 'text' }, 'text: Invalid input'],
    [
      'an image without its id',
      { from: '998901234567', type: 'image', image: { mime_type: 'image/jpeg' } },
      'image.id',
    ],
    ['not an object', ['hi'], 'send an incoming message object'],
    ['a broken envelope', { object: 'whatsapp_business_account', entry: 'x' }, 'entry'],
  ])('%s: 400 naming the problem, nothing delivered', async (_, body, problem) => {
    const { sandbox, events } = await start();
    const res = await inject(sandbox.url, body);
    expect(res.status).toBe(400);
    const answer = (await res.json()) as { error: string; problems: string[] };
    expect(answer.error).toContain('not a message the gateway could deliver');
    expect(answer.problems.join('; ')).toContain(problem);
    await sandbox.idle();
    expect(events).toEqual([]);
  });

  it('a type the SDK does not know is a delivery a newer upstream makes: delivered, as unknown', async () => {
    const { sandbox, events } = await start();
    const res = await inject(sandbox.url, {
      from: '998901234567',
      type: 'poll',
      poll: { question: 'Lunch?' },
    });
    expect(res.status).toBe(202);
    await sandbox.idle();
    expect(events.map((e) => e.kind === 'message' && e.message.type)).toEqual(['unknown']);
    expect((await inject(sandbox.url, '{nope')).status).toBe(400);
  });

  it('?wait answers when the delivery is over, with its attempts and the replies the app sent the customer', async () => {
    let gw: GatewayClient | undefined;
    const router = createRouter({
      gateway: { messages: { send: (m) => gw!.messages.send(m) } },
    });
    router.otherwise(async (ctx) => {
      await ctx.reply(`You said: ${ctx.text}`);
      sandbox!.simulator.balance = 0; // the next reply is refused: BILL_001
      await ctx.reply('and more').catch(() => undefined);
    });
    const { sandbox } = await start((e) => router.handle(e));
    gw = new GatewayClient({ apiKey: 'sk_test_sandbox', baseUrl: sandbox.url, maxRetries: 0 });
    const res = await inject(
      sandbox.url,
      { from: '998901234567', type: 'text', text: { body: 'hello' } },
      '?wait',
    );
    expect(res.status).toBe(200);
    const answer = (await res.json()) as { attempts: { status: number }[]; replies: unknown[] };
    expect(answer.attempts).toMatchObject([{ status: 200, outcome: 'delivered' }]);
    expect(answer.replies).toMatchObject([
      {
        status: 200,
        wamid: expect.stringMatching(/^wamid\./),
        message: { to: '998901234567', text: { body: 'You said: hello' } },
      },
      { status: 402, error: expect.stringContaining('BILL_001'), message: { text: { body: 'and more' } } },
    ]);
  });
});

describe('sandbox.injectMessage', () => {
  it('fills in what is missing, and refuses what no delivery could carry with a ConfigurationError', async () => {
    const { sandbox, events } = await start();
    await sandbox.injectMessage({ from: '998901234567', type: 'text', text: { body: 'hi' } });
    expect(events.map((e) => e.kind === 'message' && e.message.type)).toEqual(['text']);
    await expect(sandbox.injectMessage({ type: 'text', text: { body: 'hi' } })).rejects.toBeInstanceOf(
      ConfigurationError,
    );
    await expect(sandbox.injectMessage({ from: '998901234567', type: 'text' })).rejects.toThrow(
      /not a message the gateway could deliver: text: .*use sandbox\.deliver\(envelope\)/,
    );
    // sandbox.deliver sends any envelope as it is, for a test of how the app meets a malformed one.
    await sandbox.deliver(messageEnvelope({ ...textMessage(), text: undefined }));
    expect(events.at(-1)).toMatchObject({
      kind: 'message',
      message: { type: 'unknown', originalType: 'text' },
    });
  });
});
