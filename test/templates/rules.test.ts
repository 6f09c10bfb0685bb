import { describe, expect, it } from 'vitest';
import type * as z from '../../src/core/zod.js';
import { type TemplateIssue, templateRules, validateTemplate } from '../../src/templates/index.js';
import { TemplateCreateRequestSchema } from '../../src/templates/schema.js';
import { loginCodeDefinition } from '../helpers/template-definitions.js';

type Json = Record<string, unknown>;
type Path = (string | number)[];

// Smallest valid templates of each shape; every case below breaks exactly one thing in one of them.
const utility = (): Json => ({
  name: 'order_update',
  language: 'en_US',
  category: 'UTILITY',
  body: { text: 'Your order {{1}} has shipped.', examples: ['#1234'] },
});
const marketing = (): Json => ({
  name: 'spring_sale',
  language: 'en',
  category: 'MARKETING',
  body: { text: 'Hi {{1}}, our sale starts today.', examples: ['Ann'] },
});
const auth = (): Json => structuredClone(loginCodeDefinition) as Json;
let uploads = 0;
/** A valid card; every card gets its own media handle, as the spec requires (one upload per card). */
const card = (format = 'IMAGE', buttons: Json[] = [{ type: 'QUICK_REPLY', text: 'Tell me more' }]): Json => ({
  header: { format, examples: [`4::aGFuZGxl${++uploads}`] },
  body: { text: 'Fresh {{1}} today.', examples: ['bread'] },
  buttons,
});
const carousel = (): Json => ({ ...marketing(), carousel: [card(), card()] });
const lto = (): Json => ({
  ...marketing(),
  limitedTimeOffer: { text: 'Ends soon', hasExpiration: true },
  buttons: [
    { type: 'COPY_CODE', example: ['SAVE20'] },
    { type: 'URL', text: 'Shop now', url: 'https://shop.example.com/sale' },
  ],
});

type Edit = (t: Json) => void;

function nodeAt(t: Json, path: Path): Record<string | number, unknown> {
  let node: unknown = t;
  for (const seg of path) node = (node as Record<string | number, unknown>)[seg];
  return node as Record<string | number, unknown>;
}
/** Sets the value at `path` (the parent must exist). */
const set =
  (path: Path, value: unknown): Edit =>
  (t) => {
    nodeAt(t, path.slice(0, -1))[path.at(-1)!] = value;
  };
/** Deletes the key at `path`. */
const del =
  (path: Path): Edit =>
  (t) => {
    delete nodeAt(t, path.slice(0, -1))[path.at(-1)!];
  };

/** A deep copy of `base` with `edits` applied in order. */
function make(base: () => Json, ...edits: Edit[]): Json {
  const t = structuredClone(base());
  for (const edit of edits) edit(t);
  return t;
}

const qr = (text = 'Yes please') => ({ type: 'QUICK_REPLY', text });
const urlButton = (url = 'https://example.com/a') => ({ type: 'URL', text: 'Open', url });
const phoneButton = (phoneNumber = '+15551234567') => ({
  type: 'PHONE_NUMBER',
  text: 'Call us',
  phoneNumber,
});

interface Case {
  /** The rule id expected (every issue must come from it unless `also` lists more). */
  rule: string;
  code: string | null;
  template: Json;
  /** Path of the first issue. */
  path: Path;
  /** Other rules legitimately reported with it (the case still names one distinct problem). */
  also?: string[];
}

const c = (rule: string, code: string | null, template: Json, path: Path, also?: string[]): Case => ({
  rule,
  code,
  template,
  path,
  ...(also ? { also } : {}),
});

