/** Test builder of the `reaction` message: see `fixtures.ts`. */
import { base, fixtureId, type Overrides } from '../fixture-base.js';
import type { ReactionMessage } from './reaction.js';

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
