import type { z } from 'zod';
import { type MessageIssue, MessageValidationError } from '../core/errors.js';
import { outboundMessageSchema, type ValidatedMessage } from './message-schema.js';

/** zod's issues as the SDK's `MessageIssue`s, every one of them, in order. */
export function toMessageIssues(issues: readonly z.core.$ZodIssue[]): MessageIssue[] {
  return issues.map((i) => ({
    path: i.path.map((p) => (typeof p === 'symbol' ? String(p) : p)),
    message: i.message,
    code: i.code,
  }));
}

/**
 * Checks an outbound message against every rule of the spec; returns all issues at once. Never throws.
 *
 * @example
 * const { valid, issues } = validateMessage({ to: '+998 90', type: 'text', text: { body: '' } });
 * // valid === false; issues[0].path === ['to']
 */
export function validateMessage(
  message: unknown,
): { valid: true; message: ValidatedMessage; issues: [] } | { valid: false; issues: MessageIssue[] } {
  let result: ReturnType<typeof outboundMessageSchema.safeParse>;
  try {
    result = outboundMessageSchema.safeParse(message);
  } catch (error) {
    // A getter that throws or a Proxy: report it, never crash the caller.
    const why = error instanceof Error ? error.message : String(error);
    return {
      valid: false,
      issues: [{ path: [], message: `the message could not be read: ${why}`, code: 'unreadable' }],
    };
  }
  if (result.success) return { valid: true, message: result.data, issues: [] };
  return { valid: false, issues: toMessageIssues(result.error.issues) };
}

/** Like `validateMessage`, but throws `MessageValidationError` listing every issue. */
export function assertValidMessage(message: unknown): ValidatedMessage {
  const result = validateMessage(message);
  if (!result.valid) throw new MessageValidationError(result.issues);
  return result.message;
}