// One case per code the spec names. The template breaks only that rule.
const codedCases: Case[] = [
  c(
    'buttons.url.required',
    'WA_TPL_001',
    make(marketing, set(['buttons'], [{ type: 'URL', text: 'Open' }])),
    ['buttons', 0, 'url'],
  ),
  c(
    'buttons.url.with_phone_number',
    'WA_TPL_002',
    make(marketing, set(['buttons'], [{ ...phoneButton(), url: 'https://example.com' }])),
    ['buttons', 0, 'url'],
  ),
  c(
    'buttons.phoneNumber.required',
    'WA_TPL_003',
    make(marketing, set(['buttons'], [{ type: 'PHONE_NUMBER', text: 'Call us' }])),
    ['buttons', 0, 'phoneNumber'],
  ),
  c(
    'buttons.phoneNumber.with_url',
    'WA_TPL_004',
    make(marketing, set(['buttons'], [{ ...urlButton(), phoneNumber: '+15551234567' }])),
    ['buttons', 0, 'phoneNumber'],
  ),
  c(
    'header.text.leading_variable',
    'WA_TPL_008',
    make(marketing, set(['header'], { format: 'TEXT', text: '{{1}} news', examples: ['Big'] })),
    ['header', 'text'],
  ),
  c(
    'header.text.trailing_variable',
    'WA_TPL_009',
    make(marketing, set(['header'], { format: 'TEXT', text: 'News for {{1}} ', examples: ['Ann'] })),
    ['header', 'text'],
  ),
  c(
    'header.text.media',
    'WA_TPL_010',
    make(marketing, set(['header'], { format: 'IMAGE', text: 'Hi', examples: ['4::h'] })),
    ['header', 'text'],
  ),
  c(
    'body.text.leading_variable',
    'WA_TPL_011',
    make(marketing, set(['body'], { text: '  {{1}} is ready.', examples: ['Tea'] })),
    ['body', 'text'],
  ),
  c(
    'body.text.trailing_variable',
    'WA_TPL_012',
    make(marketing, set(['body'], { text: 'Ready: {{1}}', examples: ['Tea'] })),
    ['body', 'text'],
  ),
  c('body.examples.missing', 'WA_TPL_013', make(marketing, del(['body', 'examples'])), ['body', 'examples']),
  c('body.examples.count', 'WA_TPL_014', make(marketing, set(['body', 'examples'], ['Ann', 'Bob'])), [
    'body',
    'examples',
  ]),
  c('buttons.text.required', 'WA_TPL_015', make(marketing, set(['buttons'], [{ type: 'QUICK_REPLY' }])), [
    'buttons',
    0,
    'text',
  ]),
  c('buttons.example.copy_code', 'WA_TPL_016', make(marketing, set(['buttons'], [{ type: 'COPY_CODE' }])), [
    'buttons',
    0,
    'example',
  ]),
  c(
    'buttons.otpType.required',
    'WA_TPL_017',
    make(auth, set(['buttons'], [{ type: 'OTP', text: 'Copy code' }])),
    ['buttons', 0, 'otpType'],
  ),
  c(
    'buttons.packageName.required',
    'WA_TPL_018',
    make(auth, set(['buttons'], [{ type: 'OTP', otpType: 'ONE_TAP', signatureHash: 'K8a/AINcGX7' }])),
    ['buttons', 0, 'packageName'],
  ),
  c(
    'buttons.signatureHash.required',
    'WA_TPL_019',
    make(auth, set(['buttons'], [{ type: 'OTP', otpType: 'ONE_TAP', packageName: 'com.example.app' }])),
    ['buttons', 0, 'signatureHash'],
  ),
  c(
    'buttons.zeroTapTermsAccepted.required',
    'WA_TPL_020',
    make(
      auth,
      set(
        ['buttons'],
        [{ type: 'OTP', otpType: 'ZERO_TAP', packageName: 'com.example.app', signatureHash: 'K8a/AINcGX7' }],
      ),
    ),
    ['buttons', 0, 'zeroTapTermsAccepted'],
  ),
  c(
    'header.text.location',
    'WA_TPL_021',
    make(marketing, set(['header'], { format: 'LOCATION', text: 'Here' })),
    ['header', 'text'],
  ),
  c('body.text.authentication', 'WA_TPL_023', make(auth, set(['body', 'text'], 'Your code')), [
    'body',
    'text',
  ]),
  c('footer.text.authentication', 'WA_TPL_024', make(auth, set(['footer', 'text'], 'Thanks')), [
    'footer',
    'text',
  ]),
  c('body.text.required', 'WA_TPL_027', make(marketing, set(['body'], {})), ['body', 'text']),
  c(
    'body.addSecurityRecommendation.category',
    'WA_TPL_028',
    make(utility, set(['body', 'addSecurityRecommendation'], true)),
    ['body', 'addSecurityRecommendation'],
  ),
  c(
    'footer.codeExpirationMinutes.category',
    'WA_TPL_029',
    make(marketing, set(['footer'], { codeExpirationMinutes: 10 })),
    ['footer', 'codeExpirationMinutes'],
  ),
  c('name.pattern', 'WA_TPL_034', make(utility, set(['name'], 'Order-Update')), ['name']),
  c('carousel.category', 'WA_TPL_035', make(carousel, set(['category'], 'UTILITY')), ['category']),
  c(
    'carousel.top_level.header',
    'WA_TPL_036',
    make(carousel, set(['header'], { format: 'TEXT', text: 'Hello' })),
    ['header'],
  ),
  c('carousel.top_level.footer', 'WA_TPL_037', make(carousel, set(['footer'], { text: 'Bye' })), ['footer']),
  c('carousel.top_level.buttons', 'WA_TPL_038', make(carousel, set(['buttons'], [qr()])), ['buttons']),
  c('carousel.cards.count', 'WA_TPL_039', make(carousel, set(['carousel'], [card()])), ['carousel']),
  c(
    'carousel.header.format.same',
    'WA_TPL_040',
    make(carousel, set(['carousel'], [card('IMAGE'), card('VIDEO')])),
    ['carousel', 1, 'header', 'format'],
  ),
  c(
    'carousel.buttons.types.same',
    'WA_TPL_041',
    make(carousel, set(['carousel'], [card('IMAGE', [qr()]), card('IMAGE', [urlButton()])])),
    ['carousel', 1, 'buttons'],
  ),
  c(
    'carousel.header.format.media',
    'WA_TPL_042',
    make(carousel, set(['carousel'], [card('IMAGE'), card('DOCUMENT')])),
    ['carousel', 1, 'header', 'format'],
  ),
  c(
    'carousel.header.examples.media_handle',
    'WA_TPL_043',
    make(carousel, del(['carousel', 1, 'header', 'examples'])),
    ['carousel', 1, 'header', 'examples'],
  ),
  c('carousel.body.text.required', 'WA_TPL_044', make(carousel, set(['carousel', 1, 'body'], {})), [
    'carousel',
    1,
    'body',
    'text',
  ]),
  c(
    'carousel.body.text.max_length',
    'WA_TPL_045',
    make(carousel, set(['carousel', 1, 'body'], { text: 'x'.repeat(161) })),
    ['carousel', 1, 'body', 'text'],
  ),
  c(
    'carousel.buttons.type.allowed',
    'WA_TPL_046',
    make(carousel, set(['carousel', 1, 'buttons'], [{ type: 'COPY_CODE', example: ['SAVE'] }])),
    ['carousel', 1, 'buttons', 0, 'type'],
  ),
  c('lto.category', 'WA_TPL_048', make(lto, set(['category'], 'UTILITY'), del(['buttons'])), ['category']),
  c('lto.body.text.required', 'WA_TPL_049', make(lto, set(['body'], { text: '' })), ['body', 'text']),
  c('lto.header.format', 'WA_TPL_050', make(lto, set(['header'], { format: 'TEXT', text: 'Hello' })), [
    'header',
    'format',
  ]),
  c('lto.footer.text', 'WA_TPL_051', make(lto, set(['footer'], { text: 'Bye' })), ['footer', 'text']),
  c('lto.carousel', 'WA_TPL_052', make(lto, del(['buttons']), set(['carousel'], [card(), card()])), [
    'carousel',
  ]),
  c('lto.buttons.type', 'WA_TPL_053', make(lto, set(['buttons'], [qr()])), ['buttons', 0, 'type']),
  c(
    'lto.buttons.copy_code_max',
    'WA_TPL_054',
    make(
      lto,
      set(
        ['buttons'],
        [
          { type: 'COPY_CODE', example: ['SAVE20'] },
          { type: 'COPY_CODE', example: ['MORE10'] },
        ],
      ),
    ),
    ['buttons'],
  ),
  c('lto.buttons.count', 'WA_TPL_055', make(lto, set(['buttons'], [urlButton(), urlButton(), urlButton()])), [
    'buttons',
  ]),
  // The same codes where the spec applies a component's rules inside carousel cards.
  c(
    'carousel.header.text.media',
    'WA_TPL_010',
    make(carousel, set(['carousel', 1, 'header', 'text'], 'Hi')),
    ['carousel', 1, 'header', 'text'],
  ),
  c(
    'carousel.body.text.leading_variable',
    'WA_TPL_011',
    make(carousel, set(['carousel', 1, 'body', 'text'], '{{1}} today.')),
    ['carousel', 1, 'body', 'text'],
  ),
  c(
    'carousel.body.text.trailing_variable',
    'WA_TPL_012',
    make(carousel, set(['carousel', 1, 'body', 'text'], 'Fresh {{1}}')),
    ['carousel', 1, 'body', 'text'],
  ),
  c(
    'carousel.body.examples.missing',
    'WA_TPL_013',
    make(carousel, set(['carousel', 1, 'body', 'examples'], [])),
    ['carousel', 1, 'body', 'examples'],
  ),
  c(
    'carousel.body.examples.count',
    'WA_TPL_014',
    make(carousel, set(['carousel', 1, 'body', 'examples'], ['bread', 'jam'])),
    ['carousel', 1, 'body', 'examples'],
  ),
  c(
    'carousel.body.addSecurityRecommendation.category',
    'WA_TPL_028',
    make(carousel, set(['carousel', 1, 'body', 'addSecurityRecommendation'], false)),
    ['carousel', 1, 'body', 'addSecurityRecommendation'],
  ),
  c(
    'carousel.buttons.text.required',
    'WA_TPL_015',
    make(carousel, del(['carousel', 1, 'buttons', 0, 'text'])),
    ['carousel', 1, 'buttons', 0, 'text'],
  ),
  c(
    'carousel.buttons.url.required',
    'WA_TPL_001',
    make(
      carousel,
      set(['carousel', 0, 'buttons'], [urlButton()]),
      set(['carousel', 1, 'buttons'], [{ type: 'URL', text: 'Open' }]),
    ),
    ['carousel', 1, 'buttons', 0, 'url'],
  ),
  c(
    'carousel.buttons.url.with_phone_number',
    'WA_TPL_002',
    make(
      carousel,
      set(['carousel', 0, 'buttons'], [phoneButton()]),
      set(['carousel', 1, 'buttons'], [{ ...phoneButton(), url: 'https://example.com' }]),
    ),
    ['carousel', 1, 'buttons', 0, 'url'],
  ),
  c(
    'carousel.buttons.phoneNumber.required',
    'WA_TPL_003',
    make(
      carousel,
      set(['carousel', 0, 'buttons'], [phoneButton()]),
      set(['carousel', 1, 'buttons'], [{ type: 'PHONE_NUMBER', text: 'Call us' }]),
    ),
    ['carousel', 1, 'buttons', 0, 'phoneNumber'],
  ),
  c(
    'carousel.buttons.phoneNumber.with_url',
    'WA_TPL_004',
    make(
      carousel,
      set(['carousel', 0, 'buttons'], [urlButton()]),
      set(['carousel', 1, 'buttons'], [{ ...urlButton(), phoneNumber: '+15551234567' }]),
    ),
    ['carousel', 1, 'buttons', 0, 'phoneNumber'],
  ),
];

