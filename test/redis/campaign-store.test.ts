/** RedisCampaignStore on one real redis-server (the same suite runs on a Redis Cluster: cluster.proof.test.ts). */
import { describeRedis } from '../helpers/redis-server.js';
import { useRedisTarget } from '../helpers/redis-target.js';
import { campaignExpirySuite } from './suites/campaign-expiry.js';
import { campaignStoreSuite } from './suites/campaign-store.js';

describeRedis('RedisCampaignStore on one redis-server', () => {
  const target = useRedisTarget('node');
  campaignStoreSuite(target);
  campaignExpirySuite(target);
});
