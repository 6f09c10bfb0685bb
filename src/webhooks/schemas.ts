/**
 * Zod schemas of what the gateway forwards to the customer's webhook, and the types inferred from them.
 *
 * Every object is loose: fields the spec does not list are kept, so a gateway that adds a field never breaks a
 * consumer. Fields are typed AS THE SPEC GIVES THEM: a field the spec lists without "(optional)", "(if set)" or
 * a condition ("on failed", "on sent/delivered") is required, so `list_reply.title` is a `string`, not
 * `string | undefined`, and no handler needs `!`. A delivery that lacks one is never dropped: `parseWebhook`
 * delivers it with the raw object and the issues that say which field was missing (see `parse.ts`).
 * Enumerations that may grow (status values, template events, origin types) accept any string while their
 * TypeScript types still offer the known values for autocomplete.
 *
 * Nothing here imports anything but zod/mini: the webhooks entry runs on Node, Bun, Deno and Workers.
 */
import * as z from '../core/zod.js';
import { statusSchema } from './status.js';
import { messageBase } from './wire.js';

export * from './account-update.js';
export * from './messages/audio.js';
export * from './messages/contacts.js';
export * from './messages/document.js';
export * from './messages/image.js';
export * from './messages/index.js';
export * from './messages/interactive.js';
export * from './messages/location.js';
export * from './messages/order.js';
export * from './messages/reaction.js';
export * from './messages/sticker.js';
export * from './messages/text.js';
export * from './messages/video.js';
export * from './status.js';
export * from './template-status.js';
export type { OpenEnum } from './wire.js';

/** `value.metadata`: which business number received the event. */
export const metadataSchema = z.looseObject({
  /** Identifier of the receiving number; needed for routing and for media download. */
  phone_number_id: z.string(),
  display_phone_number: z.string(),
});
export interface WebhookMetadata extends z.output<typeof metadataSchema> {}

/** `value.contacts[]`: the sender of an incoming message. */
export const contactSchema = z.looseObject({
  wa_id: z.string(),
  profile: z.looseObject({ name: z.string() }),
});
export interface WebhookContact extends z.output<typeof contactSchema> {}

/**
 * The wire shape every incoming message shares, whatever its type: what an envelope may carry in
 * `value.messages[]` (new types included).
 */
export const incomingMessageWireSchema = z.looseObject({
  ...messageBase,
  type: z.string().check(z.minLength(1)),
});
export interface IncomingMessageWire extends z.output<typeof incomingMessageWireSchema> {}

/** `value` of a `messages` change: incoming messages and/or statuses, with the receiving number and senders. */
export const messagesValueSchema = z.looseObject({
  messaging_product: z.optional(z.string()),
  metadata: z.optional(metadataSchema),
  contacts: z.optional(z.array(contactSchema)),
  messages: z.optional(z.array(incomingMessageWireSchema)),
  statuses: z.optional(z.array(statusSchema)),
});
export interface MessagesValue extends z.output<typeof messagesValueSchema> {}

/** One `entry[].changes[]` item. */
export const changeSchema = z.looseObject({
  field: z.string(),
  value: z.looseObject({}),
});

/** One `entry[]` item: the business account and its changes. */
export const entrySchema = z.looseObject({
  /** Business account identifier. */
  id: z.string(),
  changes: z.array(changeSchema),
});

/**
 * The envelope the gateway POSTs to the customer's webhook. It describes the structure; `parseWebhook` is what
 * turns one into typed events (and never refuses an event over a field it does not strictly need).
 *
 * @example
 * const ok = webhookEnvelopeSchema.safeParse(JSON.parse(body)).success;
 */
export const webhookEnvelopeSchema = z.looseObject({
  object: z.optional(z.string()),
  entry: z.array(entrySchema),
});
/** The envelope as validated by `webhookEnvelopeSchema`. */
export interface WebhookEnvelope extends z.output<typeof webhookEnvelopeSchema> {}
