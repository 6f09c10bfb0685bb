/**
 * wa-gateway-sdk: the gateway client, the public API and platform clients, every error class, template
 * validation and all public types. Classes, functions, constants and types only: the zod schemas meant for users
 * are on `wa-gateway-sdk/schemas` (see docs/api-surface.md), so a schema refactor is not a change of this entry.
 */

export type {
  CampaignHold,
  CampaignQueueStatus,
  CampaignQueueView,
  CampaignWait,
} from './campaigns/queue-status.js';
export { type CampaignClock, CampaignRecordError } from './campaigns/recorder.js';
export type { CampaignMessageStatus, CampaignRefusal, CampaignResult } from './campaigns/records.js';
export {
  type CampaignCommit,
  type CampaignRecordBatch,
  type CampaignStore,
  type CampaignTotals,
  MemoryCampaignStore,
  type MemoryCampaignStoreOptions,
} from './campaigns/store.js';
export { MemorySuppressionList, type SuppressionList } from './campaigns/suppressions.js';
export {
  type CampaignMessage,
  type CampaignReport,
  type CampaignRetry,
  CampaignTracker,
  type CampaignTrackerOptions,
} from './campaigns/tracker.js';
export { ApiPromise, type ResponseInfo, type WithResponse } from './core/api-promise.js';
export type { RequestOptions } from './core/call-options.js';
export type { CommonClientOptions } from './core/client-options.js';
// Every error class; not brandError or apiErrorClassFor, which are the SDK's own plumbing.
export {
  ApiError,
  type ApiErrorDetails,
  AuthenticationError,
  BadRequestError,
  ConfigurationError,
  ConflictError,
  ConnectionError,
  ContentionError,
  EndpointNotLiveError,
  type FieldIssue,
  InternalServerError,
  InvalidResponseError,
  type MessageIssue,
  MessageValidationError,
  MethodNotAllowedError,
  MissingDependencyError,
  NotFoundError,
  NotSentError,
  PaymentRequiredError,
  PermissionDeniedError,
  RateLimitError,
  RedirectError,
  StreamError,
  type TemplateIssue,
  TemplateValidationError,
  TimeoutError,
  UnprocessableEntityError,
  UpstreamError,
  WaGatewayError,
  WebhookParseError,
} from './core/errors.js';
export type { AttemptError, RequestEvent, RequestHooks, ResponseEvent } from './core/hooks.js';
export type { Logger, LogLevel } from './core/logger.js';
export type { DeepReadonly } from './core/plain-data.js';
export { RateLimiter, type SendLimiter } from './core/rate-limiter.js';
export type { RetryRules } from './core/retry-policy.js';
export { SDK_VERSION } from './core/version.js';
export * from './gateway/index.js';
export * from './platform/index.js';
export * from './public-api/index.js';
// Templates as code: definitions, the catalogue and checked template sends.
export {
  type CatalogEntry,
  MemoryTemplateStore,
  TemplateCatalog,
  type TemplateCatalogOptions,
  type TemplateRecord,
  type TemplateRecordPatch,
  type TemplateStateInput,
  type TemplateStore,
} from './templates/catalog.js';
export * from './templates/define.js';
// The templates and webhooks entries also export their zod/mini schemas (a Worker or a browser form can use them
// without classic zod); here they are named one by one so that the schemas stay off the main entry. The webhooks
// entry owns its functions, classes and constants (DESIGN's entry table): this entry re-exports its types only,
// and its error classes (this entry holds every error class).
export {
  assertValidTemplate,
  BUTTON_TYPES,
  type ButtonType,
  type CarouselCard,
  HEADER_FORMATS,
  type HeaderFormat,
  isTemplateLanguage,
  type LimitedTimeOffer,
  OTP_TYPES,
  type OtpType,
  TEMPLATE_CATEGORIES,
  TEMPLATE_LANGUAGES,
  TEMPLATE_STATUSES,
  type TemplateBody,
  type TemplateButton,
  type TemplateCategory,
  type TemplateCreated,
  type TemplateCreateRequest,
  type TemplateFooter,
  type TemplateHeader,
  type TemplateLanguage,
  type TemplateRuleInfo,
  type TemplateStatus,
  type TemplateValidationResult,
  templateRules,
  validateTemplate,
} from './templates/index.js';
export {
  TEMPLATE_SEND_RULES,
  TemplateSendError,
  type TemplateSendProblem,
  type TemplateSendRule,
} from './templates/send-check.js';
export {
  type AccountUpdateEvent,
  type AccountUpdateValue,
  type AudioMessage,
  type ButtonMessage,
  type ClaimResult,
  type ContactsMessage,
  type Customer,
  type DocumentMessage,
  type IdempotencyStore,
  type ImageMessage,
  type IncomingMessage,
  type IncomingMessageWire,
  type InteractiveMessage,
  type KnownMessage,
  type KnownMessageType,
  type KnownStatusValue,
  type LocationMessage,
  type MemoryIdempotencyStoreOptions,
  type MessageEvent,
  type MessagesValue,
  type NodeWebhookRequest,
  type NodeWebhookResponse,
  type OpenEnum,
  type OrderItem,
  type OrderMessage,
  RawBodyRequiredError,
  type ReactionMessage,
  type SharedContact,
  type StatusError,
  type StatusEvent,
  type StatusTrackerOptions,
  type StatusUpdateResult,
  type StickerMessage,
  type TemplateStatusEvent,
  type TemplateStatusValue,
  type TextMessage,
  type TrackedStatus,
  type UnknownEvent,
  type UnknownInteractive,
  type UnknownMessage,
  type VideoMessage,
  type WebhookBody,
  type WebhookContact,
  type WebhookEnvelope,
  type WebhookErrorInfo,
  type WebhookEvent,
  type WebhookEventContext,
  type WebhookEventKind,
  type WebhookHandlerOptions,
  type WebhookIssue,
  type WebhookLogger,
  type WebhookMetadata,
  type WebhookPlatformContext,
  type WebhookStatus,
} from './webhooks/index.js';
