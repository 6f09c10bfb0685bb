/**
 * wa-gateway-sdk: the gateway client, the public API and platform clients, every error class, template
 * validation and all public types.
 */
export * from './core/errors.js';
export type { Logger } from './core/logger.js';
export { RateLimiter, type SendLimiter } from './core/rate-limiter.js';
export type { RetryRules } from './core/retry-policy.js';
export type { DeepReadonly } from './core/types.js';
export { SDK_VERSION } from './core/version.js';
export * from './gateway/index.js';
export * from './platform/index.js';
export * from './public-api/index.js';
export * from './templates/index.js';
export * from './webhooks/index.js';
