/**
 * The sandbox inbox's campaign panel with a `CampaignQueue` (on a real redis-server), in Debian's chromium: each
 * campaign's queue is drawn beside its funnel and follows it live: running, paused by BILL_001 with the gateway's
 * reason, resumed, finished.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { GatewayClient } from '../../src/index.js';
import { CampaignQueue, type CampaignWorker, RedisRateLimiter } from '../../src/redis/index.js';
import { type Sandbox, startSandbox } from '../../src/testing/index.js';
import { createNodeWebhookHandler } from '../../src/webhooks/index.js';
import { describeChromium, launchChromium } from '../helpers/chromium.js';
import { queueCoreOf } from '../helpers/queue-core.js';
import { describeRedis, type RedisServer, startRedis } from '../helpers/redis-server.js';
import { connect } from '../helpers/redis-target.js';

const SECRET = 'inbox-queue-secret-0123456789abcdef';

describeRedis('the inbox draws a campaign queue', () => {
  describeChromium('in chromium', () => {
    let browser: Browser;
    let receiver: Server;
    let sandbox: Sandbox;
    let page: Page;
    let server: RedisServer;
    let queue: CampaignQueue;
    let worker: CampaignWorker | undefined;
    const warnings: string[] = [];
    const pageErrors: string[] = [];

    beforeAll(async () => {
      server = await startRedis();
      queue = new CampaignQueue({
        redis: connect(server.url),
        prefix: 'inbox:',
        logger: { warn: (m) => warnings.push(m), error: (m) => warnings.push(m) },
      });
      browser = await launchChromium();
      const handler = createNodeWebhookHandler({ secret: SECRET, onEvent: (e) => queue.apply(e) });
      receiver = createServer((req, res) => handler(req, res));
      await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
      sandbox = await startSandbox({
        inbox: true,
        webhookUrl: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`,
        webhookSecret: SECRET,
        statusDelaysMs: [0, 0, 0],
        ratePerSecond: 100_000,
        // Money for three deliveries: the campaign is paused by BILL_001 part-way.
        balance: 3,
        campaigns: queue,
      });
      page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
      page.on('pageerror', (e) => pageErrors.push(e.message));
    });
    afterAll(async () => {
      await worker?.close();
      await queue?.close();
      await page?.close();
      await sandbox?.close();
      await browser?.close();
      await new Promise<void>((r) => (receiver ? receiver.close(() => r()) : r()));
      await server?.dispose();
    });

    const queueLine = () =>
      page.evaluate(() => {
        const line = document.querySelector('figure[data-campaign="spring"] p.queue');
        return line
          ? { state: line.getAttribute('data-queue-state'), text: line.textContent ?? '' }
          : undefined;
      });

    it('shows the queue live: paused by BILL_001 with its reason, then resumed and finished', async () => {
      await page.goto(sandbox.inboxUrl!);
      await page.waitForSelector('body[data-ready]');
      const to = Array.from({ length: 12 }, (_, i) => `9989000001${String(i).padStart(2, '0')}`);
      await queue.enqueue(
        'spring',
        to.map((t) => ({ to: t, type: 'text' as const, text: { body: 'Spring sale' } })),
      );
      await page.waitForSelector('figure[data-campaign="spring"] p.queue[data-queue-state="running"]');
      const gateway = new GatewayClient({
        apiKey: 'sk_test_sandbox',
        baseUrl: sandbox.url,
        rateLimit: new RedisRateLimiter({ redis: connect(server.url), prefix: 'inbox:', perSecond: 100_000 }),
      });
      worker = queue.work({ gateway, concurrency: 1, pollMs: 50 });
      // Paused, and the refused message back in the queue: the pause is written before the message is put back, so
      // the panel may draw one "in flight" in between. Waited for, not assumed.
      await page.waitForFunction(
        () => {
          const line = document.querySelector(
            'figure[data-campaign="spring"] p.queue[data-queue-state="paused"]',
          );
          return line !== null && (line.textContent ?? '').includes(' 0 in flight');
        },
        undefined,
        { timeout: 30_000 },
      );
      const paused = await queueLine();
      expect(paused?.text).toContain('Queue: paused (BILL_001: Insufficient balance. Top up to send.)');
      expect(paused?.text).toMatch(/\d+ queued · 0 in flight · \d+ accepted/);
      // Resumed with no worker and a RATE_001's hold written, as a worker writes it: the panel says why it waits.
      await worker.close();
      const holder = connect(server.url);
      const core = queueCoreOf(holder, 'inbox:');
      await core.ledger.hold('spring', 600_000);
      await queue.resume('spring');
      await page.waitForFunction(
        () =>
          (
            document.querySelector('figure[data-campaign="spring"] p.queue[data-queue-state="running"]')
              ?.textContent ?? ''
          ).includes("(waiting for the gateway's rate limit until "),
        undefined,
        { timeout: 30_000 },
      );
      // The hold lifted, and a worker again: the rest goes out.
      await holder.hdel(core.ledger.keysOf('spring').counts, 'heldUntil');
      holder.disconnect();
      sandbox.simulator.balance = 1_000_000;
      worker = queue.work({ gateway, concurrency: 1, pollMs: 50 });
      await page.waitForSelector('figure[data-campaign="spring"] p.queue[data-queue-state="finished"]', {
        timeout: 30_000,
      });
      expect((await queueLine())?.text).toContain(
        '0 queued · 0 in flight · 12 accepted · 0 not sent · 0 in doubt',
      );
      expect(warnings).toEqual(['wa-gateway-sdk: CampaignQueue paused a campaign (BILL_001)']);
      expect(pageErrors).toEqual([]);
    });
  });
});
