import { z } from 'zod';
import { addMonth } from './calendar-month.js';
import {
  channelRefSchema,
  instantSchema,
  maxSpan,
  nullableFigure,
  optionalText,
  uuidSchema,
} from './fields.js';

/** Schemas of `GET /reports/`, `/reports/conversations/` and `/reports/feedbacks/`: queries and records. */

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

export const FEEDBACK_TYPES = ['emoji', 'nps'] as const;
export type FeedbackType = (typeof FEEDBACK_TYPES)[number];

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

/**
 * `GET /reports/feedbacks/` query. The range may span at most one calendar month (`addMonth`, the platform's rule;
 * `feedbacksRange` splits longer ones).
 */
export const feedbacksQuerySchema = z
  .strictObject({
    /** `emoji` or `nps`; all when omitted. */
    type: z.enum(FEEDBACK_TYPES).optional(),
    /** A channel UUID; all channels when omitted. */
    channel: uuidSchema.optional(),
    start_date: instantSchema.optional(),
    end_date: instantSchema.optional(),
  })
  .superRefine(
    maxSpan(
      'start_date',
      'end_date',
      addMonth,
      (latest) =>
        `is after ${latest}, one calendar month after start_date: the platform refuses a longer span (400); ` +
        'use reports.feedbacksRange({ from, to }) to fetch it in monthly windows',
    ),
  );
export type FeedbacksQuery = z.input<typeof feedbacksQuerySchema>;

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
