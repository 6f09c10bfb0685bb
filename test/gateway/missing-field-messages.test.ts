/**
 * What a person reads when a field is left out or a button index is wrong: the field is named "required" (rule
 * `<field>.required`, as the template rules name it), apart from a value of the wrong type (`<field>.type`).
 */
import { describe, expect, it } from 'vitest';
import { type MessageIssue, validateMessage, validateMessageItems } from '../../src/index.js';

const issuesOf = (message: unknown): Pick<MessageIssue, 'rule' | 'message'>[] => {
  const r = validateMessage(message);
  return r.valid ? [] : r.issues.map(({ rule, message }) => ({ rule, message }));
};
const TO = '998901234567';

describe('a field left out is "required"; a value of another type is not', () => {
  it.each([
    ['to', { type: 'text', text: { body: 'hi' } }, 'to.required', /^is required: .*country code/],
    ['text.body', { to: TO, type: 'text', text: {} }, 'text.body.required', /^text\.body is required$/],
    [
      'image.link',
      { to: TO, type: 'image', image: {} },
      'image.link.required',
      /^is required: a public http/,
    ],
    [
      'interactive',
      { to: TO, type: 'interactive' },
      'interactive.required',
      /^interactive is required: .*'button' or 'list'/,
    ],
  ])('%s left out', (_field, message, rule, text) => {
    const [issue, ...rest] = issuesOf(message);
    expect(rest).toEqual([]);
    expect(issue?.rule).toBe(rule);
    expect(issue?.message).toMatch(text);
  });

  it.each([
    ['to', { to: null, type: 'text', text: { body: 'hi' } }, 'to.type', /^must be a string of digits$/],
    [
      'text.body',
      { to: TO, type: 'text', text: { body: 1 } },
      'text.body.type',
      /^text\.body must be a string$/,
    ],
    [
      'interactive',
      { to: TO, type: 'interactive', interactive: [] },
      'interactive.type',
      /must be an object/,
    ],
  ])('%s of another type', (_field, message, rule, text) => {
    const [issue, ...rest] = issuesOf(message);
    expect(rest).toEqual([]);
    expect(issue?.rule).toBe(rule);
    expect(issue?.message).toMatch(text);
  });
});

it("a button index that is no button's position says which ones are", () => {
  const issues = issuesOf({
    to: TO,
    type: 'template',
    template: {
      name: 'order_update',
      language: { code: 'en' },
      components: [{ type: 'button', sub_type: 'quick_reply', index: '3', parameters: [] }],
    },
  });
  expect(issues).toEqual([
    {
      rule: 'template.components.index.enum',
      message:
        "must be the button's position: '0', '1', '2' (or the number); the gateway's send takes values for the first three buttons only",
    },
  ]);
});

it("the platform's message items say the same: a caption left out is required, one of another type is not", () => {
  const rules = (items: unknown) =>
    validateMessageItems(items).issues.map(({ rule, message }) => ({ rule, message }));
  expect(rules([{ type: 'image', url: 'https://example.com/a.png' }])).toEqual([
    { rule: 'content.required', message: 'content (the caption) is required' },
  ]);
  expect(rules([{ type: 'image', url: 'https://example.com/a.png', content: 1 }])).toEqual([
    { rule: 'content.type', message: 'content (the caption) must be a string' },
  ]);
});
