/**
 * Campaign outcomes against the sandbox over real sockets, with its fault controls: sends refused (invalid →
 * not sent; a closed service window → GW_001, refused upstream and not sent), statuses `failed` for chosen
 * recipients, every status delivered twice and in reverse order, with no delay (so statuses race their send
 * results). The test knows the truth exactly and the report must equal it.
 */
import type { Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { CampaignTracker, GatewayClient } from '../../src/index.js';
import type { Sandbox } from '../../src/testing/index.js';
import { closeAll } from '../helpers/close-all.js';
import { runPlannedCampaign } from './run-campaign.js';

let sandbox: Sandbox | undefined;
let receiver: Server | undefined;
afterEach(async () => {
  await closeAll(sandbox, receiver);
  sandbox = receiver = undefined;
});

/** Sends the plan's campaign through the sandbox with its faults armed; the report must equal the plan. */
async function runCampaign(tracker: CampaignTracker): Promise<void> {
  await runPlannedCampaign(tracker, (opened) => {
    ({ sandbox, receiver } = opened);
  });
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
