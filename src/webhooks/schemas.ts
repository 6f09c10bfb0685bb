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

/**
 * A string that is one of the known values or any other string. The `string & {}` arm keeps editors offering the
 * known values while accepting new ones the gateway may add.
 */
export type OpenEnum<T extends string> = T | (string & {});

/** Accepts any (non-empty) string at runtime; typed as the known values plus `string`. */
function openEnum<const T extends string>(_known: readonly T[], { nonEmpty = false } = {}) {
  return z.custom<OpenEnum<T>>((value) => typeof value === 'string' && (!nonEmpty || value.length > 0), {
    error: nonEmpty ? 'Expected a non-empty string' : 'Expected a string',
  });
}

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

/** Incoming message types the spec documents. A message of any other type becomes the `unknown` variant. */
export const MESSAGE_TYPES = [
  'text',
  'image',
  'audio',
  'document',
  'video',
  'sticker',
  'location',
  'contacts',
  'interactive',
  'reaction',
  'order',
] as const;
/** A documented incoming message type. */
export type KnownMessageType = (typeof MESSAGE_TYPES)[number];

/** Change `field` values the spec documents. A change with any other field becomes an `unknown` event. */
export const CHANGE_FIELDS = ['messages', 'message_template_status_update', 'account_update'] as const;

// The spec says timestamps are strings of Unix seconds; a number is accepted too, since re-serialising relays
// are known to turn them into numbers and refusing one would lose the event.
const timestampSchema = z.union([z.string(), z.number()]);

/** `value.metadata`: which business number received the event. */
export const metadataSchema = z.looseObject({
  /** Identifier of the receiving number; needed for routing and for media download. */
  phone_number_id: z.string(),
  display_phone_number: z.string(),
});
export interface WebhookMetadata extends z.infer<typeof metadataSchema> {}

/** `value.contacts[]`: the sender of an incoming message. */
export const contactSchema = z.looseObject({
  wa_id: z.string(),
  profile: z.looseObject({ name: z.string() }),
});
export interface WebhookContact extends z.infer<typeof contactSchema> {}

/** Optional reply context some incoming messages carry (not in the spec; kept typed because it is common). */
const contextSchema = z.looseObject({ from: z.optional(z.string()), id: z.optional(z.string()) });

// The fields every incoming message shares ("Every incoming message has these fields").
const messageBase = {
  /** The message's `wamid`: the idempotency key. */
  id: z.string().check(z.minLength(1)),
  /** Sender number (equals `contacts[0].wa_id`). */
  from: z.string(),
  /** Unix time in seconds, as sent. The event carries it parsed as `timestamp` and verbatim as `timestampRaw`. */
  timestamp: timestampSchema,
  context: z.optional(contextSchema),
};

const mediaFields = {
  /** Media identifier for the media download endpoint (valid 30 days). */
  id: z.string().check(z.minLength(1)),
  mime_type: z.string(),
  sha256: z.string(),
};

export const textMessageSchema = z.looseObject({
  ...messageBase,
  type: z.literal('text'),
  text: z.looseObject({ body: z.string() }),
});

export const imageMessageSchema = z.looseObject({
  ...messageBase,
  type: z.literal('image'),
  image: z.looseObject({
    ...mediaFields,
    mime_type: openEnum(['image/jpeg', 'image/png']),
    caption: z.optional(z.string()),
  }),
});

export const audioMessageSchema = z.looseObject({
  ...messageBase,
  type: z.literal('audio'),
  audio: z.looseObject({
    ...mediaFields,
    /** `true` for a voice note recorded in the app, `false` for an uploaded audio file. */
    voice: z.boolean(),
  }),
});

export const documentMessageSchema = z.looseObject({
  ...messageBase,
  type: z.literal('document'),
  document: z.looseObject({
    ...mediaFields,
    filename: z.string(),
    caption: z.optional(z.string()),
  }),
});

export const videoMessageSchema = z.looseObject({
  ...messageBase,
  type: z.literal('video'),
  video: z.looseObject({
    ...mediaFields,
    mime_type: openEnum(['video/mp4', 'video/3gp']),
    caption: z.optional(z.string()),
  }),
});

export const stickerMessageSchema = z.looseObject({
  ...messageBase,
  type: z.literal('sticker'),
  sticker: z.looseObject({
    ...mediaFields,
    mime_type: openEnum(['image/webp']),
    animated: z.boolean(),
  }),
});

