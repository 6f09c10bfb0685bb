/**
 * `wa-gateway-sdk/redis`: the stores that make the SDK's guarantees hold across many processes (pods, serverless
 * functions, a web tier plus workers). Node only; `ioredis` and `bullmq` are optional peer dependencies that only
 * this entry loads.
 */
export {
  createInboxHandler,
  createNodeInboxHandler,
  DEFAULT_INBOX_QUEUE,
  InboxError,
  type InboxErrorReason,
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
