/** Test builder of a status object: see `fixtures.ts`. */
import { FIXTURE_SENDER, FIXTURE_TIMESTAMP, fixtureId } from './fixture-base.js';
import type { WebhookStatus } from './status.js';

/**
 * A status object. `delivered` carries billable pricing and `failed` an error, as the gateway sends them.
 *
 * @example
 * const delivered = statusObject('delivered', { id: sent.id, timestamp: '1700000060' });
 */
export function statusObject(
  status: 'sent' | 'delivered' | 'read' | 'failed' | (string & {}),
  overrides: Partial<WebhookStatus> = {},
): WebhookStatus {
  const common = {
    id: overrides.id ?? fixtureId(),
    status,
    timestamp: FIXTURE_TIMESTAMP,
    recipient_id: FIXTURE_SENDER,
  };
  if (status === 'sent' || status === 'delivered') {
    return {
      ...common,
      conversation: { id: 'conversation_1', origin: { type: 'utility' } },
      pricing: { billable: true, pricing_model: 'PMP', category: 'utility' },
      ...overrides,
    };
  }
  if (status === 'failed') {
    return {
      ...common,
      errors: [
        {
          code: 131026,
          title: 'Message undeliverable',
          message: 'Message undeliverable',
          error_data: { details: 'The recipient is not reachable' },
        },
      ],
      ...overrides,
    };
  }
  return { ...common, ...overrides };
}
