/**
 * The sandbox inbox's campaign funnel in Debian's chromium: a tracker given to the sandbox is drawn as a bar
 * chart per campaign, and the chart follows the tracker live (over the page's event stream, no reload) as send
 * results are recorded and status webhooks are applied. With UPDATE_SCREENSHOTS=1 it writes the screenshot that
 * docs/campaigns.md shows.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CampaignTracker, GatewayClient, type OutboundMessage } from '../../src/index.js';
import { type Sandbox, startSandbox } from '../../src/testing/index.js';
import { createNodeWebhookHandler } from '../../src/webhooks/index.js';
import { describeChromium, launchChromium } from '../helpers/chromium.js';
import { IMAGES, SCREENSHOTS } from '../helpers/inbox-browser.js';

const SECRET = 'inbox-campaigns-secret-0123456789abcdef';

describeChromium('the inbox draws campaign funnels', () => {
  let browser: Browser;
  let receiver: Server;
  let sandbox: Sandbox;
  let page: Page;
  const pageErrors: string[] = [];
  const tracker = new CampaignTracker();

  beforeAll(async () => {
    browser = await launchChromium();
    const handler = createNodeWebhookHandler({ secret: SECRET, onEvent: (e) => tracker.apply(e) });
    receiver = createServer((req, res) => handler(req, res));
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    sandbox = await startSandbox({
      inbox: true,
      webhookUrl: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`,
      webhookSecret: SECRET,
      statusDelaysMs: [10, 20, 30],
      campaigns: tracker,
    });
    page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    page.on('pageerror', (e) => pageErrors.push(e.message));
  });
  afterAll(async () => {
    await page?.close();
    await sandbox?.close();
    await browser?.close();
    await new Promise<void>((r) => (receiver ? receiver.close(() => r()) : r()));
  });

  /** The counts the page shows for a campaign, stage by stage. */
  const shown = (id: string) =>
    page.evaluate((campaign) => {
      const figure = document.querySelector(`figure[data-campaign="${campaign}"]`);
      if (!figure) return undefined;
      const counts: Record<string, number> = {};
      for (const li of figure.querySelectorAll('li[data-stage]'))
        counts[li.getAttribute('data-stage')!] = Number(li.querySelector('output')?.textContent);
      return counts;
    }, id);

  it('shows each campaign and follows it live as results and statuses arrive', async () => {
    await page.goto(sandbox.inboxUrl!);
    await page.waitForSelector('body[data-ready]');
    await page.getByText('No campaign yet').waitFor();

    const gw = new GatewayClient({ apiKey: 'sk_test_sandbox', baseUrl: sandbox.url, campaigns: tracker });
    const to = (i: number) => `9989000000${String(i).padStart(2, '0')}`;
    sandbox.faults.failRecipients.set(to(3), { code: 131026, title: 'Message undeliverable' });
    sandbox.faults.failRecipients.set(to(7), { code: 131051, title: 'Unsupported message type' });
    sandbox.simulator.closedWindows.add(to(9));
    const messages: OutboundMessage[] = Array.from({ length: 12 }, (_, i) => ({
      to: to(i),
      type: 'text',
      text: { body: i === 11 ? '' : `Spring sale, customer ${i}` },
    }));
    for await (const _ of gw.messages.sendMany(messages, { campaign: 'spring-sale' })) {
      // every result is recorded as sendMany goes
    }
    await sandbox.idle();
    // The closed window's GW_001 is not sent, like the invalid message.
    const final = { accepted: 10, sent: 8, delivered: 8, read: 8, failed: 2, notSent: 2, maybeSent: 0 };
    await expect.poll(() => shown('spring-sale')).toEqual(final);
    await page.getByText('Failures by code: 131026 × 1, 131051 × 1').waitFor();

    // A second campaign appears beside the first on the same page, without a reload.
    const more: OutboundMessage[] = [{ to: to(20), type: 'text', text: { body: 'Welcome back' } }];
    for await (const _ of gw.messages.sendMany(more, { campaign: 'win-back' })) {
      // recorded
    }
    await sandbox.idle();
    await expect
      .poll(() => shown('win-back'))
      .toEqual({ accepted: 1, sent: 1, delivered: 1, read: 1, failed: 0, notSent: 0, maybeSent: 0 });
    expect(await shown('spring-sale')).toEqual(final);
    // The bars are drawn to scale: read is 8 of the 12 messages of spring-sale.
    const width = await page
      .locator('figure[data-campaign="spring-sale"] li[data-stage="read"] .fill')
      .evaluate((el) => (el as HTMLElement).style.width);
    expect(width).toBe('66.7%');
    if (SCREENSHOTS) {
      await page.locator('section[aria-labelledby="campaigns-title"]').screenshot({
        path: join(IMAGES, 'inbox-campaigns.png'),
      });
    }
    expect(pageErrors).toEqual([]);
  });
});
