/**
 * `wa-gateway-sdk/redis`: the stores that make the SDK's guarantees hold across many processes (pods, serverless
 * functions, a web tier plus workers). Node only; `ioredis` and `bullmq` are optional peer dependencies that only
 * this entry loads. ioredis because BullMQ (the durable inbox) requires it: one client serves the whole entry.
 */

export {
  type CampaignHold,
  CampaignQueue,
  type CampaignQueueMessage,
  type CampaignQueueOptions,
  type CampaignQueueReport,
  type CampaignQueueStatus,
  type CampaignWait,
  type CampaignWorker,
  type CampaignWorkerOptions,
  type EnqueueOptions,
  type EnqueueResult,
  type InDoubtMessage,
} from './campaign-queue.js';
export { RedisCampaignStore, type RedisCampaignStoreOptions } from './campaign-store.js';
export type { RedisClient } from './client.js';
export {
  RedisSessionStore,
  type RedisSessionStoreOptions,
  RedisWindowStore,
  type RedisWindowStoreOptions,
} from './conversation-stores.js';
export {
  CampaignQueueError,
  type CampaignQueueErrorReason,
  InboxError,
  type InboxErrorReason,
  RedisStoreError,
  type RedisStoreFailure,
} from './errors.js';
export {
  RedisIdempotencyStore,
  type RedisIdempotencyStoreOptions,
} from './idempotency-store.js';
export {
  createInboxHandler,
  createNodeInboxHandler,
  DEFAULT_INBOX_QUEUE,
  type InboxHandlerControls,
  type InboxHandlerOptions,
  type InboxQueueOptions,
  inboxJobId,
} from './inbox.js';
export type { InboxConnection } from './inbox-connection.js';
export {
  createInboxWorker,
  type FailedInboxEvent,
  type InboxBackoff,
  type InboxCounts,
  type InboxEventContext,
  type InboxWorker,
  type InboxWorkerErrorInfo,
  type InboxWorkerOptions,
} from './inbox-worker.js';
export { RedisRateLimiter, type RedisRateLimiterOptions } from './rate-limiter.js';
export { RedisStatusStore, type RedisStatusStoreOptions } from './status-store.js';
export type { RedisStoreOptions } from './store-options.js';
export { RedisSuppressionList, type RedisSuppressionListOptions } from './suppressions.js';
export { RedisTemplateStore, type RedisTemplateStoreOptions } from './template-store.js';
export { RedisTokenStore, type RedisTokenStoreOptions } from './token-store.js';
