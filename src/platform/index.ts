import type { RequestOptions } from '../core/call-options.js';

export type { Auth } from './auth.js';
export { PlatformClient, type PlatformClientOptions } from './client.js';
export type { AssignAgent, Conversations, ConversationTypeInput } from './conversations.js';
export type { Customers, CustomerUpdate } from './customers.js';
export { LoginFailedError, StreamInterruptedError } from './errors.js';
export { type CustomFields, type CustomFieldValue, type Instant, isUuid } from './fields.js';
export type { DetailResponse } from './http.js';
export type { LoginResponse } from './login.js';

/** @deprecated Use `RequestOptions`: the same per-call options, under the name every client takes them by. */
export type CallOptions = RequestOptions;
export type { LoginResult } from './login.js';
export type {
  BatchChunkResult,
  BatchSendAllOptions,
  BatchSendAllResult,
  BatchSendInput,
  BatchSendProgress,
  PlatformMessages,
} from './messages.js';
export {
  BATCH_SEND_MAX,
  DOCUMENT_EXTENSIONS,
  type DocumentItem,
  type ImageItem,
  type InteractiveItem,
  type LocationItem,
  type MessageItem,
  type TextItem,
  type VideoItem,
  validateMessageItems,
} from './messages.schema.js';
export type {
  FeedbacksRangeOptions,
  FeedbacksRangeProgress,
  FeedbacksRangeQuery,
  Reports,
} from './reports.js';
export {
  type ConversationRecord,
  type ConversationsQuery,
  type ConversationType,
  DATE_RANGES,
  type DateRange,
  FEEDBACK_TYPES,
  type Feedback,
  type FeedbacksQuery,
  type FeedbackType,
  type GroupBasedReport,
  REPORT_DATA,
  REPORT_TRUNCS,
  type Report,
  type ReportData,
  type ReportQuery,
  type ReportTrunc,
} from './reports.schema.js';
export {
  type AgentResponseTime,
  type AgentStatsSummary,
  type PeriodAverages,
  type PeriodCounts,
  type PeriodSumCounts,
  STATS_PERIODS,
  type Stats,
  type StatsAgent,
  type StatsChannel,
  type StatsPeriod,
  type StatsSummary,
  type SumCount,
  summarizeStats,
} from './stats.js';
export { STREAM_MAX_SPAN_MS, type StreamOptions } from './stream.js';
export {
  STREAM_MESSAGE_TYPES,
  STREAM_SENDERS,
  type StreamMessage,
  type StreamMessageType,
  type StreamQuery,
  type StreamSender,
} from './stream.schema.js';
export {
  STREAM_MAX_MESSAGES,
  type StreamRangeOptions,
  type StreamRangeProgress,
  type StreamRangeQuery,
} from './stream-range.js';
export { MemoryTokenStore, type TokenEntry, type TokenStore } from './token-store.js';
