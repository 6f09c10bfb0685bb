/** The `location` incoming message. */
import * as z from '../../core/zod.js';
import { messageBase } from '../wire.js';

export const locationMessageSchema = z.looseObject({
  ...messageBase,
  type: z.literal('location'),
  location: z.looseObject({
    latitude: z.number(),
    longitude: z.number(),
    /** The place's name, for a chosen place (absent for a shared current location). */
    name: z.optional(z.string()),
    /** The place's address, for a chosen place. */
    address: z.optional(z.string()),
    /** The place's web address, when it has one. */
    url: z.optional(z.string()),
  }),
});

export interface LocationMessage extends z.output<typeof locationMessageSchema> {}
