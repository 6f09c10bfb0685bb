/** The `image` incoming message. */
import * as z from '../../core/zod.js';
import { mediaFields, messageBase, openEnum, optionalString } from '../wire.js';

export const imageMessageSchema = z.looseObject({
  ...messageBase,
  type: z.literal('image'),
  image: z.looseObject({
    ...mediaFields,
    mime_type: z.optional(openEnum(['image/jpeg', 'image/png'])),
    caption: optionalString,
  }),
});

export interface ImageMessage extends z.output<typeof imageMessageSchema> {}
