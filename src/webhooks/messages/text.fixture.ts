/** Test builder of the `text` message: see `fixtures.ts`. */
import { base, type Overrides } from '../fixture-base.js';
import type { TextMessage } from './text.js';

/**
 * A `text` message.
 *
 * @example
 * const msg = textMessage({ text: { body: 'hello' } });
 */
export function textMessage(overrides: Overrides<TextMessage> = {}): TextMessage {
  return { ...base(overrides), text: { body: 'Hello from a fixture' }, ...overrides, type: 'text' };
}