export const locationMessageSchema = z.looseObject({
  ...messageBase,
  type: z.literal('location'),
  location: z.looseObject({
    latitude: z.number(),
    longitude: z.number(),
    name: z.optional(z.string()),
    address: z.optional(z.string()),
  }),
});

/**
 * One shared contact card inside a `contacts` message. The spec gives the fields of the name and of each phone
 * and email; it does not say every card has a phone and an email, so the lists themselves may be absent.
 */
export const sharedContactSchema = z.looseObject({
  name: z.looseObject({
    formatted_name: z.string(),
    first_name: z.string(),
    last_name: z.string(),
  }),
  phones: z.optional(z.array(z.looseObject({ phone: z.string(), type: z.string() }))),
  emails: z.optional(z.array(z.looseObject({ email: z.string(), type: z.string() }))),
});
export interface SharedContact extends z.infer<typeof sharedContactSchema> {}

export const contactsMessageSchema = z.looseObject({
  ...messageBase,
  type: z.literal('contacts'),
  contacts: z.array(sharedContactSchema),
});

/** A tap on a reply button the business sent. */
export const buttonReplySchema = z.looseObject({
  type: z.literal('button_reply'),
  button_reply: z.looseObject({
    /** The `reply.id` the business sent with the button. */
    id: z.string(),
    title: z.string(),
  }),
});

/** A row chosen from a list the business sent. */
export const listReplySchema = z.looseObject({
  type: z.literal('list_reply'),
  list_reply: z.looseObject({
    id: z.string(),
    title: z.string(),
    /** Present when the row had one. */
    description: z.optional(z.string()),
  }),
});

export const interactiveMessageSchema = z.looseObject({
  ...messageBase,
  type: z.literal('interactive'),
  // Other interactive kinds (flows, ...) do not match and are delivered as the `unknown` variant, raw object kept.
  interactive: z.discriminatedUnion('type', [buttonReplySchema, listReplySchema]),
});

export const reactionMessageSchema = z.looseObject({
  ...messageBase,
  type: z.literal('reaction'),
  reaction: z.looseObject({
    /** The `wamid` reacted to. */
    message_id: z.string(),
    /** An empty string means the reaction was removed: see `isReactionRemoved`. */
    emoji: z.string(),
  }),
});

/** One line of an order. */
export const orderItemSchema = z.looseObject({
  product_retailer_id: z.string(),
  quantity: z.number(),
  item_price: z.number(),
  /** ISO 4217 code. */
  currency: z.string(),
});
export interface OrderItem extends z.infer<typeof orderItemSchema> {}

export const orderMessageSchema = z.looseObject({
  ...messageBase,
  type: z.literal('order'),
  order: z.looseObject({
    catalog_id: z.string(),
    text: z.optional(z.string()),
    product_items: z.array(orderItemSchema),
  }),
});

/** Schema of each documented incoming message type, keyed by `type`. */
export const messageSchemas = {
  text: textMessageSchema,
  image: imageMessageSchema,
  audio: audioMessageSchema,
  document: documentMessageSchema,
  video: videoMessageSchema,
  sticker: stickerMessageSchema,
  location: locationMessageSchema,
  contacts: contactsMessageSchema,
  interactive: interactiveMessageSchema,
  reaction: reactionMessageSchema,
  order: orderMessageSchema,
} as const;

/** Any documented incoming message, discriminated by `type`. */
export const knownMessageSchema = z.discriminatedUnion('type', [
  textMessageSchema,
  imageMessageSchema,
  audioMessageSchema,
  documentMessageSchema,
  videoMessageSchema,
  stickerMessageSchema,
  locationMessageSchema,
  contactsMessageSchema,
  interactiveMessageSchema,
  reactionMessageSchema,
  orderMessageSchema,
]);

export interface TextMessage extends z.infer<typeof textMessageSchema> {}
export interface ImageMessage extends z.infer<typeof imageMessageSchema> {}
export interface AudioMessage extends z.infer<typeof audioMessageSchema> {}
export interface DocumentMessage extends z.infer<typeof documentMessageSchema> {}
export interface VideoMessage extends z.infer<typeof videoMessageSchema> {}
export interface StickerMessage extends z.infer<typeof stickerMessageSchema> {}
export interface LocationMessage extends z.infer<typeof locationMessageSchema> {}
export interface ContactsMessage extends z.infer<typeof contactsMessageSchema> {}
export interface InteractiveMessage extends z.infer<typeof interactiveMessageSchema> {}
export interface ReactionMessage extends z.infer<typeof reactionMessageSchema> {}
export interface OrderMessage extends z.infer<typeof orderMessageSchema> {}
/** Any documented incoming message, as validated. */
export type KnownMessage =
  | TextMessage
  | ImageMessage
  | AudioMessage
  | DocumentMessage
  | VideoMessage
  | StickerMessage
  | LocationMessage
  | ContactsMessage
  | InteractiveMessage
  | ReactionMessage
  | OrderMessage;

