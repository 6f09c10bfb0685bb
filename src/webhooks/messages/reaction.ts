/** The `reaction` incoming message. */
import * as z from '../../core/zod.js';
import { messageBase, optionalString, requiredString } from '../wire.js';

export const reactionMessageSchema = z.looseObject({
  ...messageBase,
  type: z.literal('reaction'),
  reaction: z.looseObject({
    /** The `wamid` reacted to. */
    message_id: requiredString,
    /** Empty or absent: the reaction was removed (test with `isReactionRemoved`). */
    emoji: optionalString,
  }),
});

export interface ReactionMessage extends z.output<typeof reactionMessageSchema> {}
