/** Test builder of the `audio` message: see `fixtures.ts`. */
import { base, fixtureId, type Overrides } from '../fixture-base.js';
import type { AudioMessage } from './audio.js';

/** An `audio` message; `voice: true` is a voice note. */
export function audioMessage(overrides: Overrides<AudioMessage> = {}): AudioMessage {
  return {
    ...base(overrides),
    audio: {
      id: fixtureId('media.'),
      mime_type: 'audio/ogg; codecs=opus',
      sha256: 'a'.repeat(64),
      voice: true,
    },
    ...overrides,
    type: 'audio',
  };
}
