/** The `text` incoming message. */
import * as z from '../../core/zod.js';
import { messageBase, requiredString } from '../wire.js';

export const textMessageSchema = z.looseObject({
  ...messageBase,
  type: z.literal('text'),
  text: z.looseObject({ body: requiredString }),
});

export interface TextMessage extends z.output<typeof textMessageSchema> {}
