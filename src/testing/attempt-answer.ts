/** What `attemptAnswer` reads of a `DeliveryAttempt` (written here: deliver.ts imports this file). */
interface AttemptAnswered {
  status?: number | undefined;
  error?: string | undefined;
  location?: string | undefined;
}

/**
 * What a delivery attempt got back, as the terminal and the inbox say it: `HTTP 200`, a redirect with where it
 * pointed (it is not followed: the event is lost), or the connection error or timeout.
 *
 * @example
 * attemptAnswer({ status: 307, location: 'https://example.com/hook' });
 * // 'HTTP 307, a redirect to https://example.com/hook (not followed)'
 */
export function attemptAnswer(attempt: AttemptAnswered): string {
  const { status, location } = attempt;
  if (status === undefined) return attempt.error ?? 'no answer';
  if (!isRedirect(status)) return `HTTP ${status}`;
  return `${status === 0 ? 'a redirect (3xx)' : `HTTP ${status}, a redirect`}${location ? ` to ${location}` : ''} (not followed)`;
}

/** A 3xx, or 0: the opaque redirect a fetch that hides the status gives for `redirect: 'manual'`. */
export function isRedirect(status: number): boolean {
  return status === 0 || (status >= 300 && status < 400);
}
