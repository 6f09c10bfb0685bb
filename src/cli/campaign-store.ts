/** The campaigns a command reads from the Redis that `RedisCampaignStore` writes to: `campaign` and `sandbox`. */
import { CampaignTracker } from '../campaigns/tracker.js';
import type { Logger } from '../core/logger.js';
import { loadOptionalPeer } from '../core/optional-peer.js';
import { CampaignQueue } from '../redis/campaign-queue.js';
import { RedisCampaignStore } from '../redis/campaign-store.js';
import type { RedisClient } from '../redis/client.js';
import { NOT_CLUSTER_REASON, outageReason, watchConnection } from '../redis/connection-log.js';
import { RedisStoreError } from '../redis/errors.js';
import { shownUrl } from '../testing/shown-url.js';
import { type CliIo, UsageError } from './io.js';

/** A tracker over the Redis at `url`, and how to let go of the connection. */
export interface CampaignReader {
  tracker: CampaignTracker;
  close(): void;
  /** Why the connection failed, in words, while it is down (from the client's own error). */
  outage(): string | undefined;
}

/** How to reach the campaigns: the URL and what the command's flags say about it. */
export interface CampaignSource {
  url: string;
  /** The key prefix the store was built with; default `wa:`. */
  prefix?: string | undefined;
  /** The URL is a node of a Redis Cluster. */
  cluster?: boolean | undefined;
  /** The flag the URL came from, and the one that says "cluster", for the messages. */
  flag: string;
  clusterFlag: string;
  /** The command, for the missing-ioredis message. */
  command: string;
  /**
   * `true`: one attempt and no reconnecting, for a command that reads and exits. `false`: the client reconnects,
   * for a process that reads for as long as it runs.
   */
  once: boolean;
  /**
   * How long one command, and the connection, may take before it fails (ms; default 10,000): a Redis that accepts
   * the connection and never answers (stuck, or another service on that port) ends in an error, not a hang.
   */
  timeoutMs?: number;
  /** The store's warnings (Redis lost, back); default the console. */
  logger?: Logger;
  /** Upstream codes whose failed messages the reports' retry lists take (`--retryable-codes`); default none. */
  retryableFailureCodes?: readonly string[];
}

/** Opens the campaigns of `source`; a URL that is not `redis://` or `rediss://` is a `UsageError`. */
export function openCampaigns(source: CampaignSource): CampaignReader {
  const redis = connectTo(source);
  const store = new RedisCampaignStore({
    redis,
    ...(source.prefix ? { prefix: source.prefix } : {}),
    ...(source.logger ? { logger: source.logger } : {}),
  });
  const tracker = new CampaignTracker({ store, retryableFailureCodes: source.retryableFailureCodes ?? [] });
  return { tracker, close: () => redis.disconnect(), outage: () => outageReason(redis) };
}

export type { CampaignQueue };

/** A campaign queue's reader: the queue, its tracker, and how to let go of the connection. */
export type QueueReader = CampaignReader & { queue: CampaignQueue };

/** The campaign queue of `source` (`campaign status|pause|resume|cancel|resend|drop`), and how to let it go. */
export function openQueue(source: CampaignSource): {
  queue: CampaignQueue;
  tracker: CampaignTracker;
  close(): Promise<void>;
  outage(): string | undefined;
  /** Calls `listener` on each error of the connection, after the store has noted its reason (`outage()`). */
  onError(listener: () => void): () => void;
} {
  const redis = connectTo(source);
  const queue = new CampaignQueue({
    redis,
    ...(source.prefix ? { prefix: source.prefix } : {}),
    ...(source.logger ? { logger: source.logger } : {}),
    retryableFailureCodes: source.retryableFailureCodes ?? [],
  });
  return {
    queue,
    tracker: queue.tracker,
    close: async () => {
      await queue.close();
      redis.disconnect();
    },
    outage: () => outageReason(redis),
    onError: (listener) => {
      redis.on('error', listener);
      return () => void redis.off('error', listener);
    },
  };
}

/** The default of `CampaignSource.timeoutMs`. */
export const REDIS_TIMEOUT_MS = 10_000;

/**
 * Whether a Redis URL carries a password, in its user info or its query (ioredis reads it there too). An
 * unparsable URL is left to the client's own check.
 */
function hasPassword(url: string): boolean {
  try {
    const parsed = new URL(url);
    return parsed.password !== '' || parsed.searchParams.has('password');
  } catch {
    return false;
  }
}

/**
 * Warns on stderr when a Redis URL given as `flag`'s value carries a password: arguments show in `ps` and shell
 * history, and `$REDIS_URL` keeps it out of both. `instead` says how to give the URL that way.
 *
 * @example
 * warnPasswordInFlag(io, '--redis-url', url, 'put the URL in $REDIS_URL instead');
 */
