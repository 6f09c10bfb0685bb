/**
 * wa-gateway-sdk: the gateway client, the public API and platform clients, every error class, template
 * validation and all public types.
 */
export { ApiPromise, type ResponseInfo, type WithResponse } from './core/api-promise.js';
export { RESERVED_HEADERS, type RequestOptions } from './core/call-options.js';
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
export type { RequestEvent, RequestHooks, ResponseEvent } from './core/hooks.js';
export { LOG_ENV, type Logger, type LogLevel } from './core/logger.js';
export { RateLimiter, type SendLimiter } from './core/rate-limiter.js';
export type { RetryRules } from './core/retry-policy.js';
export type { DeepReadonly } from './core/types.js';
export { SDK_VERSION } from './core/version.js';
export * from './gateway/index.js';
export * from './platform/index.js';
export * from './public-api/index.js';
export * from './templates/index.js';
export * from './webhooks/index.js';
