/** The `document` incoming message. */
import * as z from '../../core/zod.js';
import { mediaFields, messageBase, optionalString } from '../wire.js';

export const documentMessageSchema = z.looseObject({
  ...messageBase,
  type: z.literal('document'),
  document: z.looseObject({
    ...mediaFields,
    /** Absent when the user's app gave none. */
    filename: optionalString,
    caption: optionalString,
  }),
});

export interface DocumentMessage extends z.output<typeof documentMessageSchema> {}
