/**
 * The rule id `toIssue` derives for a type issue: `<field>.required` for a field left out (zod's "received undefined",
 * or the SDK's "<what> is required"), `<field>.type` for a value of another type, whatever else its message says.
 */
import { describe, expect, it } from 'vitest';
import { toIssue } from '../../src/core/issues.js';

const typeIssue = (message: string) => toIssue({ path: ['text', 'body'], code: 'invalid_type', message });

describe('a type issue is "required" only when it says the field was left out', () => {
  it.each([
    'Invalid input: expected string, received undefined',
    'text.body is required',
    'row id is required',
    "is required: the customer's number with its country code",
    'content (the caption) is required',
  ])('%s → required', (message) => {
    expect(typeIssue(message).rule).toBe('text.body.required');
  });

  it.each([
    'Invalid input: expected string, received number',
    'text.body must be a string',
    'must be a string; it is required',
    'must be a string: a value is required',
  ])('%s → type', (message) => {
    expect(typeIssue(message).rule).toBe('text.body.type');
  });
});