// One case per rule whose code the spec does not name (generic type/required/enum rules are generated below).
const nullCases: Case[] = [
  c('type.template', null, [] as unknown as Json, []),
  c('unknown_field', null, make(utility, set(['footnote'], 'x')), ['footnote']),
  c('name.max_length', null, make(utility, set(['name'], 'a'.repeat(513))), ['name']),
  c('header.authentication', null, make(auth, set(['header'], { format: 'TEXT', text: 'Your code' })), [
    'header',
  ]),
  c('header.text.required', null, make(utility, set(['header'], { format: 'TEXT' })), ['header', 'text']),
  c(
    'header.text.max_length',
    null,
    make(utility, set(['header'], { format: 'TEXT', text: 'x'.repeat(61) })),
    ['header', 'text'],
  ),
  c(
    'header.variables.sequence',
    null,
    make(utility, set(['header'], { format: 'TEXT', text: 'News {{2}} today', examples: ['Big'] })),
    ['header', 'text'],
  ),
  c('header.text.none', null, make(utility, set(['header'], { format: 'NONE', text: 'Hi' })), [
    'header',
    'text',
  ]),
  c(
    'header.examples.count',
    null,
    make(utility, set(['header'], { format: 'TEXT', text: 'News {{1}} today' })),
    ['header', 'examples'],
  ),
  c(
    'header.examples.media_handle',
    null,
    make(utility, set(['header'], { format: 'DOCUMENT', examples: [''] })),
    ['header', 'examples'],
  ),
  c('body.text.max_length', null, make(utility, set(['body'], { text: 'x'.repeat(1025) })), ['body', 'text']),
  c(
    'body.variables.sequence',
    null,
    make(utility, set(['body'], { text: 'Hi {{1}} and {{3}}.', examples: ['a', 'b'] })),
    ['body', 'text'],
  ),
  c('footer.text.max_length', null, make(utility, set(['footer'], { text: 'x'.repeat(61) })), [
    'footer',
    'text',
  ]),
  c('footer.codeExpirationMinutes.range', null, make(auth, set(['footer', 'codeExpirationMinutes'], 91)), [
    'footer',
    'codeExpirationMinutes',
  ]),
  c(
    'buttons.count',
    null,
    make(
      marketing,
      set(
        ['buttons'],
        Array.from({ length: 11 }, () => qr()),
      ),
    ),
    ['buttons'],
  ),
  c(
    'buttons.type.category',
    null,
    make(utility, set(['buttons'], [{ type: 'COPY_CODE', example: ['SAVE'] }])),
    ['buttons', 0, 'type'],
  ),
  c('buttons.text.length', null, make(utility, set(['buttons'], [qr('x'.repeat(26))])), [
    'buttons',
    0,
    'text',
  ]),
  c('buttons.url.type', null, make(utility, set(['buttons'], [{ ...qr(), url: 'https://example.com' }])), [
    'buttons',
    0,
    'url',
  ]),
  c('buttons.url.https', null, make(utility, set(['buttons'], [urlButton('http://example.com')])), [
    'buttons',
    0,
    'url',
  ]),
  c(
    'buttons.url.variable',
    null,
    make(utility, set(['buttons'], [{ ...urlButton('https://x.com/{{1}}/a'), example: ['b'] }])),
    ['buttons', 0, 'url'],
  ),
  c(
    'buttons.example.dynamic_url',
    null,
    make(utility, set(['buttons'], [urlButton('https://x.com/track/{{1}}')])),
    ['buttons', 0, 'example'],
  ),
  c(
    'buttons.phoneNumber.type',
    null,
    make(utility, set(['buttons'], [{ ...qr(), phoneNumber: '+15551234567' }])),
    ['buttons', 0, 'phoneNumber'],
  ),
  c('buttons.phoneNumber.e164', null, make(utility, set(['buttons'], [phoneButton('555-1234')])), [
    'buttons',
    0,
    'phoneNumber',
  ]),
  c(
    'buttons.autofillText.max_length',
    null,
    make(
      auth,
      set(
        ['buttons'],
        [
          {
            type: 'OTP',
            otpType: 'ONE_TAP',
            packageName: 'com.example.app',
            signatureHash: 'K8a/AINcGX7',
            autofillText: 'a'.repeat(26),
          },
        ],
      ),
    ),
    ['buttons', 0, 'autofillText'],
  ),
  c(
    'carousel.buttons.count',
    null,
    make(carousel, set(['carousel'], [card('IMAGE', [qr(), qr(), qr()]), card('IMAGE', [qr(), qr(), qr()])])),
    ['carousel', 0, 'buttons'],
  ),
  c(
    'carousel.header.text.location',
    'WA_TPL_021',
    make(carousel, set(['carousel', 1, 'header'], { format: 'LOCATION', text: 'Here' })),
    ['carousel', 1, 'header', 'format'],
    ['carousel.header.format.media'],
  ),
  c(
    'carousel.header.text.none',
    null,
    make(carousel, set(['carousel', 1, 'header'], { format: 'NONE', text: 'Hi' })),
    ['carousel', 1, 'header', 'format'],
    ['carousel.header.format.media'],
  ),
  c('carousel.buttons.text.length', null, make(carousel, set(['carousel', 1, 'buttons'], [qr('x')])), [
    'carousel',
    1,
    'buttons',
    0,
    'text',
  ]),
  c(
    'carousel.buttons.url.type',
    null,
    make(carousel, set(['carousel', 1, 'buttons', 0, 'url'], 'https://example.com')),
    ['carousel', 1, 'buttons', 0, 'url'],
  ),
  c(
    'carousel.buttons.url.https',
    null,
    make(carousel, set(['carousel'], [card('IMAGE', [urlButton()]), card('IMAGE', [urlButton('ftp://x')])])),
    ['carousel', 1, 'buttons', 0, 'url'],
  ),
  c(
    'carousel.buttons.url.variable',
    null,
    make(
      carousel,
      set(['carousel'], [card('IMAGE', [urlButton()]), card('IMAGE', [urlButton('https://x.com/{{2}}')])]),
    ),
    ['carousel', 1, 'buttons', 0, 'url'],
  ),
  c(
    'carousel.buttons.example.dynamic_url',
    null,
    make(
      carousel,
      set(['carousel'], [card('IMAGE', [urlButton()]), card('IMAGE', [urlButton('https://x.com/{{1}}')])]),
    ),
    ['carousel', 1, 'buttons', 0, 'example'],
  ),
  c(
    'carousel.buttons.phoneNumber.type',
    null,
    make(carousel, set(['carousel', 1, 'buttons', 0, 'phoneNumber'], '+15551234567')),
    ['carousel', 1, 'buttons', 0, 'phoneNumber'],
  ),
  c(
    'carousel.buttons.phoneNumber.e164',
    null,
    make(
      carousel,
      set(['carousel'], [card('IMAGE', [phoneButton()]), card('IMAGE', [phoneButton('+0123')])]),
    ),
    ['carousel', 1, 'buttons', 0, 'phoneNumber'],
  ),
  c(
    'carousel.header.examples.distinct',
    null,
    make(
      carousel,
      set(['carousel', 1, 'header', 'examples'], ['4::shared']),
      set(['carousel', 0, 'header', 'examples'], ['4::shared']),
    ),
    ['carousel', 1, 'header', 'examples'],
  ),
  c(
    'carousel.body.variables.sequence',
    null,
    make(carousel, set(['carousel', 1, 'body', 'text'], 'Fresh {{2}} today.')),
    ['carousel', 1, 'body', 'text'],
  ),
  // Double braces around anything but a variable number: one rule per kind, for each text that has variables.
  ...(
    [
      ['named', '{{name}}'],
      ['spaces', '{{ 1 }}'],
      ['zero', '{{0}}'],
      ['invalid', '{{}}'],
    ] as const
  ).flatMap(([kind, token]) => [
    c(
      `header.variables.${kind}`,
      null,
      make(utility, set(['header'], { format: 'TEXT', text: `News ${token} today` })),
      ['header', 'text'],
    ),
    c(`body.variables.${kind}`, null, make(utility, set(['body'], { text: `Hi ${token} there.` })), [
      'body',
      'text',
    ]),
    c(
      `carousel.body.variables.${kind}`,
      null,
      make(carousel, set(['carousel', 1, 'body'], { text: `Fresh ${token} today.` })),
      ['carousel', 1, 'body', 'text'],
    ),
  ]),
  c('messageSendTtlSeconds.range', null, make(utility, set(['messageSendTtlSeconds'], 29)), [
    'messageSendTtlSeconds',
  ]),
  c('limitedTimeOffer.text.max_length', null, make(lto, set(['limitedTimeOffer', 'text'], 'x'.repeat(17))), [
    'limitedTimeOffer',
    'text',
  ]),
];

