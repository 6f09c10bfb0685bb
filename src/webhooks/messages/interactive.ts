/** The `interactive` incoming message. */
import * as z from '../../core/zod.js';
import { messageBase } from '../wire.js';

/** A tap on a reply button the business sent. */
export const buttonReplySchema = z.looseObject({
  type: z.literal('button_reply'),
  button_reply: z.looseObject({
    /** The `reply.id` the business sent with the button. */
    id: z.string(),
    title: z.string(),
  }),
});

/** A row chosen from a list the business sent. */
export const listReplySchema = z.looseObject({
  type: z.literal('list_reply'),
  list_reply: z.looseObject({
    id: z.string(),
    title: z.string(),
    /** Present when the row had one. */
    description: z.optional(z.string()),
  }),
});

export const interactiveMessageSchema = z.looseObject({
  ...messageBase,
  type: z.literal('interactive'),
  // Other interactive kinds (flows, ...) do not match and are delivered as the `unknown` variant, raw object kept.
  interactive: z.discriminatedUnion('type', [buttonReplySchema, listReplySchema]),
});

export interface InteractiveMessage extends z.output<typeof interactiveMessageSchema> {}
