/**
 * `wa-gateway-sdk/webhooks`: receive the gateway's webhook deliveries. Imports zod and Web APIs only, so it runs on
 * Node, Bun, Deno and Workers.
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
export {
  createNodeWebhookHandler,
  type NodeWebhookRequest,
  type NodeWebhookResponse,
} from './node-handler.js';
export { parseWebhook } from './parse.js';
export {
  type AccountUpdateValue,
  type AudioMessage,
  accountUpdateValueSchema,
  audioMessageSchema,
  type ButtonMessage,
  buttonMessageSchema,
  buttonReplySchema,
  CONVERSATION_ORIGIN_TYPES,
  type ContactsMessage,
  changeSchema,
  contactSchema,
  contactsMessageSchema,
  type DocumentMessage,
  documentMessageSchema,
  entrySchema,
  type ImageMessage,
  INTERACTIVE_TYPES,
  type IncomingMessageWire,
  type InteractiveMessage,
  imageMessageSchema,
  incomingMessageWireSchema,
  interactiveMessageSchema,
  type KnownMessage,
  type KnownMessageType,
  type KnownStatusValue,
  knownMessageSchema,
  type LocationMessage,
  listReplySchema,
  locationMessageSchema,
  MESSAGE_TYPES,
  type MessagesValue,
  messageSchemas,
  messagesValueSchema,
  metadataSchema,
  type OpenEnum,
  type OrderItem,
  type OrderMessage,
  orderItemSchema,
  orderMessageSchema,
  type ReactionMessage,
  reactionMessageSchema,
  type SharedContact,
  STATUS_VALUES,
  type StatusError,
  type StickerMessage,
  sharedContactSchema,
  statusErrorSchema,
  statusSchema,
  stickerMessageSchema,
  TEMPLATE_STATUS_EVENTS,
  type TemplateStatusValue,
  type TextMessage,
  templateStatusValueSchema,
  textMessageSchema,
  type UnknownInteractive,
  unknownInteractiveSchema,
  type VideoMessage,
  videoMessageSchema,
  type WebhookContact,
  type WebhookEnvelope,
  type WebhookMetadata,
  type WebhookStatus,
  webhookEnvelopeSchema,
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
