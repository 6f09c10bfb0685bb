/**
 * The deliveries every runtime must answer the same way, registered as tests against a running receiver
 * (`apps/receiver.ts`) at `base()`. Each runtime's test file starts its server and calls `deliveryTests`.
 */
import { expect, it } from 'vitest';
import {
  messageEnvelope,
  statusEnvelope,
  statusObject,
  textMessage,
} from '../../src/testing/webhook-fixtures.js';
import type { ReceiverState } from './apps/receiver.js';
import { SECRET } from './apps/receiver.js';

const deliver = (base: string, body: string, secret = SECRET) =>
  fetch(`${base}/webhook`, {
    method: 'POST',
    headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
    body,
  });

const state = async (base: string) => (await (await fetch(`${base}/state`)).json()) as ReceiverState;

const textDelivery = (id: string, body: string) =>
  JSON.stringify(messageEnvelope(textMessage({ id, text: { body } })));

/** Polls the receiver's state until `done` holds; the bound only turns a hang into a failure. */
async function waitForState(base: string, done: (s: ReceiverState) => boolean): Promise<ReceiverState> {
  const bound = Date.now() + 15_000;
  for (;;) {
    const s = await state(base);
    if (done(s) || Date.now() > bound) return s;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

export function deliveryTests(runtime: string, base: () => string): void {
  it(`runs on ${runtime}`, async () => {
    expect((await state(base())).runtime).toBe(runtime);
  });

  it('answers a valid delivery 200 and runs onEvent for each event', async () => {
    const statuses = [
      statusObject('sent', { id: 'wamid.RT_S1' }),
      statusObject('read', { id: 'wamid.RT_S1' }),
    ];
    const res = await deliver(base(), JSON.stringify(statusEnvelope(statuses)));
    expect(res.status).toBe(200);
    expect((await state(base())).processed).toEqual(
      expect.arrayContaining(['wamid.RT_S1:sent', 'wamid.RT_S1:read']),
    );
  });

  it('answers a duplicate 200 without running onEvent again', async () => {
    const body = textDelivery('wamid.RT_DUP', 'hello');
    expect((await deliver(base(), body)).status).toBe(200);
    const before = await state(base());
    expect((await deliver(base(), body)).status).toBe(200);
    const after = await state(base());
    expect(after.onEventCalls).toBe(before.onEventCalls);
    expect(after.processed.filter((k) => k === 'wamid.RT_DUP')).toHaveLength(1);
  });

  it('refuses a wrong secret with 401 before reading the body', async () => {
    const before = await state(base());
    const res = await deliver(
      base(),
      textDelivery('wamid.RT_BAD', 'hi'),
      'wh_not_the_secret_000000000000000',
    );
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer');
    expect((await state(base())).onEventCalls).toBe(before.onEventCalls);
  });

  it('answers a malformed body 400 without echoing it', async () => {
    const res = await deliver(base(), '{"entry": "not-an-array", "secret-ish": "do-not-echo"');
    expect(res.status).toBe(400);
    expect(await res.text()).not.toContain('do-not-echo');
  });

  it('answers 500 when onEvent fails, so the gateway retries, and runs it again on the retry', async () => {
    const body = textDelivery('wamid.RT_FAIL', 'fail');
    expect((await deliver(base(), body)).status).toBe(500);
    const before = await state(base());
    expect((await deliver(base(), body)).status).toBe(500);
    expect((await state(base())).onEventCalls).toBe(before.onEventCalls + 1);
  });

  it('answers 503 past the deadline and hands the unfinished work to waitUntil, which completes it', async () => {
    const before = await state(base());
    const res = await deliver(base(), textDelivery('wamid.RT_SLOW', 'slow'));
    expect(res.status).toBe(503);
    const after = await waitForState(base(), (s) => s.slowFinished > before.slowFinished);
    expect(after.waitUntilCalls).toBe(before.waitUntilCalls + 1);
    expect(after.slowFinished).toBe(before.slowFinished + 1);
    expect(after.processed).toContain('wamid.RT_SLOW');
    // Completed in the background: the gateway's retry is a duplicate once the claim is marked done (a retry
    // that lands in between is told 503 "in progress", as the gateway's own retry would be).
    const bound = Date.now() + 15_000;
    let retry = await deliver(base(), textDelivery('wamid.RT_SLOW', 'slow'));
    while (retry.status === 503 && Date.now() < bound) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      retry = await deliver(base(), textDelivery('wamid.RT_SLOW', 'slow'));
    }
    expect(retry.status).toBe(200);
    expect((await state(base())).onEventCalls).toBe(after.onEventCalls);
  });
}

/** A template a form would submit, and a broken one; the results must match Node's exactly. */
export const TEMPLATES = {
  valid: {
    name: 'order_shipped',
    language: 'en_US',
    category: 'UTILITY',
    body: { text: 'Hi {{1}}, order {{2}} ships today.', examples: ['Ann', '#1234'] },
    buttons: [{ type: 'URL', text: 'Track', url: 'https://track.example.com/{{1}}', example: ['1234'] }],
  },
  broken: {
    name: 'Order Update',
    language: 'en',
    category: 'UTILITY',
    body: { text: 'Your order {{1}} has shipped.' },
    buttons: [{ type: 'URL', text: 'Track', url: 'http://example.com' }],
  },
} as const;

export function templateTests(base: () => string): void {
  it('runs validateTemplate with the same result as on Node', async () => {
    const { validateTemplate } = await import('../../src/templates/index.js');
    for (const template of Object.values(TEMPLATES)) {
      const res = await fetch(`${base()}/validate-template`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(template),
      });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual(JSON.parse(JSON.stringify(validateTemplate(template))));
    }
    const broken = validateTemplate(TEMPLATES.broken);
    expect(broken.valid).toBe(false);
    expect(broken.issues.length).toBeGreaterThan(1);
  });
}
