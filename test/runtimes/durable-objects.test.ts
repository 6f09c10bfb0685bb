/**
 * The bar for `wa-gateway-sdk/durable-objects`, in workerd through miniflare: a Worker with the webhook
 * handler, the router, a GatewayClient and these stores (`apps/durable-bot.ts`), served by two Workers, so two
 * isolates with nothing in memory in common, over real SQLite-backed Durable Objects. The gateway is the testing
 * kit's sandbox on 127.0.0.1: what it received is what the Worker really sent.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/testing/index.js';
import { messageEnvelope, textMessage } from '../../src/testing/webhook-fixtures.js';
import { freePort, startWorkers, type WorkerFleet } from '../helpers/workerd.js';
import { type BotState, SECRET } from './apps/durable-bot.js';

const app = new URL('./apps/durable-bot-worker.ts', import.meta.url).pathname;

let fleet: WorkerFleet;
let sandbox: Sandbox;
let seq = 0;

const now = () => String(Math.floor(Date.now() / 1000));
const customer = () => `99890${String(1_000_000 + Math.floor(Math.random() * 8_000_000))}`;
const textDelivery = (from: string, body: string, timestamp = now()) =>
  JSON.stringify(
    messageEnvelope(textMessage({ id: `wamid.DO${Date.now()}x${++seq}`, from, timestamp, text: { body } })),
  );

async function post(base: string, path: string, body: string, auth = true): Promise<Response> {
  return fetch(`${base}${path}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(auth ? { authorization: `Bearer ${SECRET}` } : {}),
    },
    body,
  });
}

/** Delivers `body` to `base` as the gateway does: again after a 5xx, until a 200 (the bound turns a hang into a failure). */
async function deliverUntilOk(base: string, body: string): Promise<number[]> {
  const statuses: number[] = [];
  const until = Date.now() + 20_000;
  for (;;) {
    const res = await post(base, '/webhook', body);
    await res.arrayBuffer();
    statuses.push(res.status);
    if (res.status === 200 || Date.now() > until) return statuses;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const stateOf = async (base: string) => (await (await fetch(`${base}/state`)).json()) as BotState;
const sessionOf = async (base: string, c: string) =>
  ((await (await fetch(`${base}/session?customer=${c}`)).json()) as { session: { log: string[] } | null })
    .session;
const send = async (base: string, message: unknown) =>
  (await (await post(base, '/send', JSON.stringify(message), false)).json()) as {
    messageId?: string;
    error?: { name: string; rule?: string };
  };
const sentTo = (to: string) => sandbox.simulator.sent.filter((m) => m.to === to);
const answeredTotal = () => Object.values(sandbox.simulator.answered).reduce((a, b) => a + b, 0);

describe('Durable Objects stores in workerd: a Worker in two isolates', () => {
  beforeAll(async () => {
    // The Workers need the gateway's address and the gateway theirs: the sandbox's port is chosen first.
    const port = await freePort();
    fleet = await startWorkers(app, {
      isolates: 2,
      nodejsCompat: true,
      bindings: { GATEWAY_URL: `http://127.0.0.1:${port}` },
    });
    sandbox = await startSandbox({
      port,
      webhookUrl: `${fleet.urls[0]}/webhook`,
      webhookSecret: SECRET,
      platform: false,
      templateApprovalMs: 10 * 60_000, // statuses come from the tests only
    });
  }, 60_000);
  afterAll(async () => {
    await fleet?.dispose();
    await sandbox?.close();
  });

  it('one delivery sent to six requests at once, in two isolates, is processed once and replied to once', async () => {
    const c = customer();
    const body = textDelivery(c, 'slow hello');
    const answers = await Promise.all(
      fleet.urls.flatMap((url) => [1, 2, 3].map(() => deliverUntilOk(url, body))),
    );
    expect(answers.map((a) => a.at(-1))).toEqual([200, 200, 200, 200, 200, 200]);
    const wamid = JSON.parse(body).entry[0].changes[0].value.messages[0].id as string;
    const states = await Promise.all(fleet.urls.map(stateOf));
    expect(states.flatMap((s) => s.messages).filter((k) => k === wamid)).toHaveLength(1);
    expect(sentTo(c).map((m) => (m.body['text'] as { body: string }).body)).toEqual(['echo: slow hello']);
    expect((await sessionOf(fleet.urls[1]!, c))?.log).toEqual(['slow hello']);
  });

  it("a customer's messages are handled one at a time: eight at once across isolates lose no change", async () => {
    const c = customer();
    const texts = Array.from({ length: 8 }, (_, i) => `quiet slow ${i}`);
    await Promise.all(texts.map((t, i) => deliverUntilOk(fleet.urls[i % 2]!, textDelivery(c, t))));
    // Each handler reads the session, waits, then appends: two at once would save over each other.
    expect([...((await sessionOf(fleet.urls[0]!, c))?.log ?? [])].sort()).toEqual([...texts].sort());
    // Each ran once (none lost its lock and ran again), and none began before the one before it had ended.
    const spans = (await Promise.all(fleet.urls.map(stateOf)))
      .flatMap((s) => s.spans)
      .filter((span) => span.customer === c)
      .sort((a, b) => a.start - b.start);
    expect(spans.map((span) => span.text).sort()).toEqual([...texts].sort());
    for (let i = 1; i < spans.length; i++) expect(spans[i]!.start).toBeGreaterThanOrEqual(spans[i - 1]!.end);
  });

  it("a customer's messages delivered one after another are handled in their order, whichever isolate", async () => {
    const c = customer();
    const texts = Array.from({ length: 6 }, (_, i) => `quiet ${i}`);
    for (const [i, t] of texts.entries()) {
      expect((await deliverUntilOk(fleet.urls[i % 2]!, textDelivery(c, t))).at(-1)).toBe(200);
    }
    expect((await sessionOf(fleet.urls[1]!, c))?.log).toEqual(texts);
  });

  it('a closed window refuses a free-form reply before any request; an open one, seen by another isolate, sends', async () => {
    const closed = customer();
    const dayAndAnHourAgo = String(Math.floor(Date.now() / 1000) - 25 * 60 * 60);
    const before = answeredTotal();
    expect((await deliverUntilOk(fleet.urls[0]!, textDelivery(closed, 'late', dayAndAnHourAgo))).at(-1)).toBe(
      200,
    );
    const refusedBy = (await Promise.all(fleet.urls.map(stateOf))).flatMap((s) => s.refused);
    expect(refusedBy).toContain(closed);
    // Another isolate's own send to the same customer is refused by the same window, and a stranger has none.
    const stranger = customer();
    for (const to of [closed, stranger]) {
      expect(await send(fleet.urls[1]!, { to, type: 'text', text: { body: 'hi' } })).toEqual({
        error: { name: 'ServiceWindowClosedError' },
      });
    }
    expect(answeredTotal()).toBe(before); // no request reached the gateway
    expect(sentTo(closed)).toEqual([]);

    const open = customer();
    await deliverUntilOk(fleet.urls[0]!, textDelivery(open, 'quiet hello'));
    const sent = await send(fleet.urls[1]!, { to: open, type: 'text', text: { body: 'a reply' } });
    expect(sent.messageId).toMatch(/^wamid\./);
    expect(sentTo(open)).toHaveLength(1);
  });

  it('a PAUSED template status applied in one request refuses the send of the next, in the other isolate', async () => {
    const name = `do_check_${Date.now()}`;
    const created = sandbox.submitTemplate(
      'app_1',
      JSON.stringify({
        name,
        language: 'en_US',
        category: 'UTILITY',
        body: { text: 'Your order has shipped.' },
      }),
    );
    const sourceId = created.created!.sourceId;
    const template = { to: customer(), type: 'template', template: { name, language: { code: 'en_US' } } };

    const approved = await sandbox.setTemplateStatus(sourceId, 'APPROVED'); // delivered to isolate 0
    expect(approved.at(-1)?.outcome).toBe('delivered');
    expect((await send(fleet.urls[1]!, template)).messageId).toMatch(/^wamid\./);

    const paused = await sandbox.setTemplateStatus(sourceId, 'PAUSED');
    expect(paused.at(-1)?.outcome).toBe('delivered');
    const before = answeredTotal();
    expect(await send(fleet.urls[1]!, template)).toEqual({
      error: { name: 'TemplateSendError', rule: 'template.status' },
    });
    expect(answeredTotal()).toBe(before); // refused before any request
  });
});
