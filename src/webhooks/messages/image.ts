/** The `image` incoming message. */
import * as z from '../../core/zod.js';
import { base, fixtureId, type Overrides } from '../fixture-base.js';
import { mediaFields, messageBase, openEnum } from '../wire.js';

export const imageMessageSchema = z.looseObject({
  ...messageBase,
  type: z.literal('image'),
  image: z.looseObject({
    ...mediaFields,
    mime_type: openEnum(['image/jpeg', 'image/png']),
    caption: z.optional(z.string()),
  }),
});

export interface ImageMessage extends z.infer<typeof imageMessageSchema> {}

/** An `image` message with mime type, sha256 and caption. */
export function imageMessage(overrides: Overrides<ImageMessage> = {}): ImageMessage {
  return {
    ...base(overrides),
    image: { id: fixtureId('media.'), mime_type: 'image/jpeg', sha256: 'f'.repeat(64), caption: 'A photo' },
    ...overrides,
    type: 'image',
  };
}
