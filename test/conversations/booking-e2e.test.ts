/**
 * The booking bot of examples/booking-bot.ts against the sandbox over real sockets, on a real redis-server:
 * webhook deliveries drive a whole flow; a redelivery sends nothing twice; a closed window refuses locally.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { bookingRouter } from '../../examples/booking-bot.js';
import { GatewayClient, ServiceWindowClosedError } from '../../src/index.js';
import { RedisWindowStore } from '../../src/redis/index.js';
import { type Sandbox, startSandbox } from '../../src/testing/index.js';
import { buttonReplyMessage, messageEnvelope, textMessage } from '../../src/testing/webhook-fixtures.js';
import { createNodeWebhookHandler, type WebhookEnvelope } from '../../src/webhooks/index.js';
import { describeRedis, useRedis } from '../helpers/redis-server.js';

const SECRET = 'booking-e2e-webhook-secret-0123456789abcdef';
const nowS = () => String(Math.floor(Date.now() / 1000));

describeRedis('the booking bot against the sandbox', () => {
  let redis: Redis;
  useRedis((_server, client) => {
    redis = client;
  });
  let sandbox: Sandbox;
  let close: () => Promise<void>;
  const failures: unknown[] = [];
  const refusals: unknown[] = [];

  beforeAll(async () => {
    const receiver = createServer();
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/`;
    // One attempt per delivery: a refused event must show as a failure here, not be retried into a pass.
    sandbox = await startSandbox({ webhookUrl: url, webhookSecret: SECRET, retryDelaysMs: [0] });
    const gateway = new GatewayClient({ apiKey: 'sk_test_sandbox', baseUrl: sandbox.url });
    const handler = createNodeWebhookHandler({
      secret: SECRET,
      // The router dedupes on its own record; the handler's dedupe is off so that a redelivery reaches it.
      dedupe: false,
      onEvent: bookingRouter(gateway, redis, { onError: (error) => void refusals.push(error) }).handle,
      logger: false,
      onError: (error) => failures.push(error),
    });
    receiver.on('request', (req, res) => void handler(req, res));
    close = async () => {
      await sandbox.close();
      await new Promise((r) => receiver.close(r));
    };
  });
  afterAll(async () => {
    await close?.();
  });

  const sentTo = (to: string) =>
    sandbox.simulator.sent
      .filter((m) => (m.body as { to?: string }).to === to)
      .map((m) => {
        const b = m.body as { text?: { body: string }; interactive?: { body: { text: string } } };
        return b.text?.body ?? b.interactive?.body.text;
      });
  const deliver = async (envelope: WebhookEnvelope) => {
    const attempts = await sandbox.deliver(envelope);
    return attempts.map((a) => a.status);
  };

  it('greets, offers slots, confirms; the same delivery again sends no second reply', async () => {
    const to = '998901110001';
    const hello = messageEnvelope(textMessage({ from: to, timestamp: nowS(), text: { body: 'hello' } }));
    expect(await deliver(hello)).toEqual([200]);
    expect(await deliver(hello)).toEqual([200]); // redelivered: handled once
    await deliver(
      messageEnvelope(
        buttonReplyMessage({ id: 'slot:tue-14', title: 'Tue 14:00' }, { from: to, timestamp: nowS() }),
      ),
    );
    const yes = messageEnvelope(
      buttonReplyMessage({ id: 'yes', title: 'Yes, book it' }, { from: to, timestamp: nowS() }),
    );
    await deliver(yes);
    await deliver(yes);
    expect(sentTo(to)).toEqual([
      'Hi! Book a visit: tap a slot.',
      'Book Tue 14:00?',
      'Booked: Tue 14:00. See you then!',
    ]);
    expect(failures).toEqual([]);
  });

  it('hands the customer to a person and stays silent', async () => {
    const to = '998901110002';
    await deliver(messageEnvelope(textMessage({ from: to, timestamp: nowS(), text: { body: 'hi' } })));
    await deliver(messageEnvelope(textMessage({ from: to, timestamp: nowS(), text: { body: 'agent' } })));
    await deliver(messageEnvelope(textMessage({ from: to, timestamp: nowS(), text: { body: 'hello?' } })));
    expect(sentTo(to)).toEqual(['Hi! Book a visit: tap a slot.', 'A person will answer you here shortly.']);
  });

  it('with the window closed, a free-form reply is refused locally: the sandbox receives no request', async () => {
    const to = '998901110003';
    sandbox.simulator.closedWindows.add(to);
    const answeredBefore = { ...sandbox.simulator.answered };
    const sentBefore = sandbox.simulator.sent.length;
    const old = String(Math.floor(Date.now() / 1000) - 25 * 60 * 60);
    // A message that arrives 25 hours late: the bot's reply would be outside the window. No retry can change
    // that, so the delivery is answered 200 (not retried three times and dropped) and the router reports it.
    expect(await deliver(messageEnvelope(textMessage({ from: to, timestamp: old })))).toEqual([200]);
    expect(failures).toEqual([]);
    expect(refusals.splice(0)).toMatchObject([expect.any(ServiceWindowClosedError)]);
    // And a plain client guarded by the same window store refuses too.
    const guarded = new GatewayClient({
      apiKey: 'sk_test_sandbox',
      baseUrl: sandbox.url,
      serviceWindow: new RedisWindowStore({ redis }),
    });
    await expect(guarded.messages.send({ to, type: 'text', text: { body: 'hi' } })).rejects.toBeInstanceOf(
      ServiceWindowClosedError,
    );
    expect(sandbox.simulator.sent.length).toBe(sentBefore);
    expect(sandbox.simulator.answered).toEqual(answeredBefore);
  });
});
