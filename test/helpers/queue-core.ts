/** A `QueueCore` over `redis` under `prefix`, for tests that reach under `CampaignQueue` (its ledger, its checks). */
import { QueueCore } from '../../src/redis/campaign-core.js';
import type { RedisClient } from '../../src/redis/client.js';
import { openStore } from '../../src/redis/store-options.js';

export function queueCoreOf(redis: RedisClient, prefix: string): QueueCore {
  const store = openStore({ redis, prefix, logLevel: 'off' }, 'test');
  return new QueueCore({
    redis,
    keys: store.keys,
    prefix: store.prefix,
    retentionMs: 60_000,
    parkMs: 60_000,
    retryableFailureCodes: [],
    suppressions: undefined,
    logger: undefined,
  });
}
