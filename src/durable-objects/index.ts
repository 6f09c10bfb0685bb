/**
 * `wa-gateway-sdk/durable-objects`: the stores a webhook and a bot need, on Cloudflare Durable Objects, so that
 * their guarantees hold across every isolate and location of a Worker, not within one isolate: deduplication with
 * its lease, each customer's session, lock and fenced save, the 24-hour window, delivery statuses and the template
 * catalogue. Export `WaGatewayDurableObject` from the Worker, bind it in `wrangler.toml`, and give the binding to
 * the stores. Imports no Node built-in and nothing from `cloudflare:workers`, so it also imports in Node (tests,
 * type checks). See docs/durable-objects.md.
 */
export { WaGatewayError } from '../core/errors.js';
export type {
  DurableObjectNamespaceLike,
  DurableObjectStoreOptions,
  DurableObjectStubLike,
} from './binding.js';
export {
  DurableObjectSessionStore,
  type DurableObjectSessionStoreOptions,
  DurableObjectWindowStore,
  type DurableObjectWindowStoreOptions,
} from './conversation-stores.js';
export { DurableObjectStoreError, type DurableObjectStoreFailure } from './errors.js';
export {
  DurableObjectIdempotencyStore,
  type DurableObjectIdempotencyStoreOptions,
} from './idempotency-store.js';
export { WaGatewayDurableObject } from './object.js';
export type { DurableObjectStateLike, DurableObjectStorageLike } from './object-state.js';
export { DurableObjectStatusStore, type DurableObjectStatusStoreOptions } from './status-store.js';
export { DurableObjectTemplateStore } from './template-store.js';
