/**
 * The store contracts' Redis backend: every store an instance opens shares the one Redis (a server, or a Redis
 * Cluster), as separate processes would. Used by redis.test.ts (one redis-server) and by
 * test/redis/cluster.proof.test.ts (a cluster).
 */
import { createHash } from 'node:crypto';
import {
  type RedisClient,
  RedisIdempotencyStore,
  RedisSessionStore,
  RedisStatusStore,
  RedisTemplateStore,
  RedisWindowStore,
} from '../../src/redis/index.js';
import type { TargetKind } from '../helpers/redis-target.js';
import { LOCK_WAIT_MS, type StoreBackend } from './backend.js';
import { saveOdd } from './odd-sessions.js';

const PREFIX = 'contract:';
/**
 * A customer's lock key as the session store writes it: `<prefix>conv-lock:<sha256 of the key>`, the hash a hash
 * tag on a cluster (beside the customer's record).
 */
function lockKey(kind: TargetKind, id: string): string {
  const hash = createHash('sha256').update(id).digest('base64url');
  return `${PREFIX}conv-lock:${kind === 'cluster' ? `{${hash}}` : hash}`;
}

/** The backend over `redis()`, on one node or a cluster (`kind`). */
export function redisBackend(redis: () => RedisClient, kind: TargetKind = 'node'): StoreBackend {
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
      let inFailingChange = opts?.inFailingChange;
      const store = new RedisStatusStore({
        ...options(),
        onChange: async (change) => {
          if (failures-- > 0) {
            const other = inFailingChange;
            inFailingChange = undefined;
            if (other) await new RedisStatusStore(options()).update(other);
            throw new Error('onChange failed on purpose');
          }
          changes.push(change.current.status);
        },
      });
      return {
        update: (input) => store.update(input),
        get: (wamid) => store.get(wamid),
        delete: (wamid) => store.delete(wamid),
        changes: async () => [...changes],
        billableCount: () => store.billableCount(),
        hostileUpdate: (wamid) =>
          store.update({
            id: wamid,
            get status(): string {
              throw new Error('boom');
            },
          } as never),
      };
    },
    saveOdd: (key, odd, via) =>
      saveOdd(new RedisSessionStore({ ...options(), lockWaitMs: LOCK_WAIT_MS }), key, odd, via),
    deadHolder: async (key, leaseMs) => {
      await redis().set(lockKey(kind, key), 'a dead process', 'PX', leaseMs);
    },
    loseLease: async (key) => {
      await redis().del(lockKey(kind, key)); // the lease ran out, as PX would make it
    },
  };
}
