/** The `contacts` incoming message. */
import * as z from '../../core/zod.js';
import { messageBase, optionalString, requiredString } from '../wire.js';

/**
 * One shared contact card inside a `contacts` message: whatever the user's address book held. Only the display
 * name is always there; a card may lack a first or last name, phones or emails, and each phone or email may lack
 * its `type` (a user's own label).
 */
export const sharedContactSchema = z.looseObject({
  name: z.looseObject({
    formatted_name: requiredString,
    first_name: optionalString,
    last_name: optionalString,
  }),
  phones: z.optional(
    z.array(
      z.looseObject({
        phone: optionalString,
        /** `CELL`, `HOME`, `WORK`, ... when the card has a label. */
        type: optionalString,
        wa_id: optionalString,
      }),
    ),
  ),
  emails: z.optional(z.array(z.looseObject({ email: optionalString, type: optionalString }))),
});
export interface SharedContact extends z.output<typeof sharedContactSchema> {}

export const contactsMessageSchema = z.looseObject({
  ...messageBase,
  type: z.literal('contacts'),
  contacts: z.array(sharedContactSchema),
});

export interface ContactsMessage extends z.output<typeof contactsMessageSchema> {}
