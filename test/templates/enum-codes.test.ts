import { describe, expect, it } from 'vitest';
import { validateTemplate } from '../../src/templates/index.js';

// An enum value outside a coded rule's allowed set keeps the spec's code, whether or not the value is a valid
// member of the field's own enum: one mistake, one issue, carrying WA_TPL_0NN, never a null-code enum issue.

type Json = Record<string, unknown>;

const marketing = (): Json => ({
  name: 'spring_sale',
  language: 'en',
  category: 'MARKETING',
  body: { text: 'Hi {{1}}, our sale starts today.', examples: ['Ann'] },
});
let uploads = 0;
const card = (format = 'IMAGE', buttonType = 'QUICK_REPLY'): Json => ({
  header: { format, examples: [`4::aGFuZGxl${++uploads}`] },
  body: { text: 'Fresh {{1}} today.', examples: ['bread'] },
  buttons: [{ type: buttonType, text: 'Tell me more', url: 'https://shop.example.com/a' }],
});
const carousel = (first: Json = card()): Json => ({ ...marketing(), carousel: [first, card()] });
const lto = (edit: (t: Json) => void = () => {}): Json => {
  const t: Json = {
    ...marketing(),
    limitedTimeOffer: { text: 'Ends soon', hasExpiration: true },
    buttons: [{ type: 'COPY_CODE', example: ['SAVE20'] }],
  };
  edit(t);
  return t;
};

interface Case {
  name: string;
  template: Json;
  code: string;
  rule: string;
  path: (string | number)[];
  /** "did you mean" expected in the message. */
  hint?: string;
}

const CASES: Case[] = [
  {
    name: 'card header format not in the enum',
    template: carousel(card('GIF')),
    code: 'WA_TPL_042',
    rule: 'carousel.header.format.media',
    path: ['carousel', 0, 'header', 'format'],
  },
  {
    name: 'card header format in the enum but not IMAGE/VIDEO',
    template: carousel(card('DOCUMENT')),
    code: 'WA_TPL_042',
    rule: 'carousel.header.format.media',
    path: ['carousel', 0, 'header', 'format'],
  },
  {
    name: 'card header format in the wrong case',
    template: carousel(card('image')),
    code: 'WA_TPL_042',
    rule: 'carousel.header.format.media',
    path: ['carousel', 0, 'header', 'format'],
    hint: 'IMAGE',
  },
  {
    name: 'card button type not in the enum',
    template: carousel(card('IMAGE', 'CALL')),
    code: 'WA_TPL_046',
    rule: 'carousel.buttons.type.allowed',
    path: ['carousel', 0, 'buttons', 0, 'type'],
  },
  {
    name: 'card button type in the enum but not allowed on cards',
    template: carousel(card('IMAGE', 'COPY_CODE')),
    code: 'WA_TPL_046',
    rule: 'carousel.buttons.type.allowed',
    path: ['carousel', 0, 'buttons', 0, 'type'],
  },
  {
    name: 'limited-time offer header format not in the enum',
    template: lto((t) => {
      t['header'] = { format: 'GIF', examples: ['4::aGFuZGxl'] };
    }),
    code: 'WA_TPL_050',
    rule: 'lto.header.format',
    path: ['header', 'format'],
  },
  {
    name: 'limited-time offer header format in the wrong case',
    template: lto((t) => {
      t['header'] = { format: 'video', examples: ['4::aGFuZGxl'] };
    }),
    code: 'WA_TPL_050',
    rule: 'lto.header.format',
    path: ['header', 'format'],
    hint: 'VIDEO',
  },
  {
    name: 'limited-time offer button type not in the enum',
    template: lto((t) => {
      t['buttons'] = [{ type: 'COUPON', example: ['SAVE20'] }];
    }),
    code: 'WA_TPL_053',
    rule: 'lto.buttons.type',
    path: ['buttons', 0, 'type'],
  },
  {
    name: 'limited-time offer button type in the wrong case',
    template: lto((t) => {
      t['buttons'] = [{ type: 'copy_code', example: ['SAVE20'] }];
    }),
    code: 'WA_TPL_053',
    rule: 'lto.buttons.type',
    path: ['buttons', 0, 'type'],
    hint: 'COPY_CODE',
  },
  {
    name: 'carousel category not in the enum',
    template: { ...carousel(), category: 'marketing' },
    code: 'WA_TPL_035',
    rule: 'carousel.category',
    path: ['category'],
  },
  {
    name: 'limited-time offer category not in the enum',
    template: lto((t) => {
      t['category'] = 'PROMO';
    }),
    code: 'WA_TPL_048',
    rule: 'lto.category',
    path: ['category'],
  },
];

describe('enum violations keep the spec code', () => {
  it.each(CASES.map((c) => [c.name, c] as const))('%s', (_, c) => {
    const { valid, issues } = validateTemplate(c.template);
    expect(valid).toBe(false);
    const here = issues.filter((i) => JSON.stringify(i.path) === JSON.stringify(c.path));
    expect(here.map((i) => [i.rule, i.code])).toEqual([[c.rule, c.code]]);
    if (c.hint) expect(here[0]!.message).toContain(`did you mean ${c.hint}?`);
  });

  it('the null-code enum rule still reports where no coded rule applies', () => {
    const { issues } = validateTemplate({ ...marketing(), header: { format: 'GIF' } });
    expect(issues.map((i) => [i.rule, i.code, i.path])).toEqual([
      ['header.format.enum', null, ['header', 'format']],
    ]);
  });
});
