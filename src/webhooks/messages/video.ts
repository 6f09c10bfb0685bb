/** The `video` incoming message. */
import * as z from '../../core/zod.js';
import { mediaFields, messageBase, openEnum, optionalString } from '../wire.js';

export const videoMessageSchema = z.looseObject({
  ...messageBase,
  type: z.literal('video'),
  video: z.looseObject({
    ...mediaFields,
    mime_type: z.optional(openEnum(['video/mp4', 'video/3gp'])),
    caption: optionalString,
  }),
});

export interface VideoMessage extends z.output<typeof videoMessageSchema> {}
