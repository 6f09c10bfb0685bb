/**
 * Zod schemas of what the gateway forwards to the customer's webhook, and the types inferred from them.
 *
 * Every object is loose: fields the spec does not list are kept, so a gateway that adds a field never breaks a
 * consumer. What is required follows one rule (docs/webhooks.md, "What is required"): what the SDK needs to route
 * and deduplicate an event (its kind, the wamid, the status value, the timestamp, the message type and the content
 * object of that type), plus what every real delivery carries, so `list_reply.title` is a `string` and no handler
 * needs `!`. Everything else is optional, with a comment that says when it is absent: a missing descriptive field
 * never turns a typed event into `unknown`. A field present with the wrong JSON type may; such an item is delivered
 * with the raw object and the issues that name the field (see `parse.ts`), never dropped.
 * Enumerations that may grow (status values, template events, origin types) accept any string while their
 * TypeScript types still offer the known values for autocomplete.
 *
 * Nothing here imports anything but zod/mini: the webhooks entry runs on Node, Bun, Deno and Workers.
 */
import * as z from '../core/zod.js';
import { statusSchema } from './status.js';
import { messageBase, nonEmptyString, optionalString, requiredString } from './wire.js';

export * from './account-update.js';
// The message modules are listed once, in messages/index.ts, which re-exports each.
export * from './messages/index.js';
export * from './status.js';
export * from './template-status.js';
export type { OpenEnum } from './wire.js';

/** `value.metadata`: which business number received the event. */
export const metadataSchema = z.looseObject({
  /** Identifier of the receiving number; needed for routing and for media download. */
  phone_number_id: requiredString,
  /** Absent from some deliveries: route by `phone_number_id`. */
  display_phone_number: optionalString,
});
export interface WebhookMetadata extends z.output<typeof metadataSchema> {}

/**
 * `value.contacts[]`: the user a message came from (or a status is about). The user is identified by a phone number
 * (`wa_id`), a business-scoped user id (`user_id`), or both; `customerOf(event)` gives whichever the event carries.
 */
export const contactSchema = z.looseObject({
  /** The user's number; absent for a user known by `user_id` only. */
  wa_id: optionalString,
  /** Business-scoped user id, when sent. */
  user_id: optionalString,
  /** Business-scoped id of the parent account, when sent. */
  parent_user_id: optionalString,
  /** Absent from some deliveries. */
  profile: z.optional(
    z.looseObject({
      /** Display name, when shared. */
      name: optionalString,
      /** Username, when the user set one. */
      username: optionalString,
    }),
  ),
});
export interface WebhookContact extends z.output<typeof contactSchema> {}

/**
 * The wire shape every incoming message shares, whatever its type: what an envelope may carry in
 * `value.messages[]` (new types included).
 */
export const incomingMessageWireSchema = z.looseObject({
  ...messageBase,
  type: nonEmptyString,
});
export interface IncomingMessageWire extends z.output<typeof incomingMessageWireSchema> {}

/** `value` of a `messages` change: incoming messages and/or statuses, with the receiving number and senders. */
export const messagesValueSchema = z.looseObject({
  messaging_product: optionalString,
  metadata: z.optional(metadataSchema),
  contacts: z.optional(z.array(contactSchema)),
  messages: z.optional(z.array(incomingMessageWireSchema)),
  statuses: z.optional(z.array(statusSchema)),
});
export interface MessagesValue extends z.output<typeof messagesValueSchema> {}

/*
 * The skeleton below is what `parseWebhook` reads the envelope with (its one checker), so it holds the parse's
 * rule: the structure (`entry[]`, `changes[]`, `value`) must be there, and nothing else may refuse a delivery (a
 * 400 makes the gateway drop every event in it). The fields beside the structure are read leniently, each as
 * its own comment says.
 */

/** One `entry[].changes[]` item. */
export const changeSchema = z.looseObject({
  /** The kind of change. `''` when it is missing or not a string: `parseWebhook` makes it an `unknown_field` event. */
  field: z.catch(requiredString, ''),
  value: z.looseObject({}),
});

/** One `entry[]` item: the business account and its changes. */
export const entrySchema = z.looseObject({
  /**
   * Business account identifier: a string, or a number where a relay re-serialised the JSON (the event's
   * `businessAccountId` is always its string). `undefined` when it is missing or neither.
   */
  id: z.catch(z.optional(z.union([requiredString, z.number()])), undefined),
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
  /** `'whatsapp_business_account'` as sent; `undefined` when missing or not a string (nothing reads it). */
  object: z.catch(optionalString, undefined),
  entry: z.array(entrySchema),
});
/** The envelope as validated by `webhookEnvelopeSchema`. */
export interface WebhookEnvelope extends z.output<typeof webhookEnvelopeSchema> {}
