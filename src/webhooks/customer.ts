/**
 * `customerOf`: who an event is about, whichever form identifies the user. The upstream platform identifies a user
 * by a phone number, by a business-scoped user id, or by both; an event may carry either in its message or status
 * and in its contact.
 */
import { isRecord } from '../core/plain-data.js';
import type { WebhookEvent } from './events.js';

/** Who a message came from or a status is about. Every field but `key` is there only when the event carries it. */
export interface Customer {
  /** The user's phone number, as sent (digits, no `+`). The number to send a reply `to`. */
  phone?: string;
  /** The user's business-scoped user id (stable for this business, whether or not the number is shared). */
  userId?: string;
  /** The business-scoped id of the user's parent account, when sent. */
  parentUserId?: string;
  /** The user's username, when the contact carries one. */
  username?: string;
  /**
   * One string to key per-user state by: the phone number when the event carries one, else the user id. Phone first
   * keeps state keyed by number before business-scoped ids existed valid; a user known by id only gets the id (ids
   * hold a country prefix and a dot, so they never equal a number). It follows what the delivery carries: a user
   * whose later deliveries carry only the id gets a new key; store `phone` and `userId` together and map one to the
   * other when that matters (docs/webhooks.md, "Who sent it").
   */
  key: string;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/**
 * Who an event is about: the sender of a `message` event (from the message, else its contact), the recipient of a
 * `status` event. `undefined` for other kinds, and for a message or status that names no user at all.
 *
 * Sends still go `to` a phone number (the gateway accepts nothing else): a customer known by `userId` only cannot
 * be messaged until a delivery carries their number.
 *
 * @example
 * const who = customerOf(event);
 * if (who) await sessions.touch(who.key);
 * if (event.kind === 'message' && who?.phone) await gw.messages.send({ to: who.phone, type: 'text', text: { body: 'Hi' } });
 */
export function customerOf(event: WebhookEvent): Customer | undefined {
  let phone: string | undefined;
  let userId: string | undefined;
  let parentUserId: string | undefined;
  let username: string | undefined;
  // A JS caller's `undefined` is an event without a customer, not a TypeError.
  if (event?.kind === 'message') {
    // The unknown variant keeps the message as received: read it there, not only from its two copied fields.
    const message: Record<string, unknown> =
      event.message.type === 'unknown' ? event.message.raw : (event.message as Record<string, unknown>);
    const contact = event.contact;
    phone = text(message['from']) ?? text(contact?.wa_id);
    userId = text(message['from_user_id']) ?? text(contact?.user_id);
    parentUserId = text(message['from_parent_user_id']) ?? text(contact?.parent_user_id);
    const profile = contact?.profile;
    username = isRecord(profile) ? text(profile['username']) : undefined;
  } else if (event?.kind === 'status') {
    phone = text(event.status.recipient_id);
    userId = text(event.status.recipient_user_id);
    parentUserId = text(event.status.parent_recipient_user_id);
  } else {
    return undefined;
  }
  const key = phone ?? userId;
  if (key === undefined) return undefined;
  return {
    ...(phone !== undefined ? { phone } : {}),
    ...(userId !== undefined ? { userId } : {}),
    ...(parentUserId !== undefined ? { parentUserId } : {}),
    ...(username !== undefined ? { username } : {}),
    key,
  };
}
