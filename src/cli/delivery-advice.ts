/**
 * What to do about a webhook delivery that did not get through, as `trigger` and `sandbox` print it: one wording for
 * both commands, naming the flags of the command that delivered.
 */
import { isRedirect } from '../testing/attempt-answer.js';
import type { DeliveryAttempt } from '../testing/deliver.js';

/** What the advice names: the command's flags, and where the secret it sent came from. */
export interface DeliveryFlags {
  /** The flag that gave the webhook URL: `--url`, `--webhook-url`. */
  urlFlag: string;
  /** The flag naming a file that holds the secret: `--secret-file`, `--webhook-secret-file`. */
  secretFileFlag: string;
  /** Where the secret sent came from (`$WEBHOOK_SECRET`, the file flag); `undefined` when none was sent. */
  secretFrom: string | undefined;
}

/**
 * What to do about an attempt that ended its event undelivered, without a line break; `undefined` for one
 * delivered or still retrying. A `dropped` event failed every attempt. A `lost` one is advice by status: a redirect
 * is about the URL (the gateway follows none), a 401 about the secret (none was sent, or another one), a 404 or
 * 405 about the URL; any other 4xx about the receiver's choice of status.
 *
 * @example
 * deliveryAdvice({ outcome: 'lost', status: 404 }, { urlFlag: '--url', secretFileFlag: '--secret-file', secretFrom: undefined });
 * // 'The gateway does not retry a 4xx: this event would be lost. The receiver has no POST route at --url: ...'
 */
export function deliveryAdvice(
  { outcome, status, location }: Pick<DeliveryAttempt, 'outcome' | 'status' | 'location'>,
  { urlFlag, secretFileFlag, secretFrom }: DeliveryFlags,
): string | undefined {
  if (outcome === 'dropped')
    return 'All attempts failed: the gateway would drop this event (ProcessingStatus ERROR).';
  if (outcome !== 'lost') return undefined;
  if (status !== undefined && isRedirect(status)) {
    return (
      'The gateway follows no redirect: this event would be lost (a redirect would take the event, and on the same ' +
      `host the secret, to an address you did not give). Pass as ${urlFlag} the address that answers 200${
        location ? `: the receiver pointed to ${location}` : ''
      }.`
    );
  }
  const lost = 'The gateway does not retry a 4xx: this event would be lost.';
  if (status === 401) {
    return secretFrom === undefined
      ? `${lost} The receiver wants the webhook secret: set $WEBHOOK_SECRET (or pass ${secretFileFlag} <path>) to ` +
          "the secret the receiver's handler checks."
      : `${lost} The receiver refused the secret from ${secretFrom}: it must be the one the receiver's handler ` +
          "checks (its `secret`, often $WEBHOOK_SECRET in the receiver's environment). A receiver on the SDK's " +
          "handler logs whether the header was missing, malformed or another secret, and answers it as the body's " +
          '`error`.';
  }
  if (status === 404 || status === 405) {
    return `${lost} The receiver has no POST route at ${urlFlag}: check its path (HTTP ${status}).`;
  }
  return `${lost} Answer 5xx for failures you want retried.`;
}
