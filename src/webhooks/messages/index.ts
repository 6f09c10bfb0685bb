/** The table of documented incoming message types: what the parser looks a message's schema up in. */
import * as z from '../../core/zod.js';
import { type AudioMessage, audioMessageSchema } from './audio.js';
import { type ContactsMessage, contactsMessageSchema } from './contacts.js';
import { type DocumentMessage, documentMessageSchema } from './document.js';
import { type ImageMessage, imageMessageSchema } from './image.js';
import { type InteractiveMessage, interactiveMessageSchema } from './interactive.js';
import { type LocationMessage, locationMessageSchema } from './location.js';
import { type OrderMessage, orderMessageSchema } from './order.js';
import { type ReactionMessage, reactionMessageSchema } from './reaction.js';
import { type StickerMessage, stickerMessageSchema } from './sticker.js';
import { type TextMessage, textMessageSchema } from './text.js';
import { type VideoMessage, videoMessageSchema } from './video.js';

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
