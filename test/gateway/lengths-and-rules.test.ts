/**
 * One length unit (Unicode code points) in every checker and message, the recipient rule as the spec states it,
 * the SDK's rule id on every message issue, and the `language: 'en_US'` hint.
 */
import { describe, expect, it } from 'vitest';
import { charCount } from '../../src/core/text.js';
import { safeCheck as check } from '../../src/core/zod.js';
import { normalizeRecipient } from '../../src/gateway/recipient.js';
import { validateMessage } from '../../src/gateway/validate-message.js';
import { MessageValidationError, validateTemplate } from '../../src/index.js';
import { messageItemSchema } from '../../src/platform/messages.schema.js';

const to = '998901234567';
const EMOJI = '😀'; // one code point, two UTF-16 code units
const FLAG = '🇺🇿'; // two code points (regional indicators), one grapheme
const COMBINED = 'e\u0301'; // 'é' as e + combining acute: two code points

const buttons = (title: string) => ({
  to,
  type: 'interactive' as const,
  interactive: {
    type: 'button' as const,
    body: { text: 'Pick one' },
    action: { buttons: [{ type: 'reply' as const, reply: { id: 'a', title } }] },
  },
});
const issuesOf = (m: unknown) => {
  const r = validateMessage(m);
  return r.valid ? [] : r.issues;
};

describe('one unit: Unicode code points', () => {
  it('charCount counts code points: emoji, surrogate pairs, combining marks, flags', () => {
    expect(charCount(EMOJI.repeat(20))).toBe(20);
    expect(charCount(FLAG)).toBe(2);
    expect(charCount(COMBINED)).toBe(2);
    expect(charCount('\ud83d')).toBe(1); // a lone surrogate is one
  });

  it.each([
    ['20 emoji', EMOJI.repeat(20), true],
    ['21 emoji', EMOJI.repeat(21), false],
    ['10 flags (20 code points)', FLAG.repeat(10), true],
    ['11 flags (22 code points)', FLAG.repeat(11), false],
    ['20 combined é (40 code points)', COMBINED.repeat(10), true],
    ['11 combined é (22 code points)', COMBINED.repeat(11), false],
  ])('gateway reply.title of %s → valid %s', (_, title, valid) => {
    const issues = issuesOf(buttons(title));
    expect(issues.length === 0).toBe(valid);
    if (!valid) {
      expect(issues[0]!.message).toBe(`reply.title has ${charCount(title)} characters; the maximum is 20`);
      expect(issues[0]!.rule).toBe('interactive.action.buttons.reply.title.max_length');
    }
  });

  it('text.body: 4096 emoji pass (8192 UTF-16 units), 4097 are refused', () => {
    const ok = { to, type: 'text', text: { body: EMOJI.repeat(4096) } };
    const over = { to, type: 'text', text: { body: EMOJI.repeat(4097) } };
    expect(validateMessage(ok)).toEqual({ valid: true, message: ok, issues: [] });
    expect(issuesOf(over)[0]).toMatchObject({
      path: ['text', 'body'],
      rule: 'text.body.max_length',
      message: expect.stringContaining('text.body has 4097 characters; the maximum is 4096'),
    });
  });

  it('the platform counts the same way, with the same message', () => {
    const item = (title: string) => ({
      type: 'interactive',
      content: 'Pick',
      data: { type: 'button', action: { items: [{ type: 'reply', content: { id: 'a', title } }] } },
    });
    expect(check(messageItemSchema, item(EMOJI.repeat(20))).ok).toBe(true);
    const r = check(messageItemSchema, item(EMOJI.repeat(21)));
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.issues[0]!.message).toMatch(/button title has 21 characters; the maximum is 20/);
  });

  it('template rules count code points too', () => {
    const footer = (text: string) =>
      validateTemplate({
        name: 'order_update',
        language: 'en_US',
        category: 'UTILITY',
        body: { text: 'Hi' },
        footer: { text },
      }).issues.map((i) => i.rule);
    expect(footer(EMOJI.repeat(60))).toEqual([]);
    expect(footer(EMOJI.repeat(61))).toEqual(['footer.text.max_length']);
  });
});

describe('recipient: the spec’s rules and E.164’s, nothing more', () => {
  it.each(['2904567', '1', '998901234567', '123456789012345'])('%s passes', (n) => {
    const m = { to: n, type: 'text', text: { body: 'x' } };
    expect(validateMessage(m)).toEqual({ valid: true, message: m, issues: [] });
  });

  it.each([
    ['1234567890123456', 'to.max_length'],
    ['0901234567', 'to.country_code'],
    ['+998901234567', 'to.digits_only'],
    ['', 'to.required'],
  ])('%s is refused with rule %s', (n, rule) => {
    const issues = issuesOf({ to: n, type: 'text', text: { body: 'x' } });
    expect(issues.map((i) => i.rule)).toEqual([rule]);
  });

  it('normalizeRecipient refuses a national number and says what to write instead', () => {
    const e = (() => {
      try {
        normalizeRecipient('0901234567');
      } catch (x) {
        return x;
      }
    })();
    expect(e).toBeInstanceOf(MessageValidationError);
    expect((e as MessageValidationError).issues[0]).toMatchObject({ rule: 'to.country_code' });
    expect((e as Error).message).toMatch(/national number .* country code instead of the 0/);
    expect(normalizeRecipient('+998 90 123-45-67')).toBe('998901234567');
    expect(normalizeRecipient('00998901234567')).toBe('998901234567');
  });
});

describe('every message issue carries the SDK rule id', () => {
  it('zod-generic problems get a rule id from their field and kind', () => {
    const issues = issuesOf({
      to,
      type: 'interactive',
      interactive: {
        type: 'button',
        body: { text: '' },
        action: {
          buttons: [
            { type: 'reply', reply: { id: 'a', title: 'A' } },
            { type: 'reply', reply: { id: 'a', title: 7 } },
          ],
        },
      },
      extra: 1,
    });
    const rules = issues.map((i) => i.rule);
    expect(rules).toEqual(
      expect.arrayContaining([
        'interactive.body.text.required',
        'interactive.action.buttons.reply.title.type',
        'interactive.action.buttons.reply.id.unique',
        'unknown_field',
      ]),
    );
    for (const i of issues) expect(i.rule).toMatch(/^[a-z_.]+$/);
  });

  it("template language: 'en_US' gets a did-you-mean", () => {
    const issues = issuesOf({ to, type: 'template', template: { name: 'hello', language: 'en_US' } });
    expect(issues).toEqual([
      {
        path: ['template', 'language'],
        code: 'invalid_type',
        rule: 'template.language.type',
        message: 'template.language is an object: did you mean language: { code: "en_US" }?',
      },
    ]);
  });

  it('a missing field is `<field>.required`, a wrong enum `<field>.enum`', () => {
    expect(issuesOf({ to, type: 'text' }).map((i) => i.rule)).toEqual(['text.required']);
    expect(issuesOf({ to, type: 'sticker' }).map((i) => i.rule)).toEqual(['type.enum']);
  });
});
