/** The campaigns a command reads from the Redis that `RedisCampaignStore` writes to: `campaign` and `sandbox`. */
import { CampaignTracker } from '../campaigns/tracker.js';
import type { Logger } from '../core/logger.js';
import { loadOptionalPeer } from '../core/optional-peer.js';
import { RedisCampaignStore } from '../redis/campaign-store.js';
import type { RedisClient } from '../redis/redis-answer.js';
import { UsageError } from './io.js';

/** A tracker over the Redis at `url`, and how to let go of the connection. */
export interface CampaignReader {
  tracker: CampaignTracker;
  close(): void;
}

/**
 * Opens the campaigns at `url` (checked: `redis://` or `rediss://`, else a `UsageError` naming `flag`) under
 * `prefix`. `once`: one attempt and no reconnecting, for a command that reads and exits; else the client reconnects,
 * for a process that reads for as long as it runs.
 */
export function openCampaigns(
  url: string,
  options: { prefix?: string | undefined; flag: string; command: string; once: boolean; logger?: Logger },
): CampaignReader {
  if (!/^rediss?:\/\//.test(url))
    throw new UsageError(`${options.flag} must start with redis:// or rediss://.`);
  const { Redis } = loadOptionalPeer<{ Redis: new (url: string, options: object) => RedisClient }>(
    'ioredis',
    options.command,
  );
  const redis = options.once
    ? new Redis(url, { maxRetriesPerRequest: 0, retryStrategy: () => null, lazyConnect: true })
    : new Redis(url, { maxRetriesPerRequest: 1, lazyConnect: true });
  // Errors surface where the store is read; the client's own 'error' events would otherwise crash the process.
  redis.on('error', () => {});
  const store = new RedisCampaignStore({
    redis,
    ...(options.prefix ? { prefix: options.prefix } : {}),
    ...(options.logger ? { logger: options.logger } : {}),
  });
  return { tracker: new CampaignTracker({ store }), close: () => redis.disconnect() };
}

/** A Redis URL as it may be printed: without its user name and password. */
export function redactedRedisUrl(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.username = '';
    parsed.password = '';
    return parsed.toString();
  } catch {
    return '(the given URL)';
  }
}
