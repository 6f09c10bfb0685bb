/** `value.statuses[]`: the state changes of outbound messages. */
import * as z from '../core/zod.js';
import { FIXTURE_SENDER, FIXTURE_TIMESTAMP, fixtureId } from './fixture-base.js';
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

/**
 * A status object. `delivered` carries billable pricing and `failed` an error, as the gateway sends them.
 *
 * @example
 * const delivered = statusObject('delivered', { id: sent.id, timestamp: '1700000060' });
 */
export function statusObject(
  status: 'sent' | 'delivered' | 'read' | 'failed' | (string & {}),
  overrides: Partial<WebhookStatus> = {},
): WebhookStatus {
  const common = {
    id: overrides.id ?? fixtureId(),
    status,
    timestamp: FIXTURE_TIMESTAMP,
    recipient_id: FIXTURE_SENDER,
  };
  if (status === 'sent' || status === 'delivered') {
    return {
      ...common,
      conversation: { id: 'conversation_1', origin: { type: 'utility' } },
      pricing: { billable: true, pricing_model: 'PMP', category: 'utility' },
      ...overrides,
    };
  }
  if (status === 'failed') {
    return {
      ...common,
      errors: [
        {
          code: 131026,
          title: 'Message undeliverable',
          message: 'Message undeliverable',
          error_data: { details: 'The recipient is not reachable' },
        },
      ],
      ...overrides,
    };
  }
  return { ...common, ...overrides };
}
