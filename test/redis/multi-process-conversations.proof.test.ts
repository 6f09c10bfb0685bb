/**
 * The conversations router's guarantees with real processes on one real Redis (one redis-server, then a Redis
 * Cluster): two receiver processes
 * run the booking bot (examples/booking-bot.ts), a customer's messages go to each in turn, and the sandbox
 * gateway records every reply. One receiver SIGKILLs itself mid-flow at the worst moment (replies sent, record
 * not saved): the flow completes on the other with each reply sent once. Then 1,000 customers in parallel.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/testing/index.js';
import { buttonReplyMessage, messageEnvelope, textMessage } from '../../src/testing/webhook-fixtures.js';
import type { WebhookEnvelope } from '../../src/webhooks/index.js';
import { describeRedis } from '../helpers/redis-server.js';
import { onTarget, type RedisTarget, TARGETS, useRedisTarget } from '../helpers/redis-target.js';
import { type Fleet, forkFleet } from './fixtures/processes.js';

const SECRET = 'conversations-fleet-secret-0123456789abcdef';
const nowS = () => String(Math.floor(Date.now() / 1000));
const text = (from: string, body: string) =>
  messageEnvelope(textMessage({ from, timestamp: nowS(), text: { body } }));
const tap = (from: string, id: string) =>
  messageEnvelope(buttonReplyMessage({ id, title: id }, { from, timestamp: nowS() }));

let target: () => RedisTarget;
let sandbox: Sandbox;
const fleets: Fleet[] = [];

async function receiver(env: Record<string, string> = {}): Promise<{ fleet: Fleet; url: string }> {
  const fleet = await forkFleet('conversation-receiver', 1, {
    REDIS_URL: target().url,
    GATEWAY_URL: sandbox.url,
    WEBHOOK_SECRET: SECRET,
    LEASE_MS: '1000',
    ...env,
  });
  fleets.push(fleet);
  const [port] = await fleet.round<number>('port');
  return { fleet, url: `http://127.0.0.1:${port}/` };
}

/** One delivery as the gateway makes it; `false` when the receiver is gone or answered other than 200. */
async function post(url: string, envelope: WebhookEnvelope): Promise<boolean> {
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${SECRET}`, 'content-type': 'application/json' },
      body: JSON.stringify(envelope),
    });
    await res.arrayBuffer();
    return res.status === 200;
  } catch {
    return false;
  }
}

/** Delivers to `urls[first]`, then (as the gateway's retries would) to the others in turn until one takes it. */
async function deliver(urls: string[], first: number, envelope: WebhookEnvelope): Promise<void> {
  for (let attempt = 0; attempt < 40; attempt++) {
    if (await post(urls[(first + attempt) % urls.length]!, envelope)) return;
    // A 500 while another instance's lease on the customer runs out: wait a little, as the gateway does.
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('no receiver took the delivery');
}

function repliesTo(to: string): string[] {
  return sandbox.simulator.sent
    .filter((m) => (m.body as { to?: string }).to === to)
    .map((m) => {
      const b = m.body as { text?: { body: string }; interactive?: { body: { text: string } } };
      return b.text?.body ?? b.interactive?.body.text ?? '?';
    });
}

for (const kind of TARGETS)
  describeRedis(`conversations across processes ${onTarget(kind)}`, () => {
    const started = useRedisTarget(kind);
    beforeAll(async () => {
      target = started;
      sandbox = await startSandbox({ ratePerSecond: 1_000_000 });
    });
    afterAll(async () => {
      for (const f of fleets.splice(0)) f.stop();
      await sandbox?.close();
    });

    it('a receiver SIGKILLed mid-flow: the flow completes on the other, each reply sent once', async () => {
      const a = await receiver({ CRASH_AT: 'yes' });
      const b = await receiver();
      const to = '998907770001';
      const aDied = new Promise((r) => a.fleet.children[0]!.once('exit', (_code, signal) => r(signal)));
      const steps = [
        text(to, 'hello'),
        tap(to, 'slot:tue-14'),
        tap(to, 'no'),
        tap(to, 'slot:wed-16'),
        tap(to, 'yes'),
      ];
      for (const [i, envelope] of steps.entries())
        await deliver([a.url, b.url], i % 2 === 0 ? 0 : 1, envelope);
      expect(await aDied).toBe('SIGKILL'); // it died on `yes`, after sending its reply, before saving
      await deliver([b.url], 0, text(to, 'thanks'));
      expect(repliesTo(to)).toEqual([
        'Hi! Book a visit: tap a slot.',
        'Book Tue 14:00?',
        'Which slot then?',
        'Book Wed 16:00?',
        'Booked: Wed 16:00. See you then!',
        'Hi! Book a visit: tap a slot. (You have one already.)',
      ]);
    }, 60_000);

    it('1,000 customers in parallel on two receivers, each message to the other in turn and once again', async () => {
      const urls = [(await receiver()).url, (await receiver()).url];
      const customers = Array.from({ length: 1000 }, (_, i) => `99890${String(8000000 + i)}`);
      const flow = async (to: string, n: number) => {
        const steps = [text(to, 'hello'), tap(to, 'slot:mon-10'), tap(to, 'yes')];
        for (const [i, envelope] of steps.entries()) {
          await deliver(urls, (n + i) % 2, envelope);
          await deliver(urls, (n + i + 1) % 2, envelope); // the same delivery, redelivered to the other process
        }
      };
      // Customers in parallel, 64 at a time: one customer's messages stay in order, as a person types them.
      const queue = customers.entries();
      await Promise.all(
        Array.from({ length: 64 }, async () => {
          for (const [n, to] of queue) await flow(to, n);
        }),
      );
      const wrong = customers.filter(
        (to) =>
          JSON.stringify(repliesTo(to)) !==
          JSON.stringify([
            'Hi! Book a visit: tap a slot.',
            'Book Mon 10:00?',
            'Booked: Mon 10:00. See you then!',
          ]),
      );
      expect(wrong.map((to) => [to, repliesTo(to)]).slice(0, 3)).toEqual([]);
    }, 120_000);
  });
