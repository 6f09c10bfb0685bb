import { z } from 'zod';
import type { MessageIssue } from '../core/errors.js';

/**
 * Schemas of the conversation platform API: the records it answers with, the query values it accepts and the
 * message items it sends into conversations. Types are inferred from them (`z.infer`), never kept by hand.
 *
 * Response records are loose: a field the spec does not list is kept as the server sent it, and a field the
 * spec does not describe in detail is typed as leniently as its description allows, so a server that grows a
 * field never breaks a report. Outbound items are checked against every rule and limit of the spec.
 *
 * Field names are the wire names, the spec's spelling included (`reponse_times` in conversation records).
 */

// ---------------------------------------------------------------------------------------------------------
// Query values

/** Relative date ranges of `GET /reports/` (`date_range`) and of `/reports/conversations/` (`*_at_range`). */
export const DATE_RANGES = [
  'today',
  'yesterday',
  'last_7',
  'last_14',
  'last_30',
  'last_week',
  'last_month',
  'wtd',
  'mtd',
  'ytd',
] as const;
export const dateRangeSchema = z.enum(DATE_RANGES);
export type DateRange = z.infer<typeof dateRangeSchema>;

/** Bucket size of a report's time series. */
export const REPORT_TRUNCS = ['year', 'month', 'week', 'day', 'hour'] as const;
export const reportTruncSchema = z.enum(REPORT_TRUNCS);
export type ReportTrunc = z.infer<typeof reportTruncSchema>;

/** Which section a report carries. */
export const REPORT_DATA = [
  'messages',
  'conversations',
  'response_times',
  'customers',
  'agents',
  'feedback',
] as const;
export const reportDataSchema = z.enum(REPORT_DATA);
export type ReportData = z.infer<typeof reportDataSchema>;

export const STREAM_MESSAGE_TYPES = ['text', 'media', 'location'] as const;
export type StreamMessageType = (typeof STREAM_MESSAGE_TYPES)[number];
export const STREAM_SENDERS = ['agent', 'customer'] as const;
export type StreamSender = (typeof STREAM_SENDERS)[number];

export const FEEDBACK_TYPES = ['emoji', 'nps'] as const;
export type FeedbackType = (typeof FEEDBACK_TYPES)[number];

/** The periods of the stats counters. */
export const STATS_PERIODS = ['today', 'yesterday', 'wtd', 'mtd'] as const;
export type StatsPeriod = (typeof STATS_PERIODS)[number];

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether `value` is a UUID string (any version, any case), the form of every platform identifier. */
export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID.test(value);
}

export const uuidSchema = z
  .string({ error: 'must be a UUID string' })
  .regex(UUID, { error: 'must be a UUID such as 3f2b8c1e-4d5a-4b6c-9e7f-0a1b2c3d4e5f' });

/**
 * An instant: a `Date`, or an ISO 8601 date-time string (sent as given, so a server-side precision such as
 * microseconds survives). A string without a UTC offset is read as UTC.
 */
export const instantSchema = z.union([z.date(), z.string()]).refine((v) => !Number.isNaN(instantMs(v)), {
  error: 'must be a valid Date or an ISO 8601 date-time string',
});
export type Instant = z.input<typeof instantSchema>;

const ZONED = /(?:z|[+-]\d{2}(?::?\d{2})?)$/i;

/**
 * Epoch milliseconds of a `Date` or an ISO 8601 string, `NaN` when unreadable. The platform's timestamps may
 * carry microseconds; they are truncated to the millisecond (what `Date.parse` does).
 */
export function instantMs(value: Date | string): number {
  if (value instanceof Date) return value.getTime();
  if (typeof value !== 'string' || value.trim() === '') return Number.NaN;
  const v = value.trim();
  // A bare date-time would otherwise be read in the local time zone of whichever machine runs the SDK.
  return Date.parse(/T|\s\d/.test(v) && !ZONED.test(v) ? `${v}Z` : v);
}

