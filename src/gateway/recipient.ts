/**
 * Turns a formatted phone number into the form the gateway wants: digits only, country code first.
 * Opt-in: the SDK never rewrites `to` on its own, because guessing a country code would send to a stranger.
 *
 * @example
 * normalizeRecipient('+998 (90) 123-45-67'); // '998901234567'
 * normalizeRecipient('00998901234567');      // '998901234567'
 */
export function normalizeRecipient(input: string | number): string {
  // Numbers come from spreadsheets and database columns; a number has no '+' to strip.
  let digits = String(input)
    .trim()
    .replace(/[\s().\-/]/g, '');
  if (digits.startsWith('+')) digits = digits.slice(1);
  else if (digits.startsWith('00')) digits = digits.slice(2);
  return digits;
}
