/**
 * The Redis suites on a real Redis Cluster (three primaries, three replicas on loopback: test/helpers/redis-cluster.ts):
 * the same tests as on one redis-server, and no command refused with `CROSSSLOT` on the way.
 */
import type { Cluster } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { GatewayClient } from '../../src/index.js';
import { CampaignQueue, RedisRateLimiter, RedisStatusStore } from '../../src/redis/index.js';
import { startSandbox } from '../../src/testing/index.js';
import { statusObject } from '../../src/testing/webhook-fixtures.js';
import { waitFor } from '../helpers/manual-clock.js';
import { describeRedis } from '../helpers/redis-server.js';
import { useRedisTarget } from '../helpers/redis-target.js';
import { storeContracts } from '../store-contracts/contracts.js';
import { redisBackend } from '../store-contracts/redis-backend.js';
import { campaignExpirySuite } from './suites/campaign-expiry.js';
import { campaignQueueSuite } from './suites/campaign-queue.js';
import { campaignStoreSuite } from './suites/campaign-store.js';
import { claimLeaseSuite } from './suites/claim-lease.js';
import { conversationStoresSuite } from './suites/conversation-stores.js';
import { kitSuite } from './suites/kit.js';
import { storesSuite } from './suites/stores.js';
import { wrongClientSuite } from './suites/wrong-client.js';

describeRedis('on a Redis Cluster', () => {
  // Its suites flush the cluster between tests: a cluster of its own, not CI's shared one.
  const target = useRedisTarget('cluster', { exclusive: true });
  describe('the kit', () => kitSuite(target));
  describe('stores', () => storesSuite(target));
  describe('conversation stores', () => conversationStoresSuite(target));
  describe('claim leases across instances', () => claimLeaseSuite(target));
  describe('campaign store', () => campaignStoreSuite(target));
  describe('campaign store expiry', () => campaignExpirySuite(target));
  describe('campaign queue', () => campaignQueueSuite(target));
  describe('the store contracts', () => storeContracts(redisBackend(() => target().redis, 'cluster')));
  it("a prefix with a hash tag (the previous versions' advice) keeps their key names in one slot, and says so once", async () => {
    const logged: string[] = [];
    const logger = { warn: (m: string) => void logged.push(m) };
    const redis = target().redis;
    const limiter = new RedisRateLimiter({ redis, prefix: '{wa}:', name: 'old', logger });
    new RedisStatusStore({ redis, prefix: '{wa}:', logger });
    (await limiter.acquire())();
    await new RedisStatusStore({ redis, prefix: '{wa}:', logger }).update(
      statusObject('delivered', { id: 'wamid.old' }),
    );
    // The names the previous version wrote: an upgrade finds its state.
    expect(await target().keys('{wa}:*')).toEqual(
      expect.arrayContaining(['{wa}:limit:old:slots', '{wa}:status-billable']),
    );
    expect((await target().keys('{wa}:status:*')).every((k) => /^\{wa\}:status:[\w-]{43}$/.test(k))).toBe(
      true,
    );
    expect(logged.filter((m) => /holds a hash tag/.test(m))).toHaveLength(1);
  });
  it("the campaign queue's replicas option: WAIT reaches the primary of the campaign's ledger, and only that one", async () => {
    await target().flush();
    const sandbox = await startSandbox({ ratePerSecond: 100_000, statusDelaysMs: [0, 0, 0] });
    const redis = target().redis as Cluster;
    const waits = async () =>
      Promise.all(
        redis.nodes('master').map(async (node) => {
          const calls = /cmdstat_wait:calls=(\d+)/.exec(await node.info('commandstats'))?.[1];
          return { node, calls: Number(calls ?? 0) };
        }),
      );
    const before = await waits();
    const queue = new CampaignQueue({ redis, prefix: 'cqr:', logLevel: 'off' });
    const gateway = new GatewayClient({ apiKey: 'sk_test_sandbox', baseUrl: sandbox.url, rateLimit: false });
    const worker = queue.work({ gateway, pollMs: 2, replicas: { count: 1, timeoutMs: 1000 } });
    try {
      await worker.ready();
      const to = Array.from({ length: 6 }, (_, i) => `99892${String(i).padStart(7, '0')}`);
      await queue.enqueue(
        'replicated',
        to.map((t) => ({ to: t, type: 'text' as const, text: { body: 'hi' } })),
      );
      await waitFor(async () => (await queue.status('replicated'))?.accepted === 6, 'six accepted', 60_000);
      expect(sandbox.simulator.sent).toHaveLength(6);
      const after = await waits();
      const waited = after.filter((a, i) => a.calls > (before[i]?.calls ?? 0));
      // One primary took every WAIT: the one that holds the campaign's ledger (a direct client finds the key there).
      expect(waited).toHaveLength(1);
      expect(await waited[0]!.node.keys('cqr:cq:l:*')).toHaveLength(1);
    } finally {
      await worker.close();
      await queue.close();
      await sandbox.close();
    }
  }, 120_000);
  // useRedisTarget checks at the end that no command was refused with CROSSSLOT: the suites above, counted now,
  // before the one below provokes refusals on purpose (a standalone client's commands) and resets the counts.
  it('refused no command with CROSSSLOT', async () => {
    expect(await target().crossSlotErrors()).toBe(0);
  });
  describe('a standalone client pointed at a cluster node', () => {
    wrongClientSuite(target);
    afterAll(() => target().resetErrorStats());
  });
});