const ruleById = new Map(templateRules.map((r) => [r.id, r]));

function check(kase: Case): TemplateIssue[] {
  const { issues } = validateTemplate(kase.template);
  const allowed = new Set([kase.rule, ...(kase.also ?? [])]);
  expect(issues.length).toBeGreaterThan(0);
  expect(new Set(issues.map((i) => i.rule))).toEqual(allowed);
  const own = issues.filter((i) => i.rule === kase.rule);
  expect(own.length).toBeGreaterThan(0);
  for (const issue of own) {
    expect(issue.code).toBe(kase.code);
    const field = ruleById.get(kase.rule)?.field;
    // `*`: the rule reports at whatever key it found (unknown_field).
    expect(issue.field).toBe(
      field === '*' ? issue.path.filter((s) => typeof s === 'string').join('.') : field,
    );
  }
  expect(issues[0]!.path).toEqual(kase.path);
  return issues;
}

describe('codes the spec names', () => {
  it.each(codedCases.map((k) => [`${k.code} ${k.rule}`, k] as const))('%s', (_, kase) => {
    const issues = check(kase);
    expect(new Set(issues.map((i) => i.code))).toEqual(new Set([kase.code]));
  });

  it('covers every WA_TPL code the spec names, and only those', () => {
    const named = [
      1, 2, 3, 4, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 23, 24, 27, 28, 29, 34, 35, 36, 37,
      38, 39, 40, 41, 42, 43, 44, 45, 46, 48, 49, 50, 51, 52, 53, 54, 55,
    ].map((n) => `WA_TPL_${String(n).padStart(3, '0')}`);
    const inTable = new Set(templateRules.flatMap((r) => (r.code ? [r.code] : [])));
    expect([...inTable].sort()).toEqual(named);
    expect(new Set(codedCases.map((k) => k.code))).toEqual(new Set(named));
  });
});

