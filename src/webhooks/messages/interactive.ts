/** The `interactive` incoming message. */
import * as z from '../../core/zod.js';
import { base, type Overrides } from '../fixture-base.js';
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

export interface InteractiveMessage extends z.infer<typeof interactiveMessageSchema> {}

/** An `interactive` message: a tap on a reply button. */
export function buttonReplyMessage(
  reply: { id?: string; title?: string } = {},
  overrides: Overrides<InteractiveMessage> = {},
): InteractiveMessage {
  return {
    ...base(overrides),
    interactive: {
      type: 'button_reply',
      button_reply: { id: reply.id ?? 'btn_yes', title: reply.title ?? 'Yes' },
    },
    ...overrides,
    type: 'interactive',
  };
}

/** An `interactive` message: a row chosen from a list. */
export function listReplyMessage(
  reply: { id?: string; title?: string; description?: string } = {},
  overrides: Overrides<InteractiveMessage> = {},
): InteractiveMessage {
  return {
    ...base(overrides),
    interactive: {
      type: 'list_reply',
      list_reply: {
        id: reply.id ?? 'row_1',
        title: reply.title ?? 'First row',
        ...(reply.description === undefined
          ? { description: 'The first row' }
          : { description: reply.description }),
      },
    },
    ...overrides,
    type: 'interactive',
  };
}
