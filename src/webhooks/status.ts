/** `value.statuses[]`: the state changes of outbound messages. */
import * as z from '../core/zod.js';
import { CONVERSATION_ORIGIN_TYPES, STATUS_VALUES } from './vocabulary.js';
import { nonEmptyString, openEnum, optionalString, requiredString, timestampSchema } from './wire.js';

export { CONVERSATION_ORIGIN_TYPES, type KnownStatusValue, STATUS_VALUES } from './vocabulary.js';

/**
 * One entry of a failed status's `errors[]`. The code says what went wrong and the title names it; the longer
 * `message` and `error_data` are absent from some real deliveries, and an `error_data` that is sent may be empty
 * (`{}`), so nothing inside it is required either.
 */
export const statusErrorSchema = z.looseObject({
  code: z.int(),
  title: requiredString,
  /** When sent (often equal to `title`). */
  message: optionalString,
  /** When sent; may be `{}`. */
  error_data: z.optional(z.looseObject({ /** When sent. */ details: optionalString })),
});
export interface StatusError extends z.output<typeof statusErrorSchema> {}

/**
 * `value.statuses[]`: a change of an outbound message's state. A status is about the `wamid` the application sent,
 * whoever the recipient is: the wamid, the status value and the timestamp are required, the recipient is not (it
 * is a phone number, a business-scoped user id, or both). `conversation` comes on sent/delivered and `errors` on
 * failed, so both are optional as objects; `pricing` is only meaningful where a fee may apply (a `read` carries
 * none), so it is optional too. These objects describe the status and the SDK routes nothing by them, so the
 * fields inside them are optional as well (a `conversation` without `origin`, a `pricing` without
 * `pricing_model`): a status is never demoted to `unknown` for what it says about billing.
 */
export const statusSchema = z.looseObject({
  /** The outbound message's `wamid` (the `data.messages[0].id` of the send response). */
  id: nonEmptyString,
  status: openEnum(STATUS_VALUES, { nonEmpty: true }),
  /** Unix seconds of the change, as sent. Order statuses by this, not by arrival. */
  timestamp: timestampSchema,
  /** Recipient's number; absent for a user known by `recipient_user_id` only (see `customerOf`). */
  recipient_id: optionalString,
  /** Recipient's business-scoped user id, when sent. */
  recipient_user_id: optionalString,
  /** Business-scoped id of the recipient's parent account, when sent. */
  parent_recipient_user_id: optionalString,
  conversation: z.optional(
    z.looseObject({
      /** When sent. */
      id: optionalString,
      /** When sent. */
      origin: z.optional(
        z.looseObject({ /** When sent. */ type: z.optional(openEnum(CONVERSATION_ORIGIN_TYPES)) }),
      ),
    }),
  ),
  pricing: z.optional(
    z.looseObject({
      /** `true`: the fee is deducted (on `delivered`); `false`: free tier; absent from some deliveries. */
      billable: z.optional(z.boolean()),
      /** When sent (`CBP`, `PMP`, ...). */
      pricing_model: optionalString,
      /** When sent (`marketing`, `utility`, ...). */
      category: optionalString,
    }),
  ),
  /** Filled on `failed`. */
  errors: z.optional(z.array(statusErrorSchema)),
});
export interface WebhookStatus extends z.output<typeof statusSchema> {}
