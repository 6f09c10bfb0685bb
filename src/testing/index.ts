/**
 * `wa-gateway-sdk/testing`: build and test an integration with no credentials and no network. msw handlers
 * that behave like the gateway and the public API, typed fixture builders for every webhook event, a signer
 * for upstream signatures, and `startSandbox`, a local gateway on a real socket that delivers webhooks.
 * Needs `msw` (an optional peer dependency) for the handlers.
 */

export { signUpstreamBody } from '../webhooks/upstream-signature.js';
export {
  type DeliverOptions,
  type DeliveryAttempt,
  deliverWebhook,
  GATEWAY_RETRY_DELAYS_MS,
} from './deliver.js';
export {
  GatewaySimulator,
  type GatewaySimulatorOptions,
  type SentMessage,
  type UpstreamFailure,
} from './gateway-simulator.js';
export { createGatewayHandlers, createPublicApiHandlers } from './msw-handlers.js';
export { createPlatformHandlers } from './platform/msw.js';
export { PlatformSimulator } from './platform/simulator.js';
export {
  type ConversationTypeDefinition,
  type CustomFieldKind,
  type PlatformAssignment,
  type PlatformBatchSend,
  type PlatformCustomerState,
  type PlatformFault,
  type PlatformHandlersOptions,
  type PlatformLogin,
  type PlatformRequest,
  PlatformState,
  type PlatformToken,
  type PlatformUser,
  platformMessageRecord,
  type ReportSections,
} from './platform/state.js';
export { startSandbox } from './sandbox/sandbox.js';
export type {
  Sandbox,
  SandboxEvent,
  SandboxFaults,
  SandboxOptions,
  SandboxPlatform,
  SandboxSend,
} from './sandbox/types.js';
export type { SimulatedRequest, SimulatedResponse } from './simulated-http.js';
export { type RegisteredTemplate, TemplateRegistry } from './template-registry.js';
export * from './webhook-fixtures.js';
