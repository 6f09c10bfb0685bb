/**
 * One campaign through the sandbox over real sockets, with its fault controls armed (campaignPlan): sent with
 * `sendMany`, its statuses (duplicated, reordered, racing their send results) applied by a webhook receiver; the
 * report must equal the plan. Shared by the in-memory runs (sandbox.test.ts) and the Redis ones (one node and a
 * cluster: test/redis/suites/campaign-store.ts).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'vitest';
import { type CampaignTracker, GatewayClient } from '../../src/index.js';
import { type Sandbox, startSandbox } from '../../src/testing/index.js';
import { createNodeWebhookHandler } from '../../src/webhooks/index.js';
import { armFaults, campaignPlan, expectReport } from './plan.js';

const SECRET = 'campaign-test-secret-0123456789abcdef';

/**
 * Runs the plan's campaign for `tracker`. `opened` receives the sandbox and the receiver as soon as they exist,
 * for the caller to close (closeAll) whatever happens.
 */
export async function runPlannedCampaign(
  tracker: CampaignTracker,
  opened: (servers: { sandbox?: Sandbox; receiver?: Server }) => void,
): Promise<void> {
  const handler = createNodeWebhookHandler({ secret: SECRET, onEvent: (e) => tracker.apply(e) });
  const receiver = createServer((req, res) => handler(req, res));
  opened({ receiver });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const sandbox = await startSandbox({
    webhookUrl: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/`,
    webhookSecret: SECRET,
    ratePerSecond: 100_000,
    // No delay: statuses race their send results (and beat them, while results wait in the recorder's buffer).
    statusDelaysMs: [0, 0, 0],
    ackTimeoutMs: 60_000,
  });
  opened({ sandbox, receiver });
  const plan = campaignPlan(240);
  armFaults(sandbox, plan);
  const gw = new GatewayClient({
    apiKey: 'sk_test_sandbox',
    baseUrl: sandbox.url,
    rateLimit: false,
    campaigns: tracker,
  });
  let ok = 0;
  for await (const r of gw.messages.sendMany(plan.messages, { campaign: 'spring-sale', concurrency: 8 }))
    if (r.ok) ok++;
  // A send outside the campaign: its statuses count nowhere.
  await gw.messages.send({ to: '998909999999', type: 'text', text: { body: 'not in the campaign' } });
  await sandbox.idle();

  expect(ok).toBe(plan.expected.funnel.accepted);
  await expectReport(tracker, 'spring-sale', plan);
  expect(await tracker.campaigns()).toEqual(['spring-sale']);
}
