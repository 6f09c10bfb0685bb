/** Test builder of the `image` message: see `fixtures.ts`. */
import { base, fixtureId, type Overrides } from '../fixture-base.js';
import type { ImageMessage } from './image.js';

/** An `image` message with mime type, sha256 and caption. */
export function imageMessage(overrides: Overrides<ImageMessage> = {}): ImageMessage {
  return {
    ...base(overrides),
    image: { id: fixtureId('media.'), mime_type: 'image/jpeg', sha256: 'f'.repeat(64), caption: 'A photo' },
    ...overrides,
    type: 'image',
  };
}
