/** `value.statuses[]`: the state changes of outbound messages. */
import * as z from '../core/zod.js';
import { openEnum, timestampSchema } from './wire.js';

/** Status values the spec documents. Others may appear and are accepted. */
export const STATUS_VALUES = ['sent', 'delivered', 'read', 'failed'] as const;
/** A documented status value. */
export type KnownStatusValue = (typeof STATUS_VALUES)[number];

/** Conversation origin types the spec documents. */
export const CONVERSATION_ORIGIN_TYPES = ['marketing', 'utility', 'authentication', 'service'] as const;

/** One entry of a failed status's `errors[]`. */
export const statusErrorSchema = z.looseObject({
  code: z.int(),
  title: z.string(),
  message: z.string(),
  error_data: z.looseObject({ details: z.string() }),
});
export interface StatusError extends z.output<typeof statusErrorSchema> {}

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
export interface WebhookStatus extends z.output<typeof statusSchema> {}
