/** The `text` incoming message. */
import * as z from '../../core/zod.js';
import { base, type Overrides } from '../fixture-base.js';
import { messageBase } from '../wire.js';

export const textMessageSchema = z.looseObject({
  ...messageBase,
  type: z.literal('text'),
  text: z.looseObject({ body: z.string() }),
});

export interface TextMessage extends z.infer<typeof textMessageSchema> {}

/**
 * A `text` message.
 *
 * @example
 * const msg = textMessage({ text: { body: 'hello' } });
 */
export function textMessage(overrides: Overrides<TextMessage> = {}): TextMessage {
  return { ...base(overrides), text: { body: 'Hello from a fixture' }, ...overrides, type: 'text' };
}
