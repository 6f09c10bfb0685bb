import { z } from 'zod';
import { hot } from '../core/compiled.js';
import type { MessageIssue } from '../core/errors.js';
import { charCount, isHttpUrl } from '../core/text.js';
import { safeCheck } from '../core/zod.js';
import { limitedText, stringOr } from '../gateway/text-schema.js';
import { uuidSchema } from './fields.js';

/**
 * Schemas of the message items `POST /v2/messages/` sends into a conversation and of `POST /batch_send_message/`.
 * Outbound items are checked against every rule and limit of the spec.
 */

// ---------------------------------------------------------------------------------------------------------
// Outbound message items of POST /v2/messages/

// Lengths are counted in code points (`charCount`, through the shared `limitedText`): the unit of every character
// limit of both specs (see core/text.ts), so an emoji in a button title counts once, as "emoji allowed" implies.

function text(what: string, limits: { min?: number; max?: number } = {}) {
  return limitedText(what, limits);
}

function httpUrl(what: string) {
  return stringOr(`${what} must be a string`, `${what} is required`).refine(isHttpUrl, {
    error: `${what} must be an http(s) URL`,
  });
}

/**
 * The file types the spec lets a document have: PDF and word-processor files. The SDK does not judge a document's
 * URL by them (a download endpoint or a query-named file has no extension in its path): the server judges the file.
 */
export const DOCUMENT_EXTENSIONS = ['pdf', 'doc', 'docx', 'dot', 'dotx'] as const;

const quoteSchema = z.looseObject({
  quotedContent: stringOr('quote.quotedContent must be a string', 'quote.quotedContent is required'),
});

export const textItemSchema = z.looseObject({
  type: z.literal('text'),
  content: text('content', { min: 1 }),
  quote: quoteSchema.optional(),
});

export const locationItemSchema = z.looseObject({
  type: z.literal('location'),
  content: stringOr('content must be a string', 'content is required'),
  lat: z.number({ error: 'lat must be a number' }).min(-90).max(90),
  lng: z.number({ error: 'lng must be a number' }).min(-180).max(180),
  quote: quoteSchema.optional(),
  /** Messaging-network channels only. */
  address: z.string().optional(),
  /** Messaging-network channels only. */
  name: z.string().optional(),
});

function mediaItem<T extends 'image' | 'video'>(type: T) {
  return z.looseObject({
    type: z.literal(type),
    /** The caption. */
    content: stringOr('content (the caption) must be a string', 'content (the caption) is required'),
    url: httpUrl('url'),
    quote: quoteSchema.optional(),
  });
}
export const imageItemSchema = mediaItem('image');
export const videoItemSchema = mediaItem('video');
export const documentItemSchema = z.looseObject({
  type: z.literal('document'),
  /** The caption. */
  content: stringOr('content (the caption) must be a string', 'content (the caption) is required'),
  /** An http(s) URL of a PDF or word-processor file (`DOCUMENT_EXTENSIONS`); the server judges the file. */
  url: httpUrl('url'),
  quote: quoteSchema.optional(),
});

const HEADER_MAX = 60;
const FOOTER_MAX = 60;

function headerSchema(types: readonly [string, ...string[]], form: 'button' | 'list') {
  return z
    .looseObject({
      type: z.enum(types, {
        error: () =>
          form === 'list'
            ? "a list message's header type can only be 'text' (image, video and document headers are for button messages)"
            : `header.type must be one of ${types.map((t) => `'${t}'`).join(', ')}`,
      }),
      content: stringOr('header.content must be a string', 'header.content is required'),
    })
    .superRefine((header, ctx) => {
      if (header.type === 'text') {
        const n = charCount(header.content);
        if (n === 0) {
          ctx.addIssue({
            code: 'too_small',
            origin: 'string',
            minimum: 1,
            inclusive: true,
            path: ['content'],
            input: header.content,
            message: 'a text header is empty',
          });
        } else if (n > HEADER_MAX) {
          ctx.addIssue({
            code: 'too_big',
            origin: 'string',
            maximum: HEADER_MAX,
            inclusive: true,
            path: ['content'],
            input: header.content,
            message: `a text header has ${n} characters; the maximum is ${HEADER_MAX}`,
          });
        }
        return;
      }
      if (!isHttpUrl(header.content)) {
        ctx.addIssue({
          code: 'custom',
          path: ['content'],
          input: header.content,
          params: { rule: 'media_url' },
          message: `a ${header.type} header's content must be an http(s) URL of the media`,
        });
      }
    });
}