export function warnPasswordInFlag(io: CliIo, flag: string, url: string, instead: string): void {
  if (hasPassword(url))
    io.stderr(`warning: the password in ${flag} shows in ps and shell history: ${instead}.\n`);
}

/** An ioredis client for `source` (a `Cluster` with its cluster flag), connecting on first use. */
function connectTo(source: CampaignSource): RedisClient {
  if (!/^rediss?:\/\//.test(source.url))
    throw new UsageError(`${source.flag} must start with redis:// or rediss://.`);
  const { Redis, Cluster } = loadOptionalPeer<{
    Redis: new (url: string, options: object) => RedisClient;
    Cluster: new (nodes: string[], options: object) => RedisClient;
  }>('ioredis', source.command);
  const timeoutMs = source.timeoutMs ?? REDIS_TIMEOUT_MS;
  const timeouts = { connectTimeout: timeoutMs, commandTimeout: timeoutMs };
  const once = { maxRetriesPerRequest: 0, retryStrategy: () => null, ...timeouts };
  const node = source.once ? once : { maxRetriesPerRequest: 1, ...timeouts };
  const redis = source.cluster
    ? new Cluster([source.url], {
        redisOptions: node,
        ...(source.once ? { clusterRetryStrategy: () => null } : {}),
        lazyConnect: true,
      })
    : new Redis(source.url, { ...node, lazyConnect: true });
  // Errors surface where the store is read; the client's own 'error' events would otherwise crash the process.
  redis.on('error', () => {});
  // A command that reads once says its failure itself (`outage()` gives why the connection failed): the stores'
  // "cannot reach Redis" line would be a second message for it, or a late one after the command's own.
  // Watched, a client given a database the server lacks is closed (`connection-log.ts`): ioredis would go on in
  // database 0, on another database's campaigns. The sandbox's store watches its client itself, with its logger.
  if (source.once) watchConnection(redis, undefined, source.command);
  return redis;
}

/**
 * A read's error as what to do, when the fix is a flag: the store's message names the library's fix (an ioredis
 * Cluster), the command's is its cluster flag. `undefined` for any other error.
 */
export function clusterAdvice(error: unknown, source: CampaignSource): UsageError | undefined {
  if (!(error instanceof RedisStoreError) || error.failure !== 'needs_cluster_client' || source.cluster)
    return undefined;
  return new UsageError(
    `the Redis at ${source.flag} is a node of a Redis Cluster: pass ${source.clusterFlag}.`,
  );
}

/**
 * The cluster flag given for one Redis, the reverse of `clusterAdvice`'s mistake, as what to do: `outage` is why
 * the client could not connect. `undefined` for any other reason.
 */
export function notClusterAdvice(source: CampaignSource, outage: string | undefined): UsageError | undefined {
  if (!source.cluster || outage !== NOT_CLUSTER_REASON) return undefined;
  return new UsageError(
    `the Redis at ${shownUrl(source.url)} is not a node of a Redis Cluster (cluster support disabled): drop ` +
      `${source.clusterFlag}.`,
  );
}

/**
 * A read that failed because the connection did, said with why (`connection refused: nothing listens on that
 * port ...`, from the client's own error) and where; `undefined` when the connection gave no reason.
 */
export function unreachable(
  error: unknown,
  source: CampaignSource,
  outage: string | undefined,
): Error | undefined {
  if (!(error instanceof RedisStoreError) || error.failure !== 'unavailable' || outage === undefined)
    return undefined;
  return (
    notClusterAdvice(source, outage) ??
    new Error(`cannot reach the Redis at ${shownUrl(source.url)}: ${outage}.`)
  );
}

/**
 * A read that failed with no system error behind it (a command that timed out, a connection that closed), said
 * with what to check and the flag that changes the wait; `undefined` for any other error. A refused connection
 * (`ECONNREFUSED`) keeps the store's message, which names it.
 */
export function unanswered(error: unknown, source: CampaignSource): Error | undefined {
  if (!(error instanceof RedisStoreError) || error.failure !== 'unavailable' || error.errno !== undefined)
    return undefined;
  const seconds = (source.timeoutMs ?? REDIS_TIMEOUT_MS) / 1000;
  return new Error(
    `the Redis at ${shownUrl(source.url)} did not answer within ${seconds} s, or closed the connection ` +
      `(${error.message.replace(/\.$/, '')}). Is it stuck or overloaded, or is another service on that port? ` +
      'Raise the wait with --timeout <seconds>.',
  );
}
