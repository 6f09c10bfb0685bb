import { z } from 'zod';
import { channelRefSchema, instantSchema, maxSpan, optionalText, uuidSchema } from './fields.js';

/** Schemas of `GET {stream_url}/stream/messages/`: its query and its records. */

export const STREAM_MESSAGE_TYPES = ['text', 'media', 'location'] as const;
export type StreamMessageType = (typeof STREAM_MESSAGE_TYPES)[number];
export const STREAM_SENDERS = ['agent', 'customer'] as const;
export type StreamSender = (typeof STREAM_SENDERS)[number];

/**
 * `GET {stream_url}/stream/messages/` query. `created_at__gt` and `created_at__lt` are exclusive bounds and
 * may span at most one week; `messages.streamRange` handles longer ranges.
 */
/** Longest span of one stream request (`created_at__lt - created_at__gt`). */
export const STREAM_MAX_SPAN_MS = 7 * 24 * 60 * 60 * 1000;

/** The stream query's fields without the span rule (`messages.streamRange` picks its own bounds). */
export const streamQueryFieldsSchema = z.strictObject({
  type: z.enum(STREAM_MESSAGE_TYPES).optional(),
  sender: z.enum(STREAM_SENDERS).optional(),
  channel: uuidSchema.optional(),
  conversation_uuid: uuidSchema.optional(),
  /** Default `false` on the server. */
  conversation_customer: z.boolean().optional(),
  created_at__gt: instantSchema.optional(),
  created_at__lt: instantSchema.optional(),
});

export const streamQuerySchema = streamQueryFieldsSchema.superRefine(
  maxSpan(
    'created_at__gt',
    'created_at__lt',
    (from) => from + STREAM_MAX_SPAN_MS,
    (latest) =>
      `is after ${latest}, one week after created_at__gt: the platform refuses a longer span (400); ` +
      'use messages.streamRange({ from, to }) to stream it in weekly windows',
  ),
);
export type StreamQuery = z.input<typeof streamQuerySchema>;

/** One record of `GET {stream_url}/stream/messages/`. */
export const streamMessageSchema = z.looseObject({
  id: z.number().int(),
  created_at: z.string(),
  conversation: z.looseObject({
    uuid: z.string(),
    customer: z
      .looseObject({ name: optionalText, uuid: z.string(), email: optionalText, phone_number: optionalText })
      .nullable()
      .optional(),
    is_archived: z.boolean().optional(),
  }),
  channel: channelRefSchema,
  /** `text`, `media` or `location`. */
  type: z.string(),
  agent: z.string().nullable(),
  customer: z.looseObject({}).nullable(),
  content: z.string().nullable(),
  /** Type-specific: `url`, `type`, `quote`, ... for media; `lat`, `lng` for location. */
  data: z
    .looseObject({
      url: z.string().optional(),
      type: z.string().optional(),
      quote: z.unknown().optional(),
      language: optionalText,
      recipient: optionalText,
      identifier: optionalText,
      in_working_hours: z.boolean().nullable().optional(),
      lat: z.number().optional(),
      lng: z.number().optional(),
    })
    .nullable()
    .optional(),
  group: z.looseObject({ name: optionalText }).nullable().optional(),
});
export interface StreamMessage extends z.infer<typeof streamMessageSchema> {}

/**
 * What the stream's light check (the default) holds a record to: the record schema's own `id` and `created_at`
 * (what `streamRange` relies on), taken from it so that the two cannot disagree.
 */
export const streamRecordKeySchema = z.object({
  id: streamMessageSchema.shape.id,
  created_at: streamMessageSchema.shape.created_at,
});
export type StreamRecordKey = z.output<typeof streamRecordKeySchema>;
