/**
 * The table of documented incoming message types: what the parser looks a message's schema up in. The one place
 * that names the message modules: each is imported for the table and re-exported with its types (schemas.ts
 * re-exports this module). test/webhooks/schemas.test.ts fails on a module in this folder that is missing here.
 */
import * as z from '../../core/zod.js';
import { audioMessageSchema } from './audio.js';
import { buttonMessageSchema } from './button.js';
import { contactsMessageSchema } from './contacts.js';
import { documentMessageSchema } from './document.js';
import { imageMessageSchema } from './image.js';
import { interactiveMessageSchema } from './interactive.js';
import { locationMessageSchema } from './location.js';
import { orderMessageSchema } from './order.js';
import { reactionMessageSchema } from './reaction.js';
import { stickerMessageSchema } from './sticker.js';
import { textMessageSchema } from './text.js';
import { videoMessageSchema } from './video.js';

export * from './audio.js';
export * from './button.js';
export * from './contacts.js';
export * from './document.js';
export * from './image.js';
export * from './interactive.js';
export * from './location.js';
export * from './order.js';
export * from './reaction.js';
export * from './sticker.js';
export * from './text.js';
export * from './video.js';

/**
 * Schema of each documented incoming message type, keyed by `type`: the one list of message types. The parser looks
 * a message's schema up here, and `MESSAGE_TYPES`, `knownMessageSchema` and `KnownMessage` are derived from it.
 * Documented means by the gateway spec, or, for `button`, by what every real delivery of a template quick-reply tap
 * carries (docs/webhooks.md, "Template quick-reply taps").
 */
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
  // Not in the gateway spec's table: real deliveries carry it for template quick-reply taps (button.ts).
  button: buttonMessageSchema,
} as const;

type MessageSchemas = typeof messageSchemas;
/** A documented incoming message type. */
export type KnownMessageType = keyof MessageSchemas;

/** Incoming message types the SDK types (see `messageSchemas`). A message of any other type becomes the `unknown` variant. */
export const MESSAGE_TYPES = Object.keys(messageSchemas) as KnownMessageType[];

/** Any documented incoming message, discriminated by `type`. */
export const knownMessageSchema = z.discriminatedUnion(
  'type',
  Object.values(messageSchemas) as [MessageSchemas[KnownMessageType], ...MessageSchemas[KnownMessageType][]],
);

/** Any documented incoming message, as validated. */
export type KnownMessage = { [K in KnownMessageType]: z.output<MessageSchemas[K]> }[KnownMessageType];
