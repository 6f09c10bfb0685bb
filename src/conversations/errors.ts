import { brandError, WaGatewayError } from '../core/errors.js';

/** Why the router could not handle an event. */
export type ConversationErrorReason =
  | 'lock_timeout'
  | 'lock_lost'
  | 'no_customer'
  | 'unknown_flow'
  | 'invalid_options'
  | 'invalid_event'
  | 'invalid_session';

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