/** `GET /reports/` query. */
export const reportQuerySchema = z.strictObject({
  date_range: dateRangeSchema.optional(),
  trunc: reportTruncSchema.optional(),
  data: reportDataSchema.optional(),
  /** `true` adds a `group` to entries and returns `GroupBasedReport`. */
  group_based: z.boolean().optional(),
});
export type ReportQuery = z.input<typeof reportQuerySchema>;

/** `GET /reports/conversations/` query. */
export const conversationsQuerySchema = z.strictObject({
  created_at_range: dateRangeSchema.optional(),
  archived_at_range: dateRangeSchema.optional(),
});
export type ConversationsQuery = z.input<typeof conversationsQuerySchema>;

/** `GET /reports/feedbacks/` query. The range may span at most one month (`feedbacksRange` splits longer ones). */
export const feedbacksQuerySchema = z.strictObject({
  /** `emoji` or `nps`; all when omitted. */
  type: z.enum(FEEDBACK_TYPES).optional(),
  /** A channel UUID; all channels when omitted. */
  channel: uuidSchema.optional(),
  start_date: instantSchema.optional(),
  end_date: instantSchema.optional(),
});
export type FeedbacksQuery = z.input<typeof feedbacksQuerySchema>;

/**
 * `GET {stream_url}/stream/messages/` query. `created_at__gt` and `created_at__lt` are exclusive bounds and
 * may span at most one week; `messages.streamRange` handles longer ranges.
 */
export const streamQuerySchema = z.strictObject({
  type: z.enum(STREAM_MESSAGE_TYPES).optional(),
  sender: z.enum(STREAM_SENDERS).optional(),
  channel: uuidSchema.optional(),
  conversation_uuid: uuidSchema.optional(),
  /** Default `false` on the server. */
  conversation_customer: z.boolean().optional(),
  created_at__gt: instantSchema.optional(),
  created_at__lt: instantSchema.optional(),
});
export type StreamQuery = z.input<typeof streamQuerySchema>;

// ---------------------------------------------------------------------------------------------------------
// Response records

/**
 * A computed figure (an average, a percentage). Django serialises `Decimal` aggregates as strings, so a
 * numeric string is read as its number rather than failing the whole report.
 */
const figure = z.union([
  z.number(),
  z
    .string()
    .regex(/^-?\d+(?:\.\d+)?$/)
    .transform(Number),
]);
const nullableFigure = figure.nullable();
const optionalText = z.string().nullable().optional();

/** `POST /jwt/` answer. Only `token` is required: the login must not fail over an ancillary field. */
export const loginResponseSchema = z.looseObject({
  token: z.string().min(1),
  account: z.looseObject({ uuid: z.string() }).nullable().optional(),
  otp: z.boolean().nullable().optional(),
  client: z
    .looseObject({ device_id: z.union([z.string(), z.number()]).nullable().optional() })
    .nullable()
    .optional(),
});
export interface LoginResponse extends z.infer<typeof loginResponseSchema> {}

/** A counter per period. */
export const periodCountsSchema = z.looseObject({
  today: z.number(),
  yesterday: z.number(),
  wtd: z.number(),
  mtd: z.number(),
});
export interface PeriodCounts extends z.infer<typeof periodCountsSchema> {}

/** A response-time accumulator: `sum` over `count` responses. `sum` may be null when `count` is 0. */
export const sumCountSchema = z.looseObject({ count: z.number(), sum: nullableFigure });
export interface SumCount extends z.infer<typeof sumCountSchema> {}

export const periodSumCountsSchema = z.looseObject({
  today: sumCountSchema,
  yesterday: sumCountSchema,
  wtd: sumCountSchema,
  mtd: sumCountSchema,
});
export interface PeriodSumCounts extends z.infer<typeof periodSumCountsSchema> {}

export const statsAgentSchema = z.looseObject({
  uuid: z.string(),
  name: optionalText,
  joined: periodCountsSchema,
  viewed: periodCountsSchema,
  sent: periodCountsSchema,
  frt: periodSumCountsSchema,
  art: periodSumCountsSchema,
});
export interface StatsAgent extends z.infer<typeof statsAgentSchema> {}

