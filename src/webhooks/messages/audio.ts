/** The `audio` incoming message. */
import * as z from '../../core/zod.js';
import { mediaFields, messageBase } from '../wire.js';

export const audioMessageSchema = z.looseObject({
  ...messageBase,
  type: z.literal('audio'),
  audio: z.looseObject({
    ...mediaFields,
    /**
     * `true` for a voice note recorded in the app, `false` for an uploaded audio file. Absent from older deliveries
     * (read absent as not known).
     */
    voice: z.optional(z.boolean()),
  }),
});

export interface AudioMessage extends z.output<typeof audioMessageSchema> {}
