/** Test builder of the `contacts` message: see `fixtures.ts`. */
import { base, type Overrides } from '../fixture-base.js';
import type { ContactsMessage } from './contacts.js';

/** A `contacts` message sharing one contact card. */
export function contactsMessage(overrides: Overrides<ContactsMessage> = {}): ContactsMessage {
  return {
    ...base(overrides),
    contacts: [
      {
        name: { formatted_name: 'Ada Example', first_name: 'Ada', last_name: 'Example' },
        phones: [{ phone: '+1 555 000 2222', type: 'CELL' }],
        emails: [{ email: 'ada@example.com', type: 'WORK' }],
      },
    ],
    ...overrides,
    type: 'contacts',
  };
}
