/** The `location` incoming message. */
import * as z from '../../core/zod.js';
import { base, type Overrides } from '../fixture-base.js';
import { messageBase } from '../wire.js';

export const locationMessageSchema = z.looseObject({
  ...messageBase,
  type: z.literal('location'),
  location: z.looseObject({
    latitude: z.number(),
    longitude: z.number(),
    name: z.optional(z.string()),
    address: z.optional(z.string()),
  }),
});

export interface LocationMessage extends z.infer<typeof locationMessageSchema> {}

/** A `location` message. */
export function locationMessage(overrides: Overrides<LocationMessage> = {}): LocationMessage {
  return {
    ...base(overrides),
    location: { latitude: 41.2995, longitude: 69.2401, name: 'Fixture Square', address: '1 Example Street' },
    ...overrides,
    type: 'location',
  };
}
