/** The `reaction` incoming message. */
import * as z from '../../core/zod.js';
import { messageBase } from '../wire.js';

export const reactionMessageSchema = z.looseObject({
  ...messageBase,
  type: z.literal('reaction'),
  reaction: z.looseObject({
    /** The `wamid` reacted to. */
    message_id: z.string(),
    /**
     * The emoji. A removed reaction comes with an empty string or with no `emoji` at all: test it with
     * `isReactionRemoved`, not with `=== ''`.
     */
    emoji: z.optional(z.string()),
  }),
});

export interface ReactionMessage extends z.output<typeof reactionMessageSchema> {}
