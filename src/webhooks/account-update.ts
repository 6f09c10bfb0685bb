/** The `account_update` change. */
import * as z from '../core/zod.js';

/** `value` of an `account_update` change. */
export const accountUpdateValueSchema = z.looseObject({
  phone_number: z.string(),
  event: z.string().check(z.minLength(1)),
  /** On ban-related updates; an update that is not about a ban has no reason to carry it. */
  ban_info: z.optional(
    z.looseObject({
      waba_ban_state: z.string(),
      /** A date, as sent. */
      waba_ban_date: z.string(),
    }),
  ),
});
export interface AccountUpdateValue extends z.output<typeof accountUpdateValueSchema> {}