const footerSchema = text('footer', { min: 1, max: FOOTER_MAX });

function duplicates(values: readonly unknown[]): number[] {
  const seen = new Set<unknown>();
  const dup: number[] = [];
  values.forEach((v, i) => {
    if (typeof v !== 'string') return;
    if (seen.has(v)) dup.push(i);
    else seen.add(v);
  });
  return dup;
}

const buttonReplySchema = z.looseObject({
  type: z.literal('reply', { error: "a button item's type must be 'reply'" }),
  content: z.looseObject({
    /** Returned on tap; unique within the message. */
    id: text('button id', { min: 1 }),
    /** 1 to 20 characters, unique within the message; emoji allowed; markdown is not rendered. */
    title: text('button title', { min: 1, max: 20 }),
  }),
});

export const buttonDataSchema = z.looseObject({
  type: z.literal('button'),
  header: headerSchema(['text', 'image', 'video', 'document'], 'button').optional(),
  footer: footerSchema.optional(),
  action: z.looseObject({
    items: z
      .array(buttonReplySchema, { error: 'action.items must be an array of reply buttons' })
      .min(1, 'a button message needs at least 1 button')
      .max(3, 'a button message has at most 3 buttons')
      .superRefine((items, ctx) => {
        for (const field of ['id', 'title'] as const) {
          const values = items.map((item) => item.content[field]);
          for (const i of duplicates(values)) {
            ctx.addIssue({
              code: 'custom',
              path: [i, 'content', field],
              input: values[i],
              params: { rule: 'unique' },
              message: `button ${field}s must be unique within the message; '${String(values[i])}' repeats`,
            });
          }
        }
      }),
  }),
});

const listRowSchema = z.looseObject({
  id: text('row id', { min: 1, max: 200 }),
  title: text('row title', { min: 1, max: 24 }),
  description: text('row description', { max: 72 }).optional(),
});

const listSectionSchema = z.looseObject({
  /** Up to 24 characters; required when the list has more than one section. */
  title: text('section title', { min: 1, max: 24 }).optional(),
  rows: z.array(listRowSchema, { error: 'rows must be an array' }).min(1, 'a section needs at least 1 row'),
});

export const listDataSchema = z.looseObject({
  type: z.literal('list'),
  header: headerSchema(['text'], 'list').optional(),
  footer: footerSchema.optional(),
  action: z.looseObject({
    /** The label of the button that opens the list. */
    button: text('action.button (the label that opens the list)', { min: 1 }),
    sections: z
      .array(listSectionSchema, { error: 'sections must be an array' })
      .min(1, 'a list needs at least 1 section')
      .max(10, 'a list has at most 10 sections')
      .superRefine((sections, ctx) => {
        if (sections.length < 2) return;
        sections.forEach((section, i) => {
          if (section.title === undefined) {
            ctx.addIssue({
              code: 'custom',
              path: [i, 'title'],
              input: section,
              params: { rule: 'required' },
              message: 'every section needs a title when the list has more than one section',
            });
          }
        });
      }),
  }),
});

export const interactiveItemSchema = z.looseObject({
  type: z.literal('interactive'),
  /** The message body shown above the buttons or the list. */
  content: text('content', { min: 1 }),
  data: z.discriminatedUnion('type', [buttonDataSchema, listDataSchema], {
    error: (issue) =>
      issue.code === 'invalid_union' ? "data.type must be 'button' or 'list'" : 'data must be an object',
  }),
});

