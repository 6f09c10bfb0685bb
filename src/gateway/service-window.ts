/** The 24-hour customer service window: when it is open, and the guard every free-form send goes through. */
import { ServiceWindowClosedError } from '../conversations/errors.js';
import type { WindowStore } from '../conversations/stores.js';

/** "Non-template messages can only be sent within 24 hours of the last message from the user." */
export const SERVICE_WINDOW_MS = 24 * 60 * 60 * 1000;

/**
 * When the window of a customer whose last message came at `lastInboundMs` closes (ms since the epoch).
 *
 * @example
 * const closesAt = windowClosesAt(await window.lastInbound(customer) ?? 0);
 */
export function windowClosesAt(lastInboundMs: number): number {
  return lastInboundMs + SERVICE_WINDOW_MS;
}

/**
 * Refuses a free-form send to `to` with `ServiceWindowClosedError` unless the customer wrote within the last 24
 * hours. A customer the store has never seen counts as closed: the SDK cannot know the window is open, and a
 * guess would turn into a `GW_001` from the gateway after the request. Templates always pass.
 *
 * @example
 * await checkServiceWindow(window, { to: '998901234567', type: 'text' }); // throws when closed
 */
export async function checkServiceWindow(
  store: WindowStore,
  message: { readonly to?: unknown; readonly type?: unknown },
  now: number = Date.now(),
): Promise<void> {
  if (message.type === 'template' || typeof message.to !== 'string') return;
  const last = await store.lastInbound(message.to);
  if (last !== undefined && now < windowClosesAt(last)) return;
  throw new ServiceWindowClosedError(
    message.to,
    last === undefined ? undefined : new Date(windowClosesAt(last)),
  );
}
