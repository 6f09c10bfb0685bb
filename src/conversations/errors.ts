import { brandError, WaGatewayError } from '../core/errors.js';

/** Why the router could not handle an event. */
export type ConversationErrorReason =
  | 'lock_timeout'
  | 'lock_lost'
  | 'no_customer'
  | 'unknown_flow'
  | 'invalid_options';

/**
 * The router could not handle an event or call: `reason` says why. Thrown from `router.handle`, it fails the
 * delivery, so the gateway (or the durable inbox) delivers the event again.
 *
 * @example
 * try { await router.handle(event) } catch (e) { if (e instanceof ConversationError) console.log(e.reason) }
 */
export class ConversationError extends WaGatewayError {
  override name = 'ConversationError';
  readonly reason: ConversationErrorReason;

  constructor(reason: ConversationErrorReason, message: string) {
    super(message);
    this.reason = reason;
  }
}
brandError(ConversationError, 'ConversationError');

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
        ? 'Not sent: this customer has not written to the business (no inbound message is recorded), so no ' +
            '24-hour service window is open. Only a template (type: "template") can start the conversation.'
        : `Not sent: the customer's 24-hour service window closed at ${closedAt.toISOString()}. Only a ` +
            'template (type: "template") can be sent until the customer writes again.',
    );
    this.recipient = recipient;
    this.closedAt = closedAt;
  }
}
brandError(ServiceWindowClosedError, 'ServiceWindowClosedError');