describe('rules without a code in the spec', () => {
  it.each(nullCases.map((k) => [k.rule, k] as const))('%s', (_, kase) => {
    check(kase);
  });
});

// The type, required and enum rules are derived from the zod schema; derive the cases independently from it
// here, so a field added to the schema without a working rule fails.
interface FieldInfo {
  key: string;
  kind: 'string' | 'enum' | 'boolean' | 'integer' | 'object' | 'array';
  required: boolean;
  item?: FieldInfo['kind'];
}

/** The kind of a zod/mini schema, read from its definition (zod/mini has no per-kind classes). */
type Def = {
  type: string;
  innerType?: z.ZodMiniType;
  element?: z.ZodMiniType;
  shape?: Record<string, z.ZodMiniType>;
};
const defOf = (schema: z.ZodMiniType) => schema._zod.def as Def;

function fieldsOf(schema: z.ZodMiniType, prefix = ''): FieldInfo[] {
  const out: FieldInfo[] = [];
  for (const [name, raw] of Object.entries(defOf(schema).shape ?? {})) {
    const optional = defOf(raw).type === 'optional';
    const s = optional ? defOf(raw).innerType! : raw;
    const key = prefix ? `${prefix}.${name}` : name;
    const kindOf = (x: z.ZodMiniType): FieldInfo['kind'] => {
      const type = defOf(x).type;
      return type === 'number' ? 'integer' : type === 'object' ? 'object' : (type as FieldInfo['kind']);
    };
    const kind = kindOf(s);
    const el = defOf(s).element;
    if (el) {
      out.push({ key, kind, required: !optional, item: kindOf(el) });
      if (defOf(el).type === 'object') out.push(...fieldsOf(el, key));
    } else {
      out.push({ key, kind, required: !optional });
      if (kind === 'object') out.push(...fieldsOf(s, key));
    }
  }
  return out;
}

