/** The `location` incoming message. */
import * as z from '../../core/zod.js';
import { messageBase, optionalString } from '../wire.js';

export const locationMessageSchema = z.looseObject({
  ...messageBase,
  type: z.literal('location'),
  location: z.looseObject({
    latitude: z.number(),
    longitude: z.number(),
    /** Name, address, url: for a chosen place, not a current location. */
    name: optionalString,
    address: optionalString,
    url: optionalString,
  }),
});

export interface LocationMessage extends z.output<typeof locationMessageSchema> {}
