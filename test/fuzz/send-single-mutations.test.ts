/**
 * Every single mutation of a rich valid message of each type (`everySingleMutation`: each string emptied, just over
 * each limit, 5,000 characters, an enum word; each value of another type; each array one item longer and empty;
 * each key deleted, `null`, a present `undefined`; each object given an unknown key or a key allowed elsewhere):
 * the generated send checker gives the schema's verdict, and on success its output. Deterministic and exhaustive,
 * unlike the property runs (send-checkers.test.ts), so a rule the generated file drops shows on the one mutation
 * that breaks only it.
 */
import { describe, expect, it } from 'vitest';
import type { RawIssue } from '../../src/core/checker-runtime.js';
import { checkOutboundMessage } from '../../src/gateway/checkers.generated.js';
import { outboundMessageSchema } from '../../src/gateway/message-schema.js';
import { validateMessage } from '../../src/gateway/validate-message.js';
import { MESSAGE_BASES, twoButtonsBase } from './message-bases.js';
import { everySingleMutation, type SingleMutationOptions } from './tree-mutations.js';

const EMOJI = '😀'; // one code point, two UTF-16 code units: limits count code points
/** The message schemas' character limits (and 0, 1, 5,000): each one and one over, in code points. */
const LENGTHS = [0, 1, 20, 21, 24, 25, 200, 201, 256, 257, 4096, 4097, 5000];

const MESSAGE_MUTATIONS: SingleMutationOptions = {
  strings: [
    ...LENGTHS.map((n) => EMOJI.repeat(n)),
    ...[21, 25, 201, 257].map((n) => 'x'.repeat(n)),
    // Recipients: the longest E.164 number, one digit more, formatted, a leading 0.
    '9'.repeat(15),
    '9'.repeat(16),
    '+998901234567',
    '0998901234567',
    'http://cdn.example.com/x',
    'ftp://cdn.example.com/x',
    // Every enum and literal word of the schemas, and the button indexes as text.
    ...['text', 'image', 'audio', 'document', 'template', 'interactive', 'video', 'location'],
    ...['header', 'body', 'button', 'footer', 'url', 'quick_reply', 'reply', 'list', 'currency', 'date_time'],
    ...['0', '1', '2', '3'],
  ],
  values: [0, 1, 2, 3, -1, 1.5, Number.NaN, true, false, {}, [], ['x']],
  added: [
    ['extra', 'x'],
    ['index', '0'],
    ['sub_type', 'url'],
    ['text', 'x'],
    ['currency', {}],
  ],
};

/** The generated checker's verdict and output, or the difference from the schema's, as a line to report. */
function disagreement(what: string, message: unknown): string | undefined {
  const expected = outboundMessageSchema.safeParse(message);
  const issues: RawIssue[] = [];
  const value = checkOutboundMessage(message, issues);
  if (expected.success !== (issues.length === 0))
    return `${what}: generated says ${issues.length === 0 ? 'valid' : 'invalid'}, the schema ${expected.success ? 'valid' : 'invalid'}`;
  if (expected.success) {
    try {
      expect(value).toStrictEqual(expected.data);
      expect(JSON.stringify(value)).toBe(JSON.stringify(expected.data));
    } catch {
      return `${what}: the outputs differ`;
    }
  }
  return undefined;
}

describe('every single mutation of a valid message: the generated checker gives the schema its verdict', () => {
  it.each([...Object.entries(MESSAGE_BASES), ['interactive button (two)', twoButtonsBase] as const])(
    '%s',
    (_, base) => {
      expect(validateMessage(base)).toMatchObject({ valid: true });
      const mutations = everySingleMutation(base, MESSAGE_MUTATIONS);
      const differences = mutations.flatMap(({ what, tree }) => disagreement(what, tree) ?? []);
      expect(differences).toEqual([]);
      // Both verdicts occur (the mutations reach past the first check on each side).
      const refused = mutations.filter(({ tree }) => !outboundMessageSchema.safeParse(tree).success).length;
      expect(refused).toBeGreaterThan(mutations.length / 2);
      expect(refused).toBeLessThan(mutations.length);
    },
  );
});