const fullMarketing = (): Json => ({
  ...marketing(),
  header: { format: 'TEXT', text: 'News for {{1}} today', examples: ['Ann'] },
  footer: { text: 'Reply STOP to opt out' },
  buttons: [{ ...urlButton('https://x.com/{{1}}'), example: ['a'] }],
  allowCategoryChange: true,
  messageSendTtlSeconds: 86_400,
});
const fullCarousel = (): Json => ({
  ...marketing(),
  carousel: [card('IMAGE', [urlButton()]), card('IMAGE', [urlButton()])],
});
const bases = [fullMarketing, auth, fullCarousel, lto];

const WRONG: Record<FieldInfo['kind'], unknown> = {
  string: 42,
  enum: 42,
  boolean: 'yes',
  integer: 1.5,
  object: 'x',
  array: 'x',
};

/** The first object at a dotted key (lists: first item) in one of the bases, with its path. */
function parentOf(key: string): { template: Json; parent: Json; path: Path } {
  const segments = key.split('.').slice(0, -1);
  for (const base of bases) {
    const template = base();
    let node: unknown = template;
    const path: Path = [];
    let ok = true;
    for (const seg of segments) {
      node = (node as Json)?.[seg];
      path.push(seg);
      if (Array.isArray(node)) {
        node = node[0];
        path.push(0);
      }
      if (typeof node !== 'object' || node === null) {
        ok = false;
        break;
      }
    }
    if (ok) return { template, parent: node as Json, path };
  }
  throw new Error(`no base template holds ${key}`);
}