const ITEM_TYPES = ['text', 'location', 'image', 'video', 'document', 'interactive'] as const;

/** One element of the `messages` array of `POST /v2/messages/`. */
export const messageItemSchema = z.discriminatedUnion(
  'type',
  [
    textItemSchema,
    locationItemSchema,
    imageItemSchema,
    videoItemSchema,
    documentItemSchema,
    interactiveItemSchema,
  ],
  {
    error: (issue) =>
      issue.code === 'invalid_union'
        ? `type must be one of ${ITEM_TYPES.map((t) => `'${t}'`).join(', ')}`
        : 'each message must be an object',
  },
);
export type MessageItem = z.input<typeof messageItemSchema>;
export type TextItem = z.input<typeof textItemSchema>;
export type LocationItem = z.input<typeof locationItemSchema>;
export type ImageItem = z.input<typeof imageItemSchema>;
export type VideoItem = z.input<typeof videoItemSchema>;
export type DocumentItem = z.input<typeof documentItemSchema>;
export type InteractiveItem = z.input<typeof interactiveItemSchema>;

/** The body of `POST /v2/messages/`. Issue paths follow it: `['messages', 0, 'data', 'action', ...]`. */
export const sendMessagesBodySchema = z.object({
  uuid: uuidSchema,
  messages: z
    .array(messageItemSchema, { error: 'messages must be an array of message items' })
    .min(1, 'messages is empty: pass at least one item'),
});

/** Conversations per `POST /batch_send_message/` request. */
export const BATCH_SEND_MAX = 500;

function conversationList(max: number | undefined) {
  const list = z.array(uuidSchema, { error: 'conversations must be an array of conversation UUIDs' }).min(1, {
    error: 'conversations is empty',
  });
  return (
    (
      max === undefined
        ? list
        : list.max(max, {
            error: (i) =>
              `conversations has ${String((i.input as unknown[]).length)} entries; one request takes at most ${max} ` +
              '(batchSendAll sends longer lists in chunks)',
          })
    )
      .superRefine((uuids, ctx) => {
        // A repeated conversation would receive the message twice.
        for (const i of duplicates(uuids.map((u) => u.toLowerCase()))) {
          ctx.addIssue({
            code: 'custom',
            path: [i],
            input: uuids[i],
            params: { rule: 'unique' },
            message: `conversation ${uuids[i]} is listed more than once`,
          });
        }
      })
      // Read-only, so a caller's `readonly string[]` is accepted as it is.
      .readonly()
  );
}

/** The body of `POST /batch_send_message/`. */
export const batchSendBodySchema = z.object({
  /** The text to send. */
  message: text('message', { min: 1 }),
  /** Conversation UUIDs, at most 500 per request. */
  conversations: conversationList(BATCH_SEND_MAX),
});
/** `batchSendAll`'s input: any number of conversations, sent in chunks. */
export const batchSendAllInputSchema = z.object({
  /** The text to send. */
  message: text('message', { min: 1 }),
  /** Conversation UUIDs, at most 500 per request; `batchSendAll` takes any number. */
  conversations: conversationList(undefined),
});

/**
 * Checks the items of a `messages.send` against every rule of the spec and returns all issues at once (paths
 * relative to the items array). Never throws. Useful to validate a form before sending.
 *
 * @example
 * const { valid, issues } = validateMessageItems([{ type: 'text', content: '' }]);
 * // valid === false; issues[0].path → [0, 'content']
 */
export function validateMessageItems(items: unknown): { valid: boolean; issues: MessageIssue[] } {
  const result = safeCheck(hot(sendMessagesBodySchema.shape.messages), items);
  return result.ok ? { valid: true, issues: [] } : { valid: false, issues: result.issues };
}
