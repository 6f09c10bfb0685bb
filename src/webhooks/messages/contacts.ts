/** The `contacts` incoming message. */
import * as z from '../../core/zod.js';
import { messageBase } from '../wire.js';

/**
 * One shared contact card inside a `contacts` message: whatever the user's address book held. Only the display
 * name is always there; a card may lack a first or last name, phones or emails, and each phone or email may lack
 * its `type` (a user's own label).
 */
export const sharedContactSchema = z.looseObject({
  name: z.looseObject({
    formatted_name: z.string(),
    first_name: z.optional(z.string()),
    last_name: z.optional(z.string()),
  }),
  phones: z.optional(
    z.array(
      z.looseObject({
        phone: z.optional(z.string()),
        /** `CELL`, `HOME`, `WORK`, ... when the card has a label. */
        type: z.optional(z.string()),
        wa_id: z.optional(z.string()),
      }),
    ),
  ),
  emails: z.optional(z.array(z.looseObject({ email: z.optional(z.string()), type: z.optional(z.string()) }))),
});
export interface SharedContact extends z.output<typeof sharedContactSchema> {}

export const contactsMessageSchema = z.looseObject({
  ...messageBase,
  type: z.literal('contacts'),
  contacts: z.array(sharedContactSchema),
});

export interface ContactsMessage extends z.output<typeof contactsMessageSchema> {}