/** Enum fields whose every invalid value a coded rule of the spec reports (no null-code enum rule exists). */
const ENUM_OWNED_BY_CODED_RULE: Record<string, { rule: string; code: string }> = {
  'carousel.header.format': { rule: 'carousel.header.format.media', code: 'WA_TPL_042' },
  'carousel.buttons.type': { rule: 'carousel.buttons.type.allowed', code: 'WA_TPL_046' },
};

const generated: Case[] = [];
for (const f of fieldsOf(TemplateCreateRequestSchema)) {
  const leaf = f.key.split('.').at(-1)!;
  {
    const { template, parent, path } = parentOf(f.key);
    parent[leaf] = WRONG[f.kind];
    generated.push({ rule: `type.${f.key}`, code: null, template, path: [...path, leaf] });
  }
  if (f.item) {
    const { template, parent, path } = parentOf(f.key);
    parent[leaf] = [WRONG[f.item]];
    generated.push({ rule: `type.${f.key}.item`, code: null, template, path: [...path, leaf, 0] });
  }
  if (f.required) {
    const { template, parent, path } = parentOf(f.key);
    delete parent[leaf];
    generated.push({ rule: `${f.key}.required`, code: null, template, path: [...path, leaf] });
  }
  if (f.kind === 'enum') {
    const { template, parent, path } = parentOf(f.key);
    parent[leaf] = 'NOT_A_VALUE';
    const owner = ENUM_OWNED_BY_CODED_RULE[f.key];
    generated.push({
      rule: owner?.rule ?? `${f.key}.enum`,
      code: owner?.code ?? null,
      template,
      path: [...path, leaf],
    });
  }
}

