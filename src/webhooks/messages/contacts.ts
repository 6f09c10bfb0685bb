/** The `contacts` incoming message. */
import * as z from '../../core/zod.js';
import { messageBase } from '../wire.js';

/**
 * One shared contact card inside a `contacts` message. The spec gives the fields of the name and of each phone
 * and email; it does not say every card has a phone and an email, so the lists themselves may be absent.
 */
export const sharedContactSchema = z.looseObject({
  name: z.looseObject({
    formatted_name: z.string(),
    first_name: z.string(),
    last_name: z.string(),
  }),
  phones: z.optional(z.array(z.looseObject({ phone: z.string(), type: z.string() }))),
  emails: z.optional(z.array(z.looseObject({ email: z.string(), type: z.string() }))),
});
export interface SharedContact extends z.output<typeof sharedContactSchema> {}

export const contactsMessageSchema = z.looseObject({
  ...messageBase,
  type: z.literal('contacts'),
  contacts: z.array(sharedContactSchema),
});

export interface ContactsMessage extends z.output<typeof contactsMessageSchema> {}
