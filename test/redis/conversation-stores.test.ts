/**
 * RedisSessionStore and RedisWindowStore on one real redis-server (the same suite runs on a Redis Cluster:
 * cluster.proof.test.ts).
 */
import { describeRedis } from '../helpers/redis-server.js';
import { useRedisTarget } from '../helpers/redis-target.js';
import { conversationStoresSuite } from './suites/conversation-stores.js';

describeRedis('conversation stores on one redis-server', () => {
  conversationStoresSuite(useRedisTarget('node'));
});
