/** The `sticker` incoming message. */
import * as z from '../../core/zod.js';
import { base, fixtureId, type Overrides } from '../fixture-base.js';
import { mediaFields, messageBase, openEnum } from '../wire.js';

export const stickerMessageSchema = z.looseObject({
  ...messageBase,
  type: z.literal('sticker'),
  sticker: z.looseObject({
    ...mediaFields,
    mime_type: openEnum(['image/webp']),
    animated: z.boolean(),
  }),
});

export interface StickerMessage extends z.infer<typeof stickerMessageSchema> {}

/** A `sticker` message. */
export function stickerMessage(overrides: Overrides<StickerMessage> = {}): StickerMessage {
  return {
    ...base(overrides),
    sticker: { id: fixtureId('media.'), mime_type: 'image/webp', sha256: 'b'.repeat(64), animated: false },
    ...overrides,
    type: 'sticker',
  };
}
