/** The `audio` incoming message. */
import * as z from '../../core/zod.js';
import { mediaFields, messageBase } from '../wire.js';

export const audioMessageSchema = z.looseObject({
  ...messageBase,
  type: z.literal('audio'),
  audio: z.looseObject({
    ...mediaFields,
    /** `true`: a voice note; `false`: an audio file; absent from older deliveries. */
    voice: z.optional(z.boolean()),
  }),
});

export interface AudioMessage extends z.output<typeof audioMessageSchema> {}
