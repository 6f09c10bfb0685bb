/**
 * `wa-gateway-sdk/conversations`: a reply router over the webhook events, state per customer, multi-step flows,
 * human takeover and the 24-hour service window, right under retries and many instances. Imports zod and Web
 * APIs only, so it runs on Node, Bun, Deno and Workers; `RedisSessionStore` and `RedisWindowStore` are in
 * `wa-gateway-sdk/redis`.
 */
export { ConfigurationError, WaGatewayError } from '../core/errors.js';
export {
  checkServiceWindow,
  SERVICE_WINDOW_MS,
  ServiceWindowClosedError,
  type WindowStore,
  windowClosesAt,
} from '../gateway/service-window.js';
export { ConversationError, type ConversationErrorReason } from './errors.js';
export {
  type AccountUpdateContext,
  type ButtonTap,
  type ChoiceMessage,
  createRouter,
  type EventContext,
  type FlowDefinition,
  type MatchedContext,
  type MatchOf,
  type MessageContext,
  type MessageHandler,
  type MessageOfType,
  type Middleware,
  type RefusedReplyError,
  type ReplyMessage,
  type ReplyResult,
  type ReplyTemplate,
  type ReplyTemplateArguments,
  type Router,
  type RouterGateway,
  type RouterOptions,
  type StatusContext,
  type TemplateStatusContext,
  type UnknownEventContext,
} from './router.js';
export {
  MemorySessionStore,
  type MemorySessionStoreOptions,
  MemoryWindowStore,
  type MemoryWindowStoreOptions,
  type SessionLock,
  type SessionStore,
} from './stores.js';
