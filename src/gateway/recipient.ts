import { MessageValidationError } from '../core/errors.js';

/**
 * Turns a formatted phone number into the form the gateway wants: digits only, country code first.
 * Opt-in: the SDK never rewrites `to` on its own, because guessing a country code would send to a stranger.
 *
 * @example
 * normalizeRecipient('+998 (90) 123-45-67'); // '998901234567'
 * normalizeRecipient('00998901234567');      // '998901234567'
 * @throws MessageValidationError when `input` is neither a string nor a number.
 */
export function normalizeRecipient(input: string | number): string {
  // Anything else is refused before it is read: converting an object would run its toString, a getter or a
  // Proxy trap, which may throw anything (or print '[object Object]' as a phone number).
  if (typeof input !== 'string' && typeof input !== 'number') {
    throw new MessageValidationError(
      [
        {
          path: [],
          message: `a recipient must be a string or a number, not ${describe(input)}`,
          code: 'invalid_type',
        },
      ],
      'recipient',
    );
  }
  // Numbers come from spreadsheets and database columns; a number has no '+' to strip.
  let digits = String(input)
    .trim()
    .replace(/[\s().\-/]/g, '');
  if (digits.startsWith('+')) digits = digits.slice(1);
  else if (digits.startsWith('00')) digits = digits.slice(2);
  return digits;
}

/** Names the type from `typeof` alone: even `Array.isArray` throws on a revoked Proxy. */
function describe(value: unknown): string {
  if (value === null) return 'null';
  const type = typeof value;
  return type === 'object' ? 'an object' : type === 'undefined' ? 'undefined' : `a ${type}`;
}
