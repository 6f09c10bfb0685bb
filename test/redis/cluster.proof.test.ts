/**
 * The Redis suites on a real Redis Cluster (three primaries, three replicas on loopback: test/helpers/redis-cluster.ts):
 * the same tests as on one redis-server, and no command refused with `CROSSSLOT` on the way.
 */
import { describe } from 'vitest';
import { describeRedis } from '../helpers/redis-server.js';
import { useRedisTarget } from '../helpers/redis-target.js';
import { campaignStoreSuite } from './suites/campaign-store.js';
import { claimLeaseSuite } from './suites/claim-lease.js';
import { conversationStoresSuite } from './suites/conversation-stores.js';
import { kitSuite } from './suites/kit.js';
import { storesSuite } from './suites/stores.js';

describeRedis('on a Redis Cluster', () => {
  // Its suites flush the cluster between tests: a cluster of its own, not CI's shared one.
  const target = useRedisTarget('cluster', { exclusive: true });
  describe('the kit', () => kitSuite(target));
  describe('stores', () => storesSuite(target));
  describe('conversation stores', () => conversationStoresSuite(target));
  describe('claim leases across instances', () => claimLeaseSuite(target));
  describe('campaign store', () => campaignStoreSuite(target));
  // useRedisTarget checks at the end that no command was refused with CROSSSLOT.
});
