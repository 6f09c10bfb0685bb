/**
 * RedisCampaignStore on a real Redis (one node: campaign-store.test.ts; a cluster: cluster.proof.test.ts): the
 * sandbox campaign reported exactly through Redis, nothing written for a stranger's status, and every key the
 * store's scripts write (the batch, the parked statuses, the compare-and-set of a status) expiring.
 */
import type { Server } from 'node:http';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { runCli } from '../../../src/cli/main.js';
import { CampaignTracker, ConfigurationError } from '../../../src/index.js';
import { RedisCampaignStore } from '../../../src/redis/index.js';
import type { Sandbox } from '../../../src/testing/index.js';
import { statusObject } from '../../../src/testing/webhook-fixtures.js';
import { runPlannedCampaign } from '../../campaigns/run-campaign.js';
import { closeAll } from '../../helpers/close-all.js';
import type { RedisTarget } from '../../helpers/redis-target.js';

const accepted = (index: number, messageId: string) => ({
  result: { index, ok: true as const, messageId, contacts: [] },
  to: `99890000000${index}`,
});

/** The campaign store's tests, on `target`. */
export function campaignStoreSuite(target: () => RedisTarget): void {
  let sandbox: Sandbox | undefined;
  let receiver: Server | undefined;
  beforeEach(async () => {
    await target().flush();
  });
  afterEach(async () => {
    await closeAll(sandbox, receiver);
    sandbox = receiver = undefined;
  });

  it('reports exactly what happened, through Redis', async () => {
    const store = new RedisCampaignStore({ redis: target().redis, prefix: 'one:' });
    const tracker = new CampaignTracker({ store, retryableFailureCodes: [131026], batchSize: 16 });
    await runPlannedCampaign(tracker, (opened) => {
      ({ sandbox, receiver } = opened);
    });
  });

  it('wa-gateway campaign list reads it (with --cluster on a cluster)', async () => {
    const store = new RedisCampaignStore({ redis: target().redis, prefix: 'cli:' });
    await new CampaignTracker({ store }).record('listed', [accepted(0, 'wamid.cli')]);
    const out: string[] = [];
    const io = {
      stdout: (t: string) => void out.push(t),
      stderr: (t: string) => void out.push(t),
      env: {},
      interrupted: new Promise<void>(() => {}),
    };
    const node = target().kind === 'cluster' ? target().cluster!.nodes.split(',')[0] : target().url.slice(8);
    const flags = target().kind === 'cluster' ? ['--cluster'] : [];
    const code = await runCli(
      ['campaign', 'list', '--redis-url', `redis://${node}`, ...flags, '--prefix', 'cli:'],
      io,
    );
    expect({ code, out: out.join('') }).toEqual({ code: 0, out: 'listed\n' });
    if (target().kind === 'cluster') {
      // Without --cluster, a node of a cluster is a usage error naming the flag (not a MOVED from the store).
      out.length = 0;
      // The campaign's keys are on one node: asked through every node, the others answer MOVED.
      const codes: number[] = [];
      for (const other of target().cluster!.nodes.split(',')) {
        const args = ['campaign', 'report', 'listed', '--redis-url', `redis://${other}`, '--prefix', 'cli:'];
        codes.push(await runCli(args, io));
      }
      expect(codes).toContain(2);
      expect(out.join('')).toMatch(/is a node of a Redis Cluster: pass --cluster/);
    }
  });

  it('tracker.message finds one message by its wamid, with its latest status, reading only (nothing parked)', async () => {
    const redis = target().redis;
    const store = new RedisCampaignStore({ redis, prefix: 'one:' });
    const tracker = new CampaignTracker({ store });
    await tracker.record('autumn', [accepted(0, 'wamid.read'), accepted(1, 'wamid.silent')]);
    await tracker.apply(statusObject('read', { id: 'wamid.read', timestamp: '1700000000' }));
    expect(await tracker.message('autumn', 'wamid.read')).toEqual({
      campaign: 'autumn',
      wamid: 'wamid.read',
      to: '998900000000',
      status: 'read',
      billable: false,
    });
    // Accepted, and no status since: the lost receipt.
    expect(await tracker.message('autumn', 'wamid.silent')).toMatchObject({
      to: '998900000001',
      status: 'accepted',
    });
    expect(await tracker.message('spring', 'wamid.read')).toBeUndefined();
    // A send is under way (a recorder is open): `lookup` would park a status for an unknown wamid; a read does not.
    await store.sending('autumn');
    const before = (await target().keys('one:*')).sort();
    expect(await tracker.message('autumn', 'wamid.unknown')).toBeUndefined();
    expect(await store.get('wamid.unknown')).toBeUndefined();
    expect((await target().keys('one:*')).sort()).toEqual(before);
    await expect(tracker.message('autumn', '')).rejects.toBeInstanceOf(ConfigurationError);
    await expect(store.get(7 as never)).rejects.toBeInstanceOf(ConfigurationError);
  });

  it('a status for a wamid in no campaign writes nothing when no send is under way', async () => {
    const redis = target().redis;
    const tracker = new CampaignTracker({ store: new RedisCampaignStore({ redis, prefix: 'quiet:' }) });
    await tracker.apply(statusObject('delivered', { id: 'wamid.stranger' }));
    expect(await target().keys('quiet:*')).toEqual([]);
  });

  it('every key it writes expires: with the retention, parked statuses with parkMs (statuses applied too)', async () => {
    const redis = target().redis;
    const store = new RedisCampaignStore({ redis, prefix: 'ret:', retentionMs: 60_000, parkMs: 30_000 });
    const tracker = new CampaignTracker({ store, retryableFailureCodes: [131026] });
    const recorder = tracker.recorder('c');
    await recorder.ready;
    // Parked: its send result is not recorded yet.
    await tracker.apply(statusObject('sent', { id: 'wamid.p' }));
    expect(await target().keys('ret:camp:p:*')).toHaveLength(1);
    await tracker.record('c', [accepted(0, 'wamid.r'), accepted(1, 'wamid.p')]);
    // The compare-and-set of a status: the message's state, the counters, the examples and the retry entries.
    await tracker.apply(
      statusObject('failed', { id: 'wamid.r', errors: [{ code: 131026, title: 'undeliverable' }] }),
    );
    await tracker.apply(statusObject('delivered', { id: 'wamid.p' }));
    await recorder.close();
    const keys = await target().keys('ret:*');
    // The pointer, the state once moved (a cluster keeps it beside the campaign), counters, examples, retries.
    expect(keys.length).toBeGreaterThanOrEqual(6);
    for (const key of keys) {
      const ttl = await redis.pttl(key);
      const limit = key === 'ret:camp:sending' || key.startsWith('ret:camp:p:') ? 30_000 : 60_000;
      expect(ttl, key).toBeGreaterThan(0);
      expect(ttl, key).toBeLessThanOrEqual(limit);
    }
    expect((await tracker.report('c'))?.funnel).toMatchObject({ accepted: 2, failed: 1, delivered: 1 });
    expect(await store.delete('c')).toBe(true);
    expect(await tracker.report('c')).toBeUndefined();
  });
}
