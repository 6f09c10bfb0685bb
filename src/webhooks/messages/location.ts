/** The `location` incoming message. */
import * as z from '../../core/zod.js';
import { messageBase } from '../wire.js';

export const locationMessageSchema = z.looseObject({
  ...messageBase,
  type: z.literal('location'),
  location: z.looseObject({
    latitude: z.number(),
    longitude: z.number(),
    /** Name, address, url: for a chosen place, not a current location. */
    name: z.optional(z.string()),
    address: z.optional(z.string()),
    url: z.optional(z.string()),
  }),
});

export interface LocationMessage extends z.output<typeof locationMessageSchema> {}
