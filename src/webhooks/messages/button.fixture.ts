/** Test builder of the `button` message: see `fixtures.ts`. */
import { base, fixtureId, type Overrides } from '../fixture-base.js';
import type { ButtonMessage } from './button.js';

/**
 * A `button` message: a tap on a template's quick-reply button, replying (`context.id`) to the template sent.
 *
 * @example
 * const tap = buttonMessage({ payload: 'confirm_order_42', text: 'Confirm' });
 */
export function buttonMessage(
  button: { payload?: string; text?: string } = {},
  overrides: Overrides<ButtonMessage> = {},
): ButtonMessage {
  return {
    ...base(overrides),
    context: { id: fixtureId() },
    button: { payload: button.payload ?? 'quick_reply_yes', text: button.text ?? 'Yes' },
    ...overrides,
    type: 'button',
  };
}
