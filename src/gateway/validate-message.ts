import type { z } from 'zod';
import { type MessageIssue, MessageValidationError } from '../core/errors.js';
import { outboundMessageSchema, type ValidatedMessage } from './message-schema.js';
import { splitUnknownKeys } from './unknown-keys.js';

/** zod's issues as the SDK's `MessageIssue`s, every one of them, in order; one per unknown key. */
export function toMessageIssues(issues: readonly z.core.$ZodIssue[]): MessageIssue[] {
  return issues.flatMap((i): MessageIssue[] => {
    const path = i.path.map((p) => (typeof p === 'symbol' ? String(p) : p));
    if (i.code === 'unrecognized_keys') {
      return splitUnknownKeys(i).map(({ key, message }) => ({
        path: [...path, key],
        message,
        code: 'unknown_field',
      }));
    }
    return [{ path, message: i.message, code: i.code }];
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
  try {
    const result = outboundMessageSchema.safeParse(message);
    if (result.success) return { valid: true, message: result.data, issues: [] };
    // Inside the try: zod 4 builds issue messages when `error` is read, and that may run the input's getters.
    return { valid: false, issues: toMessageIssues(result.error.issues) };
  } catch {
    // A getter that throws or a Proxy: reported, never thrown. Its error is not read (its message could be
    // anything, even a throwing getter itself).
    return {
      valid: false,
      issues: [
        { path: [], message: 'the message could not be read (a getter or proxy threw)', code: 'unreadable' },
      ],
    };
  }
}

/** Like `validateMessage`, but throws `MessageValidationError` listing every issue. */
export function assertValidMessage(message: unknown): ValidatedMessage {
  const result = validateMessage(message);
  if (!result.valid) throw new MessageValidationError(result.issues);
  return result.message;
}
