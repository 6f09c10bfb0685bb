/** CampaignQueue on one real redis-server (the same suite runs on a Redis Cluster: cluster.proof.test.ts). */
import { describeRedis } from '../helpers/redis-server.js';
import { useRedisTarget } from '../helpers/redis-target.js';
import { campaignQueueSuite } from './suites/campaign-queue.js';

describeRedis('CampaignQueue on one redis-server', () => {
  const target = useRedisTarget('node');
  campaignQueueSuite(target);
});
