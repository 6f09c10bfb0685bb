/** The `reaction` incoming message. */
import * as z from '../../core/zod.js';
import { base, fixtureId, type Overrides } from '../fixture-base.js';
import { messageBase } from '../wire.js';

export const reactionMessageSchema = z.looseObject({
  ...messageBase,
  type: z.literal('reaction'),
  reaction: z.looseObject({
    /** The `wamid` reacted to. */
    message_id: z.string(),
    /** An empty string means the reaction was removed: see `isReactionRemoved`. */
    emoji: z.string(),
  }),
});

export interface ReactionMessage extends z.infer<typeof reactionMessageSchema> {}

/** A `reaction` message; pass `emoji: ''` for a removed reaction. */
export function reactionMessage(
  reaction: { message_id?: string; emoji?: string } = {},
  overrides: Overrides<ReactionMessage> = {},
): ReactionMessage {
  return {
    ...base(overrides),
    reaction: { message_id: reaction.message_id ?? fixtureId(), emoji: reaction.emoji ?? '\u{1F44D}' },
    ...overrides,
    type: 'reaction',
  };
}
