import { hot } from '../core/compiled.js';
import { MessageValidationError } from '../core/errors.js';
import { givenValue } from '../core/given-value.js';
import { safeCheck } from '../core/zod.js';
import { recipientSchema } from './message-schema.js';

/**
 * Turns a formatted phone number into the form the gateway wants: digits only, country code first.
 * Opt-in: the SDK never rewrites `to` on its own, because guessing a country code would send to a stranger.
 *
 * @example
 * normalizeRecipient('+998 (90) 123-45-67'); // '998901234567'
 * normalizeRecipient('00998901234567');      // '998901234567'
 * @throws MessageValidationError when `input` is neither a string nor a number, or is a national number (one
 *   leading `0`, e.g. `'0901234567'`): the SDK cannot know its country code and never guesses it (rule
 *   `to.country_code`; the message says what to write instead). Also when what is left once the formatting is
 *   stripped is not a number a send takes, by the send's own rule (`recipientSchema`): nothing (`''`, `'+'`, rule
 *   `to.required`), text besides the digits (`'abc'`, `'... ext 5'`, rule `to.digits_only`), more than 15 digits
 *   (rule `to.max_length`).
 */
export function normalizeRecipient(input: string | number): string {
  // Anything else is refused before it is read: converting an object would run its toString, a getter or a
  // Proxy trap, which may throw anything (or print '[object Object]' as a phone number).
  if (typeof input !== 'string' && typeof input !== 'number') {
    const missing = input === undefined;
    throw new MessageValidationError(
      [
        {
          path: [],
          message: missing
            ? `a recipient is required, got ${givenValue(input)}: the customer's number with its country code`
            : `a recipient must be a string or a number, not ${givenValue(input)}`,
          code: 'invalid_type',
          rule: missing ? 'to.required' : 'to.type',
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
  else if (digits.startsWith('0')) {
    // A national number: returned as is, it would be refused at the send, far from where it came from.
    throw new MessageValidationError(
      [
        {
          path: [],
          message:
            "is a national number (it starts with one 0): write it with its country code instead of the 0, e.g. '0901234567' in Uzbekistan is '998901234567'",
          code: 'custom',
          rule: 'to.country_code',
        },
      ],
      'recipient',
    );
  }
  // The send's rule, not a second copy: what comes out is what `messages.send` takes as `to`.
  const checked = safeCheck(hot(recipientSchema), digits, { what: 'recipient' });
  if (!checked.ok) throw new MessageValidationError(checked.issues, 'recipient');
  return digits;
}
