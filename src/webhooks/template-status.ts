/** The `message_template_status_update` change. */
import * as z from '../core/zod.js';
import { TEMPLATE_STATUS_EVENTS } from './vocabulary.js';
import { openEnum, optionalString, requiredString } from './wire.js';

export { TEMPLATE_STATUS_EVENTS, type TemplateStatusEventName } from './vocabulary.js';

/** `value` of a `message_template_status_update` change. */
export const templateStatusValueSchema = z.looseObject({
  event: openEnum(TEMPLATE_STATUS_EVENTS, { nonEmpty: true }),
  // An integer per the spec. Not `.int()`: zod's int is the safe-integer range and an id beyond 2^53 has
  // already lost precision in JSON.parse; refusing it would only lose the event as well.
  message_template_id: z.number(),
  /** When sent (else look it up by id). */
  message_template_name: optionalString,
  message_template_language: optionalString,
  /** Filled for a rejection; `null` otherwise (an absent reason reads as `null`). */
  reason: z._default(z.nullable(requiredString), null),
});
export interface TemplateStatusValue extends z.output<typeof templateStatusValueSchema> {}
