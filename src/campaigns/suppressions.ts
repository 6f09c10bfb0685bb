/**
 * Opt-outs: the recipients a campaign must not reach, each with the reason it was added (a customer who wrote
 * STOP, a complaint, a number that asked to be forgotten). A campaign queue checks its list before each send and
 * records every skip with that reason. The memory list serves one process; `RedisSuppressionList`
 * (`wa-gateway-sdk/redis`) serves every process sharing a Redis.
 */
import { ConfigurationError } from '../core/errors.js';
import { ONE_PROCESS_SUPPRESSIONS } from '../core/one-process.js';
import { normalizeRecipient } from '../gateway/recipient.js';

/**
 * The code a campaign queue records a message under when its recipient is on the suppression list (never sent,
 * and never offered for a retry: the customer opted out).
 */
export const SUPPRESSED_CODE = 'SUPPRESSED';

/** Who must not be sent to, and why. Every method may be called by many processes at once (a shared list). */
export interface SuppressionList {
  /** Why `recipient` is suppressed, or `undefined` when it is not. */
  reasonFor(recipient: string): Promise<string | undefined>;
  /** Suppresses `recipient` from now on (a later `add` replaces the reason). */
  add(recipient: string, reason: string): Promise<void>;
  /** Lifts the suppression; resolves `true` when `recipient` was suppressed. */
  remove(recipient: string): Promise<boolean>;
}

/**
 * A recipient as the lists compare it: its digits, country code first, whichever way it was written
 * (`+998 90 123-45-67`, `00998901234567` and a status's `recipient_id` `998901234567` are one recipient).
 *
 * @example
 * suppressionKey('+998 90 123-45-67'); // '998901234567'
 */
export function suppressionKey(recipient: string): string {
  let digits: string;
  try {
    digits = normalizeRecipient(recipient);
  } catch {
    // A national number, or not a string: compared as its digits (it matches only itself).
    digits = String(recipient);
  }
  return digits.replace(/\D/g, '');
}

/**
 * A recipient as every list takes it: its key, or a `ConfigurationError` naming `where`. Text beside the digits and
 * the marks people write numbers with is refused, not dropped: a business-scoped user id (`US.13491208655302741918`)
 * would otherwise become its digits, a number that is nobody's, and the customer would stay on the campaign.
 */
export function checkRecipient(recipient: unknown, where: string): string {
  const text = typeof recipient === 'string' || typeof recipient === 'number' ? String(recipient) : '';
  if (/[^\d\s+().\-/]/.test(text)) {
    throw new ConfigurationError(
      `${where}: the recipient must be the customer's phone number (digits, country code first), not text such as a business-scoped user id (from_user_id): a customer known only by a user id has no phone number yet, so key the opt-out by customerOf(event).phone and skip it when there is none.`,
    );
  }
  const key = text === '' ? '' : suppressionKey(text);
  if (key === '' || key.length > 32) {
    throw new ConfigurationError(
      `${where}: the recipient must be a phone number (digits, country code first).`,
    );
  }
  return key;
}

/** A reason as every list takes it: 1 to 200 characters without control characters. */
export function checkReason(reason: unknown, where: string): string {
  if (typeof reason !== 'string' || reason.trim() === '' || reason.length > 200 || /\p{Cc}/u.test(reason)) {
    throw new ConfigurationError(
      `${where}: the reason must be 1 to 200 characters without control characters.`,
    );
  }
  return reason;
}

/**
 * The in-process suppression list: one process checks and adds. Nothing expires: an opt-out stays until removed.
 *
 * @example
 * import { MemorySuppressionList } from 'wa-gateway-sdk';
 * const optOuts = new MemorySuppressionList();
 * await optOuts.add('998901234567', 'wrote STOP');
 * await optOuts.reasonFor('+998 90 123 45 67'); // 'wrote STOP'
 */
export class MemorySuppressionList implements SuppressionList {
  readonly #reasons = new Map<string, string>();

  /** @internal Read by `CampaignQueue`, which refuses a list of one process, whichever copy of the SDK made it. */
  get [ONE_PROCESS_SUPPRESSIONS](): true {
    return true;
  }

  /** How many recipients are suppressed. */
  get size(): number {
    return this.#reasons.size;
  }

  async reasonFor(recipient: string): Promise<string | undefined> {
    return this.#reasons.get(suppressionKey(String(recipient)));
  }

  async add(recipient: string, reason: string): Promise<void> {
    const where = 'MemorySuppressionList.add';
    this.#reasons.set(checkRecipient(recipient, where), checkReason(reason, where));
  }

  async remove(recipient: string): Promise<boolean> {
    return this.#reasons.delete(checkRecipient(recipient, 'MemorySuppressionList.remove'));
  }
}