/** One element of `GET {stream_url}/stats`: a channel with its counters. */
export const statsChannelSchema = z.looseObject({
  uuid: z.string(),
  name: optionalText,
  stats: z.looseObject({
    messages: z.looseObject({ received: periodCountsSchema, sent: periodCountsSchema }),
    customers: z.looseObject({ new: periodCountsSchema, total: periodCountsSchema }),
    response_times: z.looseObject({ frt: periodSumCountsSchema, art: periodSumCountsSchema }),
    agents: z.array(statsAgentSchema),
  }),
});
export interface StatsChannel extends z.infer<typeof statsChannelSchema> {}
export const statsResponseSchema = z.array(statsChannelSchema);

const reportMessagesEntry = z.looseObject({
  date: z.string(),
  outgoing_messages: z.number(),
  incoming_messages: z.number(),
  total_messages: z.number(),
});
const reportResponseTimesEntry = z.looseObject({
  date: z.string(),
  first_response_time: nullableFigure,
  avg_response_time: nullableFigure,
});
/** The spec names `total_response_times` without its fields; the two figures it totals are typed if present. */
const reportTotalResponseTimes = z.looseObject({
  first_response_time: nullableFigure.optional(),
  avg_response_time: nullableFigure.optional(),
});
const reportCustomersEntry = z.looseObject({ date: z.string(), new: z.number(), total: z.number() });
const reportAgentsEntry = z.looseObject({
  agent_id: z.union([z.number(), z.string()]),
  uuid: z.string(),
  user__username: z.string(),
  user__first_name: optionalText,
  user__last_name: optionalText,
  viewed_conversations: z.number(),
  touched_conversations: z.number(),
  percent: nullableFigure,
  sent_messages: z.number(),
  first_response_time: nullableFigure,
  avg_response_time: nullableFigure,
  /** `HH:MM:SS`. */
  spent_time: z.string().nullable(),
});
const reportFeedbackEntry = z.looseObject({
  date: z.string(),
  total: z.number(),
  great: z.number(),
  good: z.number(),
  soso: z.number(),
  bad: z.number(),
  terrible: z.number(),
});
const reportTypesEntry = z.looseObject({ name: optionalText, sub: optionalText, total: z.number() });
const reportLanguageEntry = z.looseObject({ lang: optionalText, count: z.number() });
const group = z.string().nullable();

/**
 * `GET /reports/` answer (plain form). Each section is present when the query asked for it (`data`), so every
 * section is optional. `conversations.total` holds one entry per date; the spec names no other field of it.
 */
export const reportSchema = z.looseObject({
  conversations: z
    .looseObject({
      total: z.array(z.looseObject({ date: z.string() })),
      types: z.array(reportTypesEntry),
      language: z.array(reportLanguageEntry),
    })
    .optional(),
  messages: z.array(reportMessagesEntry).optional(),
  response_times: z.array(reportResponseTimesEntry).optional(),
  total_response_times: reportTotalResponseTimes.optional(),
  customers: z.array(reportCustomersEntry).optional(),
  agents: z.array(reportAgentsEntry).optional(),
  feedback: z.array(reportFeedbackEntry).optional(),
});
export interface Report extends z.infer<typeof reportSchema> {}

/**
 * `GET /reports/?group_based=true` answer: entries of conversations, messages, response_times and
 * total_response_times gain `group`, `conversations.total` gains `archived`, and `total_response_times` is an
 * array with one entry per group.
 */
