/**
 * The one string-with-a-length-limit of both specs' outbound checks (gateway messages, platform message items):
 * counted in Unicode code points by `charCount`, the unit every checker of the SDK uses (see `core/text.ts` for
 * why), with one wording for every message. Classic zod: the two Node-only resources that use it import it.
 */
import { z } from 'zod';
import { charCount } from '../core/text.js';
import { atLeastChars, atMostChars } from './message-rules.js';

/**
 * A string of `min` to `max` characters (code points), with messages that name `what`, the count and the limit.
 * Its issues stand for zod's `too_small` / `too_big` (`params.code`, which `toIssue` reads), whose rule ids `toIssue`
 * derives from the path: `<field>.required` (empty), `<field>.min_length`, `<field>.max_length`.
 *
 * Predicates (`.refine`) from `message-rules.ts`, not closures: the generated send checker calls the same ones.
 *
 * @example
 * const title = limitedText('reply.title', { min: 1, max: 20 });
 * title.safeParse('😀'.repeat(20)).success; // true: 20 characters
 */
export function limitedText(what: string, { min = 0, max }: { min?: number; max?: number } = {}) {
  const count = (issue: { input?: unknown }) => charCount(String(issue.input ?? ''));
  const text = stringOr(`${what} must be a string`, `${what} is required`);
  const atLeast =
    min > 0
      ? text.refine(atLeastChars(min), {
          params: { code: 'too_small', minimum: min },
          error: (issue) =>
            min === 1 ? `${what} is empty` : `${what} has ${count(issue)} characters; the minimum is ${min}`,
        })
      : text;
  if (max === undefined) return atLeast;
  return atLeast.refine(atMostChars(max), {
    params: { code: 'too_big', maximum: max },
    error: (issue) => `${what} has ${count(issue)} characters; the maximum is ${max}`,
  });
}

/**
 * A string whose type issue tells a field left out (`missing`, which must say "is required": `toIssue` derives the
 * rule `<field>.required` from it) from a value of another type (`wrongType`, rule `<field>.type`).
 *
 * @example
 * const link = stringOr('must be a string', 'is required: the file\'s public URL');
 * link.safeParse(undefined).error?.issues[0]?.message; // "is required: the file's public URL"
 */
export function stringOr(wrongType: string, missing: string) {
  return z.string({ error: (issue) => (issue.input === undefined ? missing : wrongType) });
}
