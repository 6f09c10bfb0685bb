/**
 * Campaign outcomes against the sandbox over real sockets, with its fault controls: sends refused (invalid →
 * not sent; a closed service window → GW_001, refused upstream and not sent), statuses `failed` for chosen
 * recipients, every status delivered twice and in reverse order, with no delay (so statuses race their send
 * results). The test knows the truth exactly and the report must equal it.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { CampaignTracker, GatewayClient } from '../../src/index.js';
import { RedisCampaignStore } from '../../src/redis/index.js';
import { type Sandbox, startSandbox } from '../../src/testing/index.js';
import { createNodeWebhookHandler } from '../../src/webhooks/index.js';
import { closeAll } from '../helpers/close-all.js';
import { describeRedis, useRedis } from '../helpers/redis-server.js';
import { armFaults, campaignPlan, expectReport } from './plan.js';

const SECRET = 'campaign-test-secret-0123456789abcdef';
let sandbox: Sandbox | undefined;
let receiver: Server | undefined;
afterEach(async () => {
  await closeAll(sandbox, receiver);
  sandbox = receiver = undefined;
});

async function receiverFor(tracker: CampaignTracker): Promise<string> {
  const handler = createNodeWebhookHandler({ secret: SECRET, onEvent: (e) => tracker.apply(e) });
  receiver = createServer((req, res) => handler(req, res));
  await new Promise<void>((r) => receiver!.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/`;
}

/** Sends the plan's campaign through the sandbox with its faults armed; the report must equal the plan. */
async function runCampaign(tracker: CampaignTracker): Promise<void> {
  sandbox = await startSandbox({
    webhookUrl: await receiverFor(tracker),
    webhookSecret: SECRET,
    ratePerSecond: 100_000,
    // No delay: statuses race their send results (and beat them, while results wait in the recorder's buffer).
    statusDelaysMs: [0, 0, 0],
    ackTimeoutMs: 60_000,
  });
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

describe('CampaignTracker against the sandbox', () => {
  it('reports exactly what happened: refusals, failures by code, billable, duplicates and reordering', async () => {
    await runCampaign(new CampaignTracker({ retryableFailureCodes: [131026] }));
  });

  it('the same with results written 7 at a time (statuses both before and after their record)', async () => {
    await runCampaign(new CampaignTracker({ retryableFailureCodes: [131026], batchSize: 7 }));
  });

  it('refuses a campaign without a tracker, and a bad campaign id, before any request', () => {
    const gw = new GatewayClient({ apiKey: 'sk_test_sandbox', baseUrl: 'http://127.0.0.1:9' });
    expect(() => gw.messages.sendMany([], { campaign: 'x' })).toThrow(/no tracker/);
    const tracked = new GatewayClient({
      apiKey: 'sk_test_sandbox',
      baseUrl: 'http://127.0.0.1:9',
      campaigns: new CampaignTracker(),
    });
    expect(() => tracked.messages.sendMany([], { campaign: '' })).toThrow(/campaign id/);
  });
});

describeRedis('CampaignTracker with RedisCampaignStore against the sandbox', () => {
  let redis: Redis;
  useRedis((_server, client) => {
    redis = client;
  });

  it('reports exactly what happened, through Redis', async () => {
    const store = new RedisCampaignStore({ redis, prefix: 'one:' });
    await runCampaign(new CampaignTracker({ store, retryableFailureCodes: [131026], batchSize: 16 }));
  });
});
