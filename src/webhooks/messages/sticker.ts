/** The `sticker` incoming message. */
import * as z from '../../core/zod.js';
import { mediaFields, messageBase, openEnum } from '../wire.js';

export const stickerMessageSchema = z.looseObject({
  ...messageBase,
  type: z.literal('sticker'),
  sticker: z.looseObject({
    ...mediaFields,
    mime_type: openEnum(['image/webp']),
    animated: z.boolean(),
  }),
});

export interface StickerMessage extends z.output<typeof stickerMessageSchema> {}
