/** Test builder of the `location` message: see `fixtures.ts`. */
import { base, type Overrides } from '../fixture-base.js';
import type { LocationMessage } from './location.js';

/** A `location` message. */
export function locationMessage(overrides: Overrides<LocationMessage> = {}): LocationMessage {
  return {
    ...base(overrides),
    location: { latitude: 41.2995, longitude: 69.2401, name: 'Fixture Square', address: '1 Example Street' },
    ...overrides,
    type: 'location',
  };
}
