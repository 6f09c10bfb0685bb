/** The `account_update` change. */
import * as z from '../core/zod.js';
import { nonEmptyString, optionalString } from './wire.js';

/**
 * `value` of an `account_update` change. Only `event` says what happened; the other fields belong to some events
 * only (an account deleted, offboarded or joined by a partner concerns no one phone number).
 */
export const accountUpdateValueSchema = z.looseObject({
  /** On updates about one number (a ban, ...). */
  phone_number: optionalString,
  event: nonEmptyString,
  /** On ban-related updates; an update that is not about a ban has no reason to carry it. */
  ban_info: z.optional(
    z.looseObject({
      /** When sent (`SCHEDULE_FOR_DISABLE`, `DISABLE`, ...); `event` already says what happened. */
      waba_ban_state: optionalString,
      /** A date, as sent; absent from some. */
      waba_ban_date: optionalString,
    }),
  ),
});
export interface AccountUpdateValue extends z.output<typeof accountUpdateValueSchema> {}
