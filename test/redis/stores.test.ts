/** Each store's behaviour on one real redis-server (the same suite runs on a Redis Cluster: cluster.proof.test.ts). */
import { describeRedis } from '../helpers/redis-server.js';
import { useRedisTarget } from '../helpers/redis-target.js';
import { storesSuite } from './suites/stores.js';

describeRedis('Redis stores on one redis-server', () => {
  storesSuite(useRedisTarget('node'));
});
