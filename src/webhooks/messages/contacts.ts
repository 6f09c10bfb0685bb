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
    /** The name as displayed: every card has one. */
    formatted_name: z.string(),
    /** Absent when the card has none. */
    first_name: z.optional(z.string()),
    /** Absent when the card has none (a contact saved under one name). */
    last_name: z.optional(z.string()),
  }),
  /** Absent when the card has no phone number. */
  phones: z.optional(
    z.array(
      z.looseObject({
        phone: z.optional(z.string()),
        /** The phone's label (`CELL`, `HOME`, `WORK`, ...), when the card has one. */
        type: z.optional(z.string()),
        /** The number's account id, when it has one. */
        wa_id: z.optional(z.string()),
      }),
    ),
  ),
  /** Absent when the card has no email address. */
  emails: z.optional(z.array(z.looseObject({ email: z.optional(z.string()), type: z.optional(z.string()) }))),
});
export interface SharedContact extends z.output<typeof sharedContactSchema> {}

export const contactsMessageSchema = z.looseObject({
  ...messageBase,
  type: z.literal('contacts'),
  contacts: z.array(sharedContactSchema),
});

export interface ContactsMessage extends z.output<typeof contactsMessageSchema> {}
