/** Test builder of the `interactive` message: see `fixtures.ts`. */
import { base, type Overrides } from '../fixture-base.js';
import type { InteractiveMessage } from './interactive.js';

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
