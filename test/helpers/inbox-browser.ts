import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, beforeEach, expect } from 'vitest';
import { GatewayClient } from '../../src/index.js';
import { type Sandbox, startSandbox } from '../../src/testing/index.js';
import { createNodeWebhookHandler, type WebhookEvent } from '../../src/webhooks/index.js';
import { launchChromium } from './chromium.js';

export const TO = '998901234567';
/** Screenshots for docs/testing.md are written only when asked, so a normal run leaves the tree clean. */
export const SCREENSHOTS = process.env.UPDATE_SCREENSHOTS === '1';
export const IMAGES = join(import.meta.dirname, '../../docs/images');
const SECRET = 'inbox-browser-secret-0123456789abcdefgh';

/** An interactive message with two reply buttons: `on_time` ("Yes") and `late` ("No"). */
export const DELIVERY_QUESTION = {
  type: 'interactive',
  interactive: {
    type: 'button',
    body: { text: 'Was the delivery on time?' },
    action: {
      buttons: [
        { type: 'reply', reply: { id: 'on_time', title: 'Yes' } },
        { type: 'reply', reply: { id: 'late', title: 'No' } },
      ],
    },
  },
} as const;

/**
 * An app (a real webhook handler on node:http) on one side, a chromium page on the other, a fresh sandbox with
 * its inbox between them for each test. Call inside a describe; read the fields inside tests.
 */
export function inboxHarness() {
  let browser: Browser;
  let receiver: Server;
  const events: WebhookEvent[] = [];
  const waiters = new Set<() => void>();
  const t = {
    sandbox: undefined as unknown as Sandbox,
    page: undefined as unknown as Page,
    gw: undefined as unknown as GatewayClient,
    pageErrors: [] as string[],
    events,
    /** Resolves with the first event the app's onEvent got that matches, now or later. */
    appGets(match: (e: WebhookEvent) => boolean): Promise<WebhookEvent> {
      return new Promise((resolve) => {
        const check = () => {
          const found = events.find(match);
          if (!found) return;
          waiters.delete(check);
          resolve(found);
        };
        waiters.add(check);
        check();
      });
    },
    incoming: (type: string) => (e: WebhookEvent) => e.kind === 'message' && e.message.type === type,
    async openInbox(): Promise<void> {
      await t.page.goto(t.sandbox.inboxUrl!);
      await t.page.waitForSelector('body[data-ready]');
    },
    bubble: (id: string) => t.page.locator(`li.msg[data-id="${id}"]`),
  };

  beforeAll(async () => {
    browser = await launchChromium();
    const handler = createNodeWebhookHandler({
      secret: SECRET,
      onEvent: (e) => {
        events.push(e);
        for (const w of [...waiters]) w();
      },
    });
    receiver = createServer((req, res) => handler(req, res));
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  });
  afterAll(async () => {
    await browser?.close();
    await new Promise<void>((r) => (receiver ? receiver.close(() => r()) : r()));
  });
  beforeEach(async () => {
    events.length = 0;
    t.sandbox = await startSandbox({
      inbox: true,
      webhookUrl: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`,
      webhookSecret: SECRET,
      statusDelaysMs: [20, 40, 60],
      templateApprovalMs: 50,
    });
    // A client per test, each on the sandbox's key: their own limiters would add up (the SDK says so on a RATE_001),
    // and the sandbox's limit is what the tests exercise.
    t.gw = new GatewayClient({
      apiKey: 'sk_test_sandbox',
      baseUrl: t.sandbox.url,
      maxRetries: 0,
      rateLimit: false,
    });
    t.page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    t.pageErrors = [];
    t.page.on('pageerror', (e) => t.pageErrors.push(e.message));
  });
  afterEach(async () => {
    await t.page?.close();
    await t.sandbox?.close();
    expect(t.pageErrors).toEqual([]);
  });
  return t;
}
