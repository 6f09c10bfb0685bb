/** Test builder of the `document` message: see `fixtures.ts`. */
import { base, fixtureId, type Overrides } from '../fixture-base.js';
import type { DocumentMessage } from './document.js';

/** A `document` message with a filename. */
export function documentMessage(overrides: Overrides<DocumentMessage> = {}): DocumentMessage {
  return {
    ...base(overrides),
    document: {
      id: fixtureId('media.'),
      filename: 'invoice.pdf',
      mime_type: 'application/pdf',
      sha256: 'd'.repeat(64),
      caption: 'The invoice',
    },
    ...overrides,
    type: 'document',
  };
}
