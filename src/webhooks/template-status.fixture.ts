/** Test builder of a template status value: see `fixtures.ts`. */
import type { TemplateStatusValue } from './template-status.js';

/** A template status value (`APPROVED` by default; `REJECTED` fills `reason`). */
export function templateStatusValue(overrides: Partial<TemplateStatusValue> = {}): TemplateStatusValue {
  const event = overrides.event ?? 'APPROVED';
  return {
    event,
    message_template_id: 594425479261596,
    message_template_name: 'order_update',
    message_template_language: 'en_US',
    reason: event === 'REJECTED' ? 'INCORRECT_CATEGORY' : null,
    ...overrides,
  };
}