/**
 * The wire shape every incoming message shares, whatever its type: what an envelope may carry in
 * `value.messages[]` (new types included).
 */
export const incomingMessageWireSchema = z.looseObject({
  ...messageBase,
  type: z.string().check(z.minLength(1)),
});
export interface IncomingMessageWire extends z.infer<typeof incomingMessageWireSchema> {}

/** One entry of a failed status's `errors[]`. */
export const statusErrorSchema = z.looseObject({
  code: z.int(),
  title: z.string(),
  message: z.string(),
  error_data: z.looseObject({ details: z.string() }),
});
export interface StatusError extends z.infer<typeof statusErrorSchema> {}

/**
 * `value.statuses[]`: a change of an outbound message's state. `conversation` comes on sent/delivered and
 * `errors` on failed, so both are optional as objects; `pricing` is only meaningful where a fee may apply (a
 * `read` carries none), so it is optional too. Inside each, the fields are as the spec gives them.
 */
export const statusSchema = z.looseObject({
  /** The outbound message's `wamid` (the `data.messages[0].id` of the send response). */
  id: z.string().check(z.minLength(1)),
  status: openEnum(STATUS_VALUES, { nonEmpty: true }),
  /** Unix seconds of the change, as sent. Order statuses by this, not by arrival. */
  timestamp: timestampSchema,
  recipient_id: z.string(),
  conversation: z.optional(
    z.looseObject({
      id: z.string(),
      origin: z.optional(z.looseObject({ type: openEnum(CONVERSATION_ORIGIN_TYPES) })),
    }),
  ),
  pricing: z.optional(
    z.looseObject({
      /** `true`: the gateway deducts the upstream fee (on `delivered`); `false`: free tier. */
      billable: z.boolean(),
      pricing_model: z.string(),
      category: z.string(),
    }),
  ),
  /** Filled on `failed`. */
  errors: z.optional(z.array(statusErrorSchema)),
});
export interface WebhookStatus extends z.infer<typeof statusSchema> {}

/** `value` of a `message_template_status_update` change. */
export const templateStatusValueSchema = z.looseObject({
  event: openEnum(TEMPLATE_STATUS_EVENTS, { nonEmpty: true }),
  // An integer per the spec. Not `.int()`: zod's int is the safe-integer range and an id beyond 2^53 has
  // already lost precision in JSON.parse; refusing it would only lose the event as well.
  message_template_id: z.number(),
  message_template_name: z.string(),
  message_template_language: z.string(),
  /** Filled for a rejection; `null` otherwise (an absent reason reads as `null`). */
  reason: z._default(z.nullable(z.string()), null),
});
export interface TemplateStatusValue extends z.infer<typeof templateStatusValueSchema> {}

/** `value` of an `account_update` change. */
export const accountUpdateValueSchema = z.looseObject({
  phone_number: z.string(),
  event: z.string().check(z.minLength(1)),
  /** On ban-related updates; an update that is not about a ban has no reason to carry it. */
  ban_info: z.optional(
    z.looseObject({
      waba_ban_state: z.string(),
      /** A date, as sent. */
      waba_ban_date: z.string(),
    }),
  ),
});
export interface AccountUpdateValue extends z.infer<typeof accountUpdateValueSchema> {}

/** `value` of a `messages` change: incoming messages and/or statuses, with the receiving number and senders. */
export const messagesValueSchema = z.looseObject({
  messaging_product: z.optional(z.string()),
  metadata: z.optional(metadataSchema),
  contacts: z.optional(z.array(contactSchema)),
  messages: z.optional(z.array(incomingMessageWireSchema)),
  statuses: z.optional(z.array(statusSchema)),
});
export interface MessagesValue extends z.infer<typeof messagesValueSchema> {}

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
export interface WebhookEnvelope extends z.infer<typeof webhookEnvelopeSchema> {}
