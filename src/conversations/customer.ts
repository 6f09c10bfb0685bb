/**
 * Who an event is about. One small function on purpose: the webhook types are loosening (`message.from` may
 * become optional, with `from_user_id` for business-scoped users; `recipient_id` likewise), and every store of
 * this entry keys customers through here, so the change is absorbed in one place.
 */
import type { WebhookEvent } from '../webhooks/events.js';

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

/**
 * The customer an event belongs to: a message's sender (`from`, else `from_user_id`), a status's recipient
 * (`recipient_id`, else `recipient_user_id`), `undefined` for template and account updates or when absent.
 *
 * @example
 * const customer = customerOf(event); // '998901234567'
 */
export function customerOf(event: WebhookEvent): string | undefined {
  if (event.kind === 'message') {
    const m = event.message as { from?: unknown; from_user_id?: unknown };
    return text(m.from) ?? text(m.from_user_id);
  }
  if (event.kind === 'status') {
    const s = event.status as { recipient_id?: unknown; recipient_user_id?: unknown };
    return text(s.recipient_id) ?? text(s.recipient_user_id);
  }
  return undefined;
}