describe('type, required and enum rules derived from the schema', () => {
  it.each(generated.map((k) => [k.rule, k] as const))('%s', (_, kase) => {
    const { issues } = validateTemplate(kase.template);
    const hit = issues.find((i) => i.rule === kase.rule);
    expect(hit, JSON.stringify(issues.map((i) => i.rule))).toBeDefined();
    expect(hit?.path).toEqual(kase.path);
    expect(hit?.code).toBe(kase.code);
    expect(hit?.field).toBe(ruleById.get(kase.rule)?.field);
  });

  it('a wrong type is one issue, not a cascade', () => {
    const t = make(marketing, set(['body', 'text'], 42));
    expect(validateTemplate(t).issues.map((i) => i.rule)).toEqual(['type.body.text']);
  });
});

describe('the table', () => {
  it('has a case for every rule (internal_error cannot be provoked from outside)', () => {
    const covered = new Set([...codedCases, ...nullCases, ...generated].map((k) => k.rule));
    const missing = templateRules
      .map((r) => r.id)
      .filter((id) => !covered.has(id) && id !== 'internal_error');
    expect(missing).toEqual([]);
  });

  it('has unique ids, spec-shaped codes and server-shaped field keys', () => {
    const ids = templateRules.map((r) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const r of templateRules) {
      expect(r.id).toMatch(/^[a-z][A-Za-z0-9_.]*$/);
      if (r.code !== null) expect(r.code).toMatch(/^WA_TPL_0\d\d$/);
      expect(r.field).toMatch(/^(\*|[A-Za-z]+(\.[A-Za-z]+)*)?$/);
      expect(r.description.length).toBeGreaterThan(10);
    }
  });

  it('is read-only', () => {
    expect(Object.isFrozen(templateRules)).toBe(true);
    expect(Object.isFrozen(templateRules[0])).toBe(true);
    expect('check' in templateRules[0]!).toBe(false);
  });
});
