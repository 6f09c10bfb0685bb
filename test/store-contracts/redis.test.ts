/**
 * The store contracts on `wa-gateway-sdk/redis`, against a real redis-server (on a Redis Cluster:
 * test/redis/cluster.proof.test.ts): every store an instance opens shares the one server, as separate processes
 * would. (test/redis/ keeps the Redis stores' own tests: key layout, answers of foreign shapes, the connection's
 * faults.)
 */
import type { Redis } from 'ioredis';
import { describeRedis, useRedis } from '../helpers/redis-server.js';
import { storeContracts } from './contracts.js';
import { redisBackend } from './redis-backend.js';

describeRedis('store contracts: Redis', () => {
  let client: Redis | undefined;
  useRedis((_server, redis) => {
    client = redis;
  });
  storeContracts(redisBackend(() => client!));
});
