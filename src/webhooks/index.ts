/**
 * `wa-gateway-sdk/webhooks`: receive the gateway's webhook deliveries. Imports Web APIs only, so it runs on Node,
 * Bun, Deno and Workers; it checks and shapes a delivery with the checkers generated from the webhook schemas and
 * loads no zod. The schemas themselves (zod/mini) are on `wa-gateway-sdk/webhooks/schemas`.
 */
export { ConfigurationError, WaGatewayError, WebhookParseError } from '../core/errors.js';
export type { Logger, LogLevel } from '../core/logger.js';
export { type Customer, customerOf } from './customer.js';
export type { WebhookBody } from './decode-body.js';
export {
  type ClaimResult,
  DEFAULT_DEDUPE_TTL_MS,
  type IdempotencyStore,
  MemoryIdempotencyStore,
  type MemoryIdempotencyStoreOptions,
} from './dedup.js';
export { parseTimestamp } from './event-fields.js';
export {
  type AccountUpdateEvent,
  type IncomingMessage,
  isReactionRemoved,
  type MessageEvent,
  type StatusEvent,
  type TemplateStatusEvent,
  type UnknownEvent,
  type UnknownMessage,
  type WebhookEvent,
  type WebhookEventKind,
  type WebhookIssue,
} from './events.js';
export { createWebhookHandler } from './fetch-handler.js';
export type {
  WebhookErrorInfo,
  WebhookEventContext,
  WebhookHandlerOptions,
  WebhookLogger,
  WebhookPlatformContext,
} from './handler-options.js';
export { MESSAGE_TYPES } from './message-types.js';
export {
  createNodeWebhookHandler,
  type NodeWebhookRequest,
  type NodeWebhookResponse,
} from './node-handler.js';
export { parseWebhook } from './parse.js';
export type {
  AccountUpdateValue,
  AudioMessage,
  ButtonMessage,
  ContactsMessage,
  DocumentMessage,
  ImageMessage,
  IncomingMessageWire,
  InteractiveMessage,
  KnownMessage,
  KnownMessageType,
  KnownStatusValue,
  LocationMessage,
  MessagesValue,
  OpenEnum,
  OrderItem,
  OrderMessage,
  ReactionMessage,
  SharedContact,
  StatusError,
  StickerMessage,
  TemplateStatusValue,
  TextMessage,
  UnknownInteractive,
  VideoMessage,
  WebhookContact,
  WebhookEnvelope,
  WebhookMetadata,
  WebhookStatus,
} from './schemas.js';
export {
  type StatusChange,
  StatusTracker,
  type StatusTrackerOptions,
  type StatusUpdateResult,
  type StatusUpdateReturn,
  type TrackedStatus,
} from './status-tracker.js';
export {
  RawBodyRequiredError,
  signUpstreamBody,
  verifyUpstreamSignature,
} from './upstream-signature.js';
export { verifyAuthorization } from './verify.js';
export {
  CONVERSATION_ORIGIN_TYPES,
  INTERACTIVE_TYPES,
  STATUS_VALUES,
  TEMPLATE_STATUS_EVENTS,
} from './vocabulary.js';
