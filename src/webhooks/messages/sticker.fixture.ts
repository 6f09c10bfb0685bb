/** Test builder of the `sticker` message: see `fixtures.ts`. */
import { base, fixtureId, type Overrides } from '../fixture-base.js';
import type { StickerMessage } from './sticker.js';

/** A `sticker` message. */
export function stickerMessage(overrides: Overrides<StickerMessage> = {}): StickerMessage {
  return {
    ...base(overrides),
    sticker: { id: fixtureId('media.'), mime_type: 'image/webp', sha256: 'b'.repeat(64), animated: false },
    ...overrides,
    type: 'sticker',
  };
}
