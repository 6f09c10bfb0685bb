import { passed } from '../core/checker-runtime.js';
import { hot } from '../core/compiled.js';
import { type MessageIssue, MessageValidationError } from '../core/errors.js';
import { type IssueLike, safeCheck, toIssue } from '../core/zod.js';
import { checkOutboundMessage } from './checkers.generated.js';
import { outboundMessageSchema, type ValidatedMessage } from './message-schema.js';
import { splitUnknownKeys } from './unknown-keys.js';

/** zod's issues as the SDK's `MessageIssue`s, every one of them, in order; one per unknown key. */
export function toMessageIssues(issues: readonly IssueLike[]): MessageIssue[] {
  return issues.flatMap((i): MessageIssue[] => {
    if (i.code !== 'unrecognized_keys') return [toIssue(i)];
    const path = toIssue(i).path;
    return splitUnknownKeys(i as IssueLike & { keys: readonly string[] }).map(({ key, message }) => ({
      path: [...path, key],
      message,
      code: 'unknown_field',
      rule: 'unknown_field',
    }));
  });
}

/** What `validateMessage` returns: the message as it goes on the wire, or every issue. */
export type MessageValidationResult =
  | { valid: true; message: ValidatedMessage; issues: [] }
  | { valid: false; issues: MessageIssue[] };

/**
 * Checks an outbound message against every rule of the spec; returns all issues at once. Never throws.
 *
 * @example
 * const { valid, issues } = validateMessage({ to: '+998 90', type: 'text', text: { body: '' } });
 * // valid === false; issues[0].path === ['to']
 */
export function validateMessage(message: unknown): MessageValidationResult {
  // The checker generated from the schema gives a valid message its output with no zod at all; a message it
  // refuses (or that throws while read) is the schema's to explain, with the issues users get from it.
  try {
    const checked = passed(checkOutboundMessage, message);
    if (checked !== undefined) return { valid: true, message: checked, issues: [] };
  } catch {
    // A getter or proxy threw: the schema's parse below says so, as it always did.
  }
  const result = safeCheck(hot(outboundMessageSchema), message, CHECK);
  return result.ok
    ? { valid: true, message: result.data, issues: [] }
    : { valid: false, issues: result.issues };
}

const CHECK = { what: 'message', mapIssues: toMessageIssues } as const;

/** Like `validateMessage`, but throws `MessageValidationError` listing every issue. */
export function assertValidMessage(message: unknown): ValidatedMessage {
  const result = validateMessage(message);
  if (!result.valid) throw new MessageValidationError(result.issues);
  return result.message;
}
