/**
 * The values the webhook wire documents, as constants: what the schemas' open enumerations offer for autocomplete
 * and what the `wa-gateway-sdk/webhooks` entry exports. Imports nothing, so the entry loads no zod for them.
 */

/** Status values the spec documents. Others may appear and are accepted. */
export const STATUS_VALUES = ['sent', 'delivered', 'read', 'failed'] as const;
/** A documented status value. */
export type KnownStatusValue = (typeof STATUS_VALUES)[number];

/** Conversation origin types the spec documents. */
export const CONVERSATION_ORIGIN_TYPES = ['marketing', 'utility', 'authentication', 'service'] as const;

/** Template status events the spec documents. */
export const TEMPLATE_STATUS_EVENTS = [
  'APPROVED',
  'REJECTED',
  'PENDING_DELETION',
  'FLAGGED',
  'PAUSED',
] as const;
/** A template status event the spec documents. */
export type TemplateStatusEventName = (typeof TEMPLATE_STATUS_EVENTS)[number];

/** The interactive kinds the spec documents. Any other kind becomes the `unknown` interactive variant. */
export const INTERACTIVE_TYPES = ['button_reply', 'list_reply'] as const;
