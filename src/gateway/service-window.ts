/**
 * The 24-hour customer service window: when it is open, the store its times are read from, and the guard every
 * free-form send goes through, with the error it throws. The conversations router records the times; both it and
 * `GatewayClient`'s `serviceWindow` apply the guard from here.
 */
import { brandError, ConfigurationError, NotSentError, WaGatewayError } from '../core/errors.js';
import { givenKind, givenValue } from '../core/given-value.js';

/** "Non-template messages can only be sent within 24 hours of the last message from the user." */
export const SERVICE_WINDOW_MS = 24 * 60 * 60 * 1000;

/**
 * When each customer last wrote to the business (ms since the epoch): what the 24-hour service window is
 * computed from. `recordInbound` keeps the latest time (an older, redelivered message never moves it back).
 */
export interface WindowStore {
  recordInbound(customer: string, atMs: number): Promise<void>;
  lastInbound(customer: string): Promise<number | undefined>;
}

/**
 * A `WindowStore` call's customer, checked alike by every store: a phone number or a user id. Unchecked, a `null`
 * became one key shared by every such call. A store's bad argument is the caller's `ConfigurationError`, as with the
 * other stores' ids.
 *
 * @example
 * checkWindowCustomer('MyWindowStore.lastInbound', customer);
 */
export function checkWindowCustomer(call: string, customer: unknown): void {
  if (typeof customer !== 'string' || customer.trim() === '')
    throw new ConfigurationError(
      `${call}: \`customer\` must be the customer's phone number or user id; got ${givenKind(customer)}.`,
    );
}

/**
 * `recordInbound`'s arguments, checked alike by every store: the customer, and a time in ms since the epoch
 * (unchecked, a missing one was stored as 1 ms after the epoch).
 *
 * @example
 * checkInbound('MyWindowStore.recordInbound', customer, atMs);
 */
export function checkInbound(call: string, customer: unknown, atMs: unknown): void {
  checkWindowCustomer(call, customer);
  if (typeof atMs !== 'number' || !Number.isFinite(atMs))
    throw new ConfigurationError(
      `${call}: \`atMs\` must be a time in ms since the epoch; got ${givenValue(atMs)}.`,
    );
}

/**
 * A free-form (non-template) message to a customer whose 24-hour service window is closed, or whose last
 * message is not known, refused before any request: the gateway would answer `GW_001`. Send a template
 * instead. Certainly not sent (`mayHaveBeenSent` is `false`), so `sendMany` reports it `notSent`.
 *
 * @example
 * try { await gw.messages.send({ to, type: 'text', text: { body: 'Hi' } }) }
 * catch (e) { if (e instanceof ServiceWindowClosedError) await gw.messages.send(reminderTemplate(to)) }
 */
export class ServiceWindowClosedError extends WaGatewayError {
  override name = 'ServiceWindowClosedError';
  /** When the window closed (24 hours after the customer's last message); `undefined` when never seen. */
  readonly closedAt: Date | undefined;
  /** The customer the send was addressed to. */
  readonly recipient: string;
  readonly mayHaveBeenSent = false;

  constructor(recipient: string, closedAt: Date | undefined) {
    super(
      closedAt === undefined
        ? 'Not sent: no inbound message from this number is recorded, so no 24-hour service window is known to ' +
            "be open. The window is kept under the customer's wa_id (the `from` of their messages): if you wrote " +
            'their number another way (a national form, or without a digit the network adds), send to the wa_id. ' +
            'Otherwise only a template (type: "template") can start the conversation.'
        : `Not sent: the customer's 24-hour service window closed at ${closedAt.toISOString()}. Only a ` +
            'template (type: "template") can be sent until the customer writes again.',
    );
    this.recipient = recipient;
    this.closedAt = closedAt;
  }
}
brandError(ServiceWindowClosedError, 'ServiceWindowClosedError');

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
  const last: unknown = await store.lastInbound(message.to);
  // A store's answer of another type (a raw Redis string, NaN) must not open the window, nor crash the check.
  if (last !== undefined && (typeof last !== 'number' || !Number.isFinite(last))) {
    throw new NotSentError(
      `Not sent: the service window's store answered ${givenValue(last)} ` +
        "for the customer's last inbound message, not a time in ms since the epoch (or undefined when never seen).",
    );
  }
  if (last !== undefined && now < windowClosesAt(last)) return;
  throw new ServiceWindowClosedError(
    message.to,
    last === undefined ? undefined : new Date(windowClosesAt(last)),
  );
}
