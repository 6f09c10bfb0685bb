export { GatewayClient, type GatewayClientOptions } from './client.js';
export { type DownloadOptions, Media, type MediaDownload } from './media.js';
export * from './message-schema.js';
export {
  Messages,
  type SendFlags,
  type SendManyOptions,
  type SendManyProgress,
  type SendManyResult,
  type SendOptions,
  type SendResult,
  type UncheckedMessage,
  type UnshownFields,
} from './messages.js';
export { normalizeRecipient } from './recipient.js';
export {
  assertValidMessage,
  type MessageValidationResult,
  validateMessage,
} from './validate-message.js';
