export { GatewayClient, type GatewayClientOptions } from './client.js';
export type { DownloadOptions, Media, MediaDownload } from './media.js';
// Types only: the message schemas are on `wa-gateway-sdk/schemas`.
export type {
  OutboundAudioMessage,
  OutboundDocumentMessage,
  OutboundImageMessage,
  OutboundInteractiveMessage,
  OutboundMessage,
  OutboundTemplateMessage,
  OutboundTextMessage,
  SendContact,
  SendResponse,
  TemplateComponent,
  TemplateParameter,
  ValidatedMessage,
} from './message-schema.js';
export type {
  Messages,
  SendOptions,
  SendTemplateArguments,
  UncheckedMessage,
  UnshownFields,
} from './messages.js';
export { normalizeRecipient } from './recipient.js';
export type { SendFlags, SendResult } from './send.js';
export type {
  CampaignObserver,
  SendManyOptions,
  SendManyProgress,
  SendManyRecorder,
  SendManyResult,
} from './send-many.js';
export { ServiceWindowClosedError, type WindowStore } from './service-window.js';
export { type FilledTemplate, filledTemplate, templateMessage } from './template-message.js';
export {
  assertValidMessage,
  type MessageValidationResult,
  validateMessage,
} from './validate-message.js';