export const groupBasedReportSchema = z.looseObject({
  conversations: z
    .looseObject({
      total: z.array(z.looseObject({ date: z.string(), group, archived: z.number() })),
      types: z.array(reportTypesEntry.extend({ group: group.optional() })),
      language: z.array(reportLanguageEntry.extend({ group: group.optional() })),
    })
    .optional(),
  messages: z.array(reportMessagesEntry.extend({ group })).optional(),
  response_times: z.array(reportResponseTimesEntry.extend({ group })).optional(),
  total_response_times: z.array(reportTotalResponseTimes.extend({ group })).optional(),
  customers: z.array(reportCustomersEntry).optional(),
  agents: z.array(reportAgentsEntry).optional(),
  feedback: z.array(reportFeedbackEntry).optional(),
});
export interface GroupBasedReport extends z.infer<typeof groupBasedReportSchema> {}

/** A conversation's type: an object with the type levels, a plain name, or null. */
export const conversationTypeSchema = z.union([
  z.looseObject({ main_type: optionalText, sub_type1: optionalText, sub_type2: optionalText }),
  z.string(),
  z.null(),
]);
export type ConversationType = z.infer<typeof conversationTypeSchema>;

/** The spec names `group` without its form: a name, a `{ name }` object, or null are all read. */
const conversationGroupSchema = z
  .union([z.string(), z.looseObject({ name: optionalText })])
  .nullable()
  .optional();

/** One element of `GET /reports/conversations/`. */
export const conversationRecordSchema = z.looseObject({
  uuid: z.string(),
  type: conversationTypeSchema.optional(),
  group: conversationGroupSchema,
  language: optionalText,
  created_at: z.string(),
  is_archived: z.boolean(),
  archived_at: z.string().nullable().optional(),
  /** Spelled `reponse_times` on the wire. */
  reponse_times: z
    .looseObject({ first_response_time: nullableFigure, avg_response_time: nullableFigure })
    .nullable()
    .optional(),
  customer: z
    .looseObject({
      uuid: z.string(),
      name: optionalText,
      phone_number: optionalText,
      email: optionalText,
      crm: z.unknown().optional(),
    })
    .nullable(),
  messages: z.looseObject({ total: z.number(), incoming: z.number(), outgoing: z.number() }).nullable(),
});
export interface ConversationRecord extends z.infer<typeof conversationRecordSchema> {}
export const conversationsResponseSchema = z.array(conversationRecordSchema);

const channelRefSchema = z.looseObject({ uuid: z.string(), name: optionalText, backend: optionalText });

/** One element of `GET /reports/feedbacks/` (`feedbacks[]`). */
export const feedbackSchema = z.looseObject({
  created_at: z.string(),
  conversation: z
    .looseObject({ uuid: z.string(), type: conversationTypeSchema.optional(), created_at: optionalText })
    .nullable(),
  channel: channelRefSchema.nullable(),
  customer: z
    .looseObject({ uuid: z.string(), name: optionalText, phone_number: optionalText, email: optionalText })
    .nullable(),
  /** `emoji` or `nps` today; read as a string so a new kind does not break the list. */
  type: z.string(),
  language: optionalText,
  satisfaction: z.number(),
  message: optionalText,
});
export interface Feedback extends z.infer<typeof feedbackSchema> {}
export const feedbacksResponseSchema = z.looseObject({ feedbacks: z.array(feedbackSchema) });

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

/** The answer of every `/v2/...` operation. */
export const detailResponseSchema = z.looseObject({ detail: z.string() });
export interface DetailResponse {
  /** The server's confirmation text. */
  detail: string;
}

// ---------------------------------------------------------------------------------------------------------
// Conversation and customer operations

/** A custom field's value, sent as `{ value }`. */
export const customFieldValueSchema = z.union([z.string(), z.number(), z.boolean(), z.null()], {
  error: 'a custom field value must be a string, number, boolean or null',
});
export type CustomFieldValue = z.input<typeof customFieldValueSchema>;

/** Custom-field identifier → value. */
export const customFieldsSchema = z
  .record(z.string().min(1, 'a custom field identifier is empty'), customFieldValueSchema)
  .refine((fields) => Object.keys(fields).length > 0, { error: 'no custom fields given' });
export type CustomFields = z.input<typeof customFieldsSchema>;

