/**
 * The store contracts on `wa-gateway-sdk/redis`, against a real redis-server: every store an instance opens
 * shares the one server, as separate processes would. (test/redis/ keeps the Redis stores' own tests: key
 * layout, answers of foreign shapes, the connection's faults.)
 */
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import {
  RedisIdempotencyStore,
  RedisSessionStore,
  RedisStatusStore,
  RedisTemplateStore,
  RedisWindowStore,
} from '../../src/redis/index.js';
import { describeRedis, useRedis } from '../helpers/redis-server.js';
import { LOCK_WAIT_MS, type StoreBackend } from './backend.js';
import { storeContracts } from './contracts.js';

const PREFIX = 'contract:';
/** A key as the Redis stores write it: `<prefix><kind>:<sha256 of the key>`. */
const redisKey = (kind: string, id: string) =>
  `${PREFIX}${kind}:${createHash('sha256').update(id).digest('base64url')}`;

function redisBackend(redis: () => Redis): StoreBackend {
  const options = () => ({ redis: redis(), prefix: PREFIX, logLevel: 'off' as const });
  return {
    name: 'redis',
    shared: true,
    dedupe: () => new RedisIdempotencyStore(options()),
    sessions: () => new RedisSessionStore({ ...options(), lockWaitMs: LOCK_WAIT_MS }),
    window: () => new RedisWindowStore(options()),
    templates: () => new RedisTemplateStore(options()),
    statuses: (opts) => {
      const changes: string[] = [];
      let failures = opts?.failChanges ?? 0;
      const store = new RedisStatusStore({
        ...options(),
        onChange: (change) => {
          if (failures-- > 0) throw new Error('onChange failed on purpose');
          changes.push(change.current.status);
        },
      });
      return {
        update: (input) => store.update(input),
        get: (wamid) => store.get(wamid),
        delete: (wamid) => store.delete(wamid),
        changes: async () => [...changes],
        hostileUpdate: (wamid) =>
          store.update({
            id: wamid,
            get status(): string {
              throw new Error('boom');
            },
          } as never),
      };
    },
    deadHolder: async (key, leaseMs) => {
      await redis().set(redisKey('conv-lock', key), 'a dead process', 'PX', leaseMs);
    },
    loseLease: async (key) => {
      await redis().del(redisKey('conv-lock', key)); // the lease ran out, as PX would make it
    },
  };
}

describeRedis('store contracts: Redis', () => {
  let client: Redis | undefined;
  useRedis((_server, redis) => {
    client = redis;
  });
  storeContracts(redisBackend(() => client!));
});
