/** The Redis kit (leases, compare-and-set, scripts' expiries) on one real redis-server; on a cluster in cluster.proof.test.ts. */
import { describeRedis } from '../helpers/redis-server.js';
import { useRedisTarget } from '../helpers/redis-target.js';
import { kitSuite } from './suites/kit.js';

describeRedis('the Redis kit on one redis-server', () => {
  kitSuite(useRedisTarget('node'));
});
