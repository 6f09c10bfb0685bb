/**
 * The one string-with-a-length-limit of both specs' outbound checks (gateway messages, platform message items):
 * counted in Unicode code points by `charCount`, the unit every checker of the SDK uses (see `core/text.ts` for
 * why), with one wording for every message. Classic zod: the two Node-only resources that use it import it.
 */
import { z } from 'zod';
import { charCount } from '../core/text.js';

/**
 * A string of `min` to `max` characters (code points), with messages that name `what`, the count and the limit.
 * Its issues are zod's `too_small` / `too_big`, whose rule ids `toIssue` derives from the path:
 * `<field>.required` (empty), `<field>.min_length`, `<field>.max_length`.
 *
 * @example
 * const title = limitedText('reply.title', { min: 1, max: 20 });
 * title.safeParse('😀'.repeat(20)).success; // true: 20 characters
 */
export function limitedText(what: string, { min = 0, max }: { min?: number; max?: number } = {}) {
  return z.string({ error: `${what} must be a string` }).superRefine((value, ctx) => {
    const n = charCount(value);
    if (n < min) {
      ctx.addIssue({
        code: 'too_small',
        origin: 'string',
        minimum: min,
        inclusive: true,
        input: value,
        message: min === 1 ? `${what} is empty` : `${what} has ${n} characters; the minimum is ${min}`,
      });
    }
    if (max !== undefined && n > max) {
      ctx.addIssue({
        code: 'too_big',
        origin: 'string',
        maximum: max,
        inclusive: true,
        input: value,
        message: `${what} has ${n} characters; the maximum is ${max}`,
      });
    }
  });
}
