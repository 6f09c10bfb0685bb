/** The `video` incoming message. */
import * as z from '../../core/zod.js';
import { base, fixtureId, type Overrides } from '../fixture-base.js';
import { mediaFields, messageBase, openEnum } from '../wire.js';

export const videoMessageSchema = z.looseObject({
  ...messageBase,
  type: z.literal('video'),
  video: z.looseObject({
    ...mediaFields,
    mime_type: openEnum(['video/mp4', 'video/3gp']),
    caption: z.optional(z.string()),
  }),
});

export interface VideoMessage extends z.infer<typeof videoMessageSchema> {}

/** A `video` message. */
export function videoMessage(overrides: Overrides<VideoMessage> = {}): VideoMessage {
  return {
    ...base(overrides),
    video: { id: fixtureId('media.'), mime_type: 'video/mp4', sha256: 'e'.repeat(64), caption: 'A clip' },
    ...overrides,
    type: 'video',
  };
}
