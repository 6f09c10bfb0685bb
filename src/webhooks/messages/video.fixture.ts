/** Test builder of the `video` message: see `fixtures.ts`. */
import { base, fixtureId, type Overrides } from '../fixture-base.js';
import type { VideoMessage } from './video.js';

/** A `video` message. */
export function videoMessage(overrides: Overrides<VideoMessage> = {}): VideoMessage {
  return {
    ...base(overrides),
    video: { id: fixtureId('media.'), mime_type: 'video/mp4', sha256: 'e'.repeat(64), caption: 'A clip' },
    ...overrides,
    type: 'video',
  };
}
