/** The `audio` incoming message. */
import * as z from '../../core/zod.js';
import { base, fixtureId, type Overrides } from '../fixture-base.js';
import { mediaFields, messageBase } from '../wire.js';

export const audioMessageSchema = z.looseObject({
  ...messageBase,
  type: z.literal('audio'),
  audio: z.looseObject({
    ...mediaFields,
    /** `true` for a voice note recorded in the app, `false` for an uploaded audio file. */
    voice: z.boolean(),
  }),
});

export interface AudioMessage extends z.infer<typeof audioMessageSchema> {}

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