/** The `customer` of `POST /v2/customers/` (plain update). Unknown keys are refused, so a typo is caught. */
export const customerUpdateSchema = z
  .strictObject({
    name: z.string().optional(),
    /**
     * @deprecated The platform marks the `crm` update path to be deprecated; prefer a custom field
     * (`customers.setCustomFields`) for CRM identifiers.
     */
    crm: z.string().optional(),
    telegram: z.string().optional(),
    facebook: z.string().optional(),
    email: z.string().optional(),
    instagram: z.string().optional(),
    twitter: z.string().optional(),
  })
  .refine((c) => Object.values(c).some((v) => v !== undefined), { error: 'no customer field given' });
export type CustomerUpdate = z.input<typeof customerUpdateSchema>;

/** The agent of `POST /v2/conversations/assign/`: automatic assignment, or a specific agent by email. */
export const assignAgentSchema = z.union(
  [
    z.strictObject({ auto: z.literal(true) }),
    z.strictObject({ email: z.string().regex(/^[^\s@]+@[^\s@]+$/) }),
  ],
  { error: "agent must be { auto: true } or { email: 'agent@example.com' }" },
);
export type AssignAgent = z.input<typeof assignAgentSchema>;

/** `type` of `POST /v2/conversations/type/`: a type name and its sub-type (or null). */
export const conversationTypeInputSchema = z.strictObject({
  name: z.string().min(1, 'type name is empty'),
  sub: z.string().min(1, 'sub is empty: pass null for no sub-type').nullable().optional(),
});
export type ConversationTypeInput = z.input<typeof conversationTypeInputSchema>;

// ---------------------------------------------------------------------------------------------------------
// Outbound message items of POST /v2/messages/

/**
 * Lengths are counted in code points: the platform is a Python service and `len()` counts code points, so an
 * emoji in a button title counts once, as the spec's "emoji allowed" implies.
 */
export function codePoints(value: string): number {
  let n = 0;
  for (const _ of value) n++;
  return n;
}

function text(what: string, { min = 0, max }: { min?: number; max?: number } = {}) {
  return z.string({ error: `${what} must be a string` }).superRefine((value, ctx) => {
    const n = codePoints(value);
    if (n < min) {
      ctx.addIssue({
        code: 'too_small',
        origin: 'string',
        minimum: min,
        inclusive: true,
        input: value,
        message: min === 1 ? `${what} is empty` : `${what} has ${n} characters; the minimum is ${min}`,
      });
    }
    if (max !== undefined && n > max) {
      ctx.addIssue({
        code: 'too_big',
        origin: 'string',
        maximum: max,
        inclusive: true,
        input: value,
        message: `${what} has ${n} characters; the maximum is ${max}`,
      });
    }
  });
}

function httpUrl(what: string) {
  return z.string({ error: `${what} must be a string` }).refine(isHttpUrl, {
    error: `${what} must be an http(s) URL`,
  });
}

