/** Anything between double braces that is not `{{1}}`, `{{2}}`, ... is its own issue with its own rule id. */
import { describe, expect, it } from 'vitest';
import { validateTemplate } from '../../src/index.js';
import { scanVariables } from '../../src/templates/rules/variables.js';

const utility = (body: { text: string; examples?: string[] }, header?: object) =>
  validateTemplate({
    name: 'order_update',
    language: 'en_US',
    category: 'UTILITY',
    ...(header ? { header } : {}),
    body,
  }).issues;

describe('malformed template variables', () => {
  it.each([
    [
      'Hi {{name}}, order {{1}} shipped.',
      ['x'],
      'body.variables.named',
      /has \{\{name\}\}: variables are numbered, not named; write \{\{1\}\}/,
    ],
    [
      'Your order {{ 1 }} shipped.',
      ['x'],
      'body.variables.spaces',
      /has \{\{ 1 \}\}: write \{\{1\}\}, without spaces/,
    ],
    [
      'Your order {{0}} shipped.',
      ['x'],
      'body.variables.zero',
      /has \{\{0\}\}: variables start at \{\{1\}\}/,
    ],
    [
      'Your order {{01}} shipped.',
      ['x'],
      'body.variables.zero',
      /has \{\{01\}\}: write \{\{1\}\}, without a leading zero/,
    ],
    [
      'Your order {{}} shipped.',
      [],
      'body.variables.invalid',
      /has \{\{\}\}: double braces hold only a variable number/,
    ],
  ])('%s → one issue, rule %s, code null, saying what to write', (text, examples, rule, message) => {
    const issues = utility(examples.length > 0 ? { text, examples } : { text });
    expect(issues).toHaveLength(1);
    expect(issues[0]).toMatchObject({ rule, code: null, path: ['body', 'text'], field: 'body.text' });
    expect(issues[0]!.message).toMatch(message);
  });

  it('each malformed token is its own issue; the header has the same rules', () => {
    const issues = utility(
      { text: 'Hi {{name}} and {{ 2 }} and {{name}}.' },
      { format: 'TEXT', text: 'For {{who}}' },
    );
    expect(issues.map((i) => i.rule)).toEqual([
      'header.variables.named',
      'body.variables.named',
      'body.variables.spaces',
    ]);
  });

  it('well-formed variables are untouched', () => {
    expect(utility({ text: 'Order {{1}} ships {{2}}.', examples: ['A1', 'Monday'] })).toEqual([]);
    expect(scanVariables('a {{1}} b {{12}}')).toEqual({ distinct: [1, 12], occurrences: 2, malformed: [] });
  });
});
