/**
 * The claim lease against the gateway's real retry schedule on one real redis-server (the same suite runs on a
 * Redis Cluster: cluster.proof.test.ts).
 */
import { describeRedis } from '../helpers/redis-server.js';
import { useRedisTarget } from '../helpers/redis-target.js';
import { claimLeaseSuite } from './suites/claim-lease.js';

describeRedis('claim leases with RedisIdempotencyStore on one redis-server', () => {
  claimLeaseSuite(useRedisTarget('node'));
});
