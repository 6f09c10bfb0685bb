/** The `text` incoming message. */
import * as z from '../../core/zod.js';
import { messageBase } from '../wire.js';

export const textMessageSchema = z.looseObject({
  ...messageBase,
  type: z.literal('text'),
  text: z.looseObject({ body: z.string() }),
});

export interface TextMessage extends z.output<typeof textMessageSchema> {}
