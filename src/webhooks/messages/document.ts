/** The `document` incoming message. */
import * as z from '../../core/zod.js';
import { base, fixtureId, type Overrides } from '../fixture-base.js';
import { mediaFields, messageBase } from '../wire.js';

export const documentMessageSchema = z.looseObject({
  ...messageBase,
  type: z.literal('document'),
  document: z.looseObject({
    ...mediaFields,
    filename: z.string(),
    caption: z.optional(z.string()),
  }),
});

export interface DocumentMessage extends z.infer<typeof documentMessageSchema> {}

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