function isHttpUrl(value: string): boolean {
  if (/\s/.test(value)) return false;
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

/** The file types a document may have; judged by the extension of the URL's path. */
export const DOCUMENT_EXTENSIONS = ['pdf', 'doc', 'docx', 'dot', 'dotx'] as const;

function extensionOf(url: string): string | undefined {
  try {
    const last = new URL(url).pathname.split('/').pop() ?? '';
    const dot = last.lastIndexOf('.');
    return dot > 0 ? last.slice(dot + 1).toLowerCase() : undefined;
  } catch {
    return undefined;
  }
}

function checkDocumentUrl(url: string, path: (string | number)[], ctx: z.RefinementCtx): void {
  if (!isHttpUrl(url)) return;
  const ext = extensionOf(url);
  if (ext !== undefined && (DOCUMENT_EXTENSIONS as readonly string[]).includes(ext)) return;
  ctx.addIssue({
    code: 'custom',
    path,
    input: url,
    params: { rule: 'document_type' },
    message:
      `a document's URL must end in .${DOCUMENT_EXTENSIONS.join(', .')} (only PDF and word-processor ` +
      `files are sent); ${ext === undefined ? 'this one has no file extension' : `got .${ext}`}`,
  });
}

const quoteSchema = z.looseObject({
  quotedContent: z.string({ error: 'quote.quotedContent must be a string' }),
});

export const textItemSchema = z.looseObject({
  type: z.literal('text'),
  content: text('content', { min: 1 }),
  quote: quoteSchema.optional(),
});

export const locationItemSchema = z.looseObject({
  type: z.literal('location'),
  content: z.string({ error: 'content must be a string' }),
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
    content: z.string({ error: 'content (the caption) must be a string' }),
    url: httpUrl('url'),
    quote: quoteSchema.optional(),
  });
}
export const imageItemSchema = mediaItem('image');
export const videoItemSchema = mediaItem('video');
export const documentItemSchema = z
  .looseObject({
    type: z.literal('document'),
    /** The caption. */
    content: z.string({ error: 'content (the caption) must be a string' }),
    /** Must end in .pdf, .doc, .docx, .dot or .dotx. */
    url: httpUrl('url'),
    quote: quoteSchema.optional(),
  })
  .superRefine((item, ctx) => checkDocumentUrl(item.url, ['url'], ctx));

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
      content: z.string({ error: 'header.content must be a string' }),
    })
    .superRefine((header, ctx) => {
      if (header.type === 'text') {
        const n = codePoints(header.content);
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
        return;
      }
      if (header.type === 'document') checkDocumentUrl(header.content, ['content'], ctx);
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
    max === undefined
      ? list
      : list.max(max, {
          error: (i) =>
            `conversations has ${String((i.input as unknown[]).length)} entries; one request takes at most ${max} ` +
            '(batchSendAll sends longer lists in chunks)',
        })
  ).superRefine((uuids, ctx) => {
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
  });
}

/** The body of `POST /batch_send_message/`. */
export const batchSendBodySchema = z.object({
  message: text('message', { min: 1 }),
  conversations: conversationList(BATCH_SEND_MAX),
});
/** `batchSendAll`'s input: any number of conversations, sent in chunks. */
export const batchSendAllInputSchema = z.object({
  message: text('message', { min: 1 }),
  conversations: conversationList(undefined),
});

/** zod's issues as `MessageIssue`s; an SDK rule (`unique`, `required`, ...) replaces zod's `custom` code. */
export function toIssues(issues: readonly z.core.$ZodIssue[]): MessageIssue[] {
  return issues.map((i) => {
    const rule = i.code === 'custom' ? i.params?.['rule'] : undefined;
    return {
      path: i.path.map((p) => (typeof p === 'symbol' ? String(p) : p)),
      message: i.message,
      code: typeof rule === 'string' ? rule : i.code,
    };
  });
}

/** Runs a schema without ever throwing: a getter that throws or a Proxy becomes an issue. */
export function check<S extends z.ZodType>(
  schema: S,
  input: unknown,
): { ok: true; data: z.output<S> } | { ok: false; issues: MessageIssue[] } {
  try {
    const result = schema.safeParse(input);
    return result.success
      ? { ok: true, data: result.data }
      : { ok: false, issues: toIssues(result.error.issues) };
  } catch {
    // `result.error` is read inside the try (zod 4 builds messages lazily); the thrown error is not read at all.
    return {
      ok: false,
      issues: [
        { path: [], message: 'the input could not be read (a getter or proxy threw)', code: 'unreadable' },
      ],
    };
  }
}

/**
 * Checks the items of a `messages.send` against every rule of the spec and returns all issues at once (paths
 * relative to the items array). Never throws. Useful to validate a form before sending.
 *
 * @example
 * const { valid, issues } = validateMessageItems([{ type: 'text', content: '' }]);
 * // valid === false; issues[0].path → [0, 'content']
 */
export function validateMessageItems(items: unknown): { valid: boolean; issues: MessageIssue[] } {
  const result = check(sendMessagesBodySchema.shape.messages, items);
  return result.ok ? { valid: true, issues: [] } : { valid: false, issues: result.issues };
}
