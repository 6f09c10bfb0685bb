/**
 * The rule id `toIssue` derives for a type issue: `<field>.required` for a field left out (zod's "received undefined",
 * or the SDK's "<what> is required"), `<field>.type` for a value of another type, whatever else its message says.
 */
import { describe, expect, it } from 'vitest';
import { toIssue } from '../../src/core/issues.js';

const typeIssue = (message: string) => toIssue({ path: ['text', 'body'], code: 'invalid_type', message });

describe('a type issue is "required" only when it says the field was left out', () => {
  it.each([
    ['Invalid input: expected string, received undefined', 'required'],
    ['text.body is required', 'required'],
    ['row id is required', 'required'],
    ["is required: the customer's number with its country code", 'required'],
    ['content (the caption) is required', 'required'],
    ['Invalid input: expected string, received number', 'type'],
    ['text.body must be a string', 'type'],
    ['must be a string; it is required', 'type'],
    ['must be a string: a value is required', 'type'],
  ])('%s → %s', (message, kind) => {
    expect(typeIssue(message).rule).toBe(`text.body.${kind}`);
  });
});
