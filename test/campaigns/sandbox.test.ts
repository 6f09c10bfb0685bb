/**
 * Campaign outcomes against the sandbox over real sockets, with its fault controls: sends refused (invalid →
 * not sent; a closed service window → GW_001, may have been sent), statuses `failed` for chosen recipients,
 * every status delivered twice and in reverse order, with no delay (so statuses race their send results). The
 * test knows the truth exactly and the report must equal it.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { CampaignTracker, GatewayClient } from '../../src/index.js';
import { type Sandbox, startSandbox } from '../../src/testing/index.js';
import { createNodeWebhookHandler } from '../../src/webhooks/index.js';
import { closeAll } from '../helpers/close-all.js';
import { campaignPlan } from './plan.js';

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

describe('CampaignTracker against the sandbox', () => {
  it('reports exactly what happened: refusals, failures by code, billable, duplicates and reordering', async () => {
    const tracker = new CampaignTracker({ retryableFailureCodes: [131026] });
    sandbox = await startSandbox({
      webhookUrl: await receiverFor(tracker),
      webhookSecret: SECRET,
      ratePerSecond: 100_000,
      statusDelaysMs: [0, 0, 0],
    });
    const plan = campaignPlan(240);
    for (const i of plan.closed) sandbox.simulator.closedWindows.add(plan.to(i));
    for (const i of plan.failRetryable)
      sandbox.faults.failRecipients.set(plan.to(i), { code: 131026, title: 'Message undeliverable' });
    for (const i of plan.failFinal)
      sandbox.faults.failRecipients.set(plan.to(i), { code: 131051, title: 'Unsupported message type' });
    sandbox.faults.statusOrder = 'reversed';
    sandbox.faults.duplicateStatuses = true;
    const gw = new GatewayClient({
      apiKey: 'sk_test_sandbox',
      baseUrl: sandbox.url,
      rateLimit: false,
      campaigns: tracker,
    });
    let ok = 0;
    for await (const r of gw.messages.sendMany(plan.messages, { campaign: 'spring-sale', concurrency: 8 }))
      if (r.ok) ok++;
    // A send outside the campaign: its statuses cost nothing and count nowhere.
    await gw.messages.send({ to: '998909999999', type: 'text', text: { body: 'not in the campaign' } });
    await sandbox.idle();

    expect(ok).toBe(plan.expected.funnel.accepted);
    const report = await tracker.report('spring-sale');
    expect(report?.funnel).toEqual(plan.expected.funnel);
    expect(report?.billable).toBe(plan.expected.billable);
    expect(report?.latest).toEqual({
      accepted: 0,
      sent: 0,
      delivered: 0,
      read: plan.expected.funnel.read,
      failed: plan.expected.funnel.failed,
    });
    const failures = Object.fromEntries(report!.failures.map((f) => [f.code, f.count]));
    expect(failures).toEqual({ '131026': plan.failRetryable.size, '131051': plan.failFinal.size });
    for (const f of report!.failures) expect(f.exampleWamid).toMatch(/^wamid\./);
    const refusals = Object.fromEntries(report!.refusals.map((r) => [r.code, [r.count, r.notSent]]));
    expect(refusals).toEqual({
      MessageValidationError: [plan.invalid.size, plan.invalid.size],
      GW_001: [plan.closed.size, 0],
    });
    const retries: string[] = [];
    for await (const r of report!.retries()) retries.push(`${r.reason}:${r.to}`);
    expect(retries.sort()).toEqual(plan.expected.retries);
    expect(report?.firstEventAt).not.toBeNull();
    expect(Date.parse(report!.lastEventAt!)).toBeGreaterThanOrEqual(Date.parse(report!.firstEventAt!));
    expect(await tracker.campaigns()).toEqual(['spring-sale']);
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
