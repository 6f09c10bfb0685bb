import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  TEMPLATE_CATEGORIES,
  TEMPLATE_LANGUAGES,
  type TemplateIssue,
  templateRules,
  validateTemplate,
} from '../../src/templates/index.js';

/** Runs per property; `FUZZ_RUNS=100000` is the full run (`npm run test:fuzz`). */
const RUNS = Number(process.env.FUZZ_RUNS ?? 1000);
const TIMEOUT = Math.max(20_000, RUNS * 5);

type Json = Record<string, unknown>;
type Path = (string | number)[];

const codeByRule = new Map(templateRules.map((r) => [r.id, r.code]));

/** What every issue must look like, whatever the input. Returns the problems (plain checks: this runs a lot). */
function malformed(issues: TemplateIssue[]): string[] {
  const problems: string[] = [];
  for (const issue of issues) {
    const where = `${issue.rule} at ${JSON.stringify(issue.path)}`;
    if (issue.rule === 'internal_error') problems.push(`internal error: ${issue.message}`);
    if (!codeByRule.has(issue.rule)) problems.push(`${where}: rule not in the table`);
    else if (issue.code !== codeByRule.get(issue.rule)) problems.push(`${where}: code ${issue.code}`);
    if (!Array.isArray(issue.path)) problems.push(`${where}: path is not an array`);
    else if (issue.field !== issue.path.filter((s) => typeof s === 'string').join('.')) {
      problems.push(`${where}: field ${issue.field}`);
    }
    if (typeof issue.message !== 'string' || issue.message.length === 0)
      problems.push(`${where}: no message`);
  }
  return problems;
}

function validate(input: unknown): TemplateIssue[] {
  const result = validateTemplate(input);
  const problems = malformed(result.issues);
  if (result.valid !== (result.issues.length === 0)) problems.push('valid disagrees with issues');
  if (problems.length > 0) expect(problems).toEqual([]);
  return result.issues;
}

/** Drops keys whose value is undefined, so optional fields are absent rather than undefined. */
function compact<T extends Json>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

// ---- Generators of VALID templates -------------------------------------------------------------------

// Single code points only (an emoji is one character for the validator), no braces, no white space.
const letter = fc.constantFrom(
  ...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789',
  'é',
  'ß',
  '中',
  '😀',
  '!',
  '.',
);
const word = fc.string({ unit: letter, minLength: 1, maxLength: 8 });
const shortText = (min: number, max: number) => fc.string({ unit: letter, minLength: min, maxLength: max });
const example = shortText(1, 12);

/** A text with variables {{1}}..{{n}} (one maybe repeated), never first or last, and one example each. */
const textWithVariables = (maxVariables: number, maxChars: number) =>
  fc
    .integer({ min: 0, max: maxVariables })
    .chain((n) =>
      fc.record({
        words: fc.array(word, { minLength: n + 1, maxLength: n + 1 }),
        examples: fc.array(example, { minLength: n, maxLength: n }),
        repeat: fc.boolean(),
        emptyExamples: fc.boolean(),
      }),
    )
    .map(({ words, examples, repeat, emptyExamples }) => {
      let text = words[0]!;
      for (let i = 1; i < words.length; i++) text += ` {{${i}}} ${words[i]}`;
      if (repeat && examples.length > 0) text += ` {{1}} ${words[0]}`;
      if (examples.length === 0) return emptyExamples ? { text, examples: [] } : { text };
      return { text, examples };
    })
    .filter(({ text }) => [...text].length <= maxChars);

const name = fc.stringMatching(/^[a-z][a-z0-9_]{0,40}$/);
const language = fc.constantFrom(...TEMPLATE_LANGUAGES);
const handle = fc.stringMatching(/^4::[A-Za-z0-9=]{4,24}$/);
const buttonText = shortText(2, 25);
const httpsUrl = fc.constantFrom(
  'https://example.com',
  'https://shop.example.com/sale',
  'https://x.io/a?b=c',
);
const phone = fc.stringMatching(/^\+?[1-9][0-9]{6,14}$/);

const quickReply = fc.record({ type: fc.constant('QUICK_REPLY'), text: buttonText });
const urlButton = fc
  .record({ text: buttonText, url: httpsUrl, dynamic: fc.boolean(), example })
  .map(({ text, url, dynamic, example }) =>
    dynamic ? { type: 'URL', text, url: `${url}/{{1}}`, example: [example] } : { type: 'URL', text, url },
  );
const phoneButton = fc.record({ type: fc.constant('PHONE_NUMBER'), text: buttonText, phoneNumber: phone });
const copyCodeButton = fc.record(
  { type: fc.constant('COPY_CODE'), example: fc.tuple(shortText(1, 15)), text: buttonText },
  { requiredKeys: ['type', 'example'] },
);
const appOtp = {
  packageName: fc.constantFrom('com.example.app', 'org.shop.android'),
  signatureHash: fc.stringMatching(/^[A-Za-z0-9+/]{11}$/),
  autofillText: shortText(1, 25),
  text: buttonText,
};
const otpButton = fc.oneof(
  fc.record(
    { type: fc.constant('OTP'), otpType: fc.constant('COPY_CODE'), text: buttonText },
    { requiredKeys: ['type', 'otpType'] },
  ),
  fc.record(
    { type: fc.constant('OTP'), otpType: fc.constant('ONE_TAP'), ...appOtp },
    { requiredKeys: ['type', 'otpType', 'packageName', 'signatureHash'] },
  ),
  fc.record(
    {
      type: fc.constant('OTP'),
      otpType: fc.constant('ZERO_TAP'),
      zeroTapTermsAccepted: fc.constant(true),
      ...appOtp,
    },
    { requiredKeys: ['type', 'otpType', 'packageName', 'signatureHash', 'zeroTapTermsAccepted'] },
  ),
);

const mediaHeader = (formats: string[]) =>
  fc.record({
    format: fc.constantFrom(...formats),
    examples: fc.array(handle, { minLength: 1, maxLength: 2 }),
  });
const header = fc.oneof(
  fc.constant({ format: 'NONE' }),
  fc.constant({ format: 'LOCATION' }),
  textWithVariables(1, 60).map((t) => ({ format: 'TEXT', ...t })),
  mediaHeader(['IMAGE', 'VIDEO', 'DOCUMENT']),
);
const footer = shortText(1, 60).map((text) => ({ text }));
const common = { name, language, allowCategoryChange: fc.option(fc.boolean(), { nil: undefined }) };
const opt = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined });

const utilityTemplate = fc
  .record({
    ...common,
    category: fc.constant('UTILITY'),
    header: opt(header),
    body: textWithVariables(3, 1024),
    footer: opt(footer),
    buttons: opt(fc.array(fc.oneof(quickReply, urlButton, phoneButton), { maxLength: 10 })),
    messageSendTtlSeconds: opt(fc.integer({ min: 30, max: 43_200 })),
  })
  .map(compact);

const marketingTemplate = fc
  .record({
    ...common,
    category: fc.constant('MARKETING'),
    header: opt(header),
    body: textWithVariables(3, 1024),
    footer: opt(footer),
    buttons: opt(fc.array(fc.oneof(quickReply, urlButton, phoneButton, copyCodeButton), { maxLength: 10 })),
    messageSendTtlSeconds: opt(fc.integer({ min: 43_200, max: 2_592_000 })),
  })
  .map(compact);

const authenticationTemplate = fc
  .record({
    ...common,
    category: fc.constant('AUTHENTICATION'),
    header: opt(fc.constant({ format: 'NONE' })),
    body: fc.record({ addSecurityRecommendation: fc.boolean() }, { requiredKeys: [] }),
    footer: opt(fc.record({ codeExpirationMinutes: fc.integer({ min: 1, max: 90 }) }, { requiredKeys: [] })),
    buttons: opt(fc.array(otpButton, { maxLength: 3 })),
    messageSendTtlSeconds: opt(fc.oneof(fc.integer({ min: 30, max: 900 }), fc.constant(-1))),
  })
  .map(compact);

const cardButton: Record<string, fc.Arbitrary<Json>> = {
  QUICK_REPLY: quickReply,
  URL: urlButton,
  PHONE_NUMBER: phoneButton,
};
const carouselTemplate = fc
  .record({
    format: fc.constantFrom('IMAGE', 'VIDEO'),
    types: fc.array(fc.constantFrom('QUICK_REPLY', 'URL', 'PHONE_NUMBER'), { minLength: 1, maxLength: 2 }),
    count: fc.integer({ min: 2, max: 10 }),
  })
  .chain(({ format, types, count }) => {
    const card = fc.record({
      header: mediaHeader([format]),
      body: textWithVariables(2, 160),
      buttons: fc.tuple(...types.map((t) => cardButton[t]!)),
    });
    return fc
      .record({
        ...common,
        category: fc.constant('MARKETING'),
        header: opt(fc.constant({ format: 'NONE' })),
        body: textWithVariables(3, 1024),
        carousel: fc.array(card, { minLength: count, maxLength: count }),
      })
      .map((t) => {
        // Handles are single-use: one upload per card, so each card's handle is made unique.
        t.carousel.forEach((c, i) => {
          c.header.examples = c.header.examples.map((h) => `${h}:${i}`);
        });
        return compact(t);
      });
  });

const ltoButtons = fc.oneof(
  fc.constant([] as Json[]),
  fc.tuple(urlButton),
  fc.tuple(copyCodeButton),
  fc.tuple(urlButton, urlButton),
  fc.tuple(copyCodeButton, urlButton),
  fc.tuple(urlButton, copyCodeButton),
);
const ltoTemplate = fc
  .record({
    ...common,
    category: fc.constant('MARKETING'),
    header: opt(fc.oneof(fc.constant({ format: 'NONE' }), mediaHeader(['IMAGE', 'VIDEO']))),
    body: textWithVariables(3, 1024),
    buttons: opt(ltoButtons),
    limitedTimeOffer: fc.record(
      { text: shortText(1, 16), hasExpiration: fc.boolean() },
      { requiredKeys: ['text'] },
    ),
  })
  .map(compact);

const validTemplate: fc.Arbitrary<Json> = fc.oneof(
  utilityTemplate,
  marketingTemplate,
  authenticationTemplate,
  carouselTemplate,
  ltoTemplate,
);

// ---- Mutations -------------------------------------------------------------------------------------------

/** Every path in a JSON-like value. */
function pathsOf(value: unknown, prefix: Path = []): Path[] {
  if (typeof value !== 'object' || value === null) return [];
  const out: Path[] = [];
  const entries: [string | number, unknown][] = Array.isArray(value)
    ? value.map((v, i) => [i, v])
    : Object.entries(value);
  for (const [k, v] of entries) {
    out.push([...prefix, k]);
    out.push(...pathsOf(v, [...prefix, k]));
  }
  return out;
}

function parentOf(root: unknown, path: Path): Record<string | number, unknown> {
  let node = root;
  for (const seg of path.slice(0, -1)) node = (node as Record<string | number, unknown>)[seg];
  return node as Record<string | number, unknown>;
}

type Mutation = 'drop' | 'retype' | 'lengthen' | 'swap_category';

function mutate(template: Json, pick: number, kind: Mutation, value: unknown, category: string): Json {
  const t = structuredClone(template);
  if (kind === 'swap_category') {
    t.category = category;
    return t;
  }
  const paths = pathsOf(t);
  const path = paths[pick % paths.length]!;
  const parent = parentOf(t, path);
  const key = path.at(-1)!;
  if (kind === 'drop') {
    if (Array.isArray(parent)) parent.splice(Number(key), 1);
    else delete parent[key];
  } else if (kind === 'retype') {
    parent[key] = value;
  } else {
    const current = parent[key];
    parent[key] = typeof current === 'string' ? `${current} ${'x'.repeat(1100)}` : value;
  }
  return t;
}

/** Length-limited string fields (field key → the rule that must report them when over the limit). */
const LIMIT_RULES: Record<string, string> = {
  name: 'name.max_length',
  'header.text': 'header.text.max_length',
  'body.text': 'body.text.max_length',
  'footer.text': 'footer.text.max_length',
  'buttons.text': 'buttons.text.length',
  'buttons.autofillText': 'buttons.autofillText.max_length',
  'carousel.body.text': 'carousel.body.text.max_length',
  'carousel.buttons.text': 'carousel.buttons.text.length',
  'limitedTimeOffer.text': 'limitedTimeOffer.text.max_length',
};

// ---- Properties ------------------------------------------------------------------------------------------

describe('validateTemplate under fuzzing', () => {
  it(
    'never throws on arbitrary values and always returns { valid, issues }',
    () => {
      fc.assert(
        fc.property(
          fc.anything({
            withBigInt: true,
            withBoxedValues: true,
            withDate: true,
            withMap: true,
            withSet: true,
            withNullPrototype: true,
            withObjectString: true,
            withSparseArray: true,
            withTypedArray: true,
            withUnicodeString: true,
          }),
          (input) => {
            validate(input);
          },
        ),
        { numRuns: RUNS },
      );
    },
    TIMEOUT,
  );

  it(
    'never throws on template-shaped objects whose fields are arbitrary JSON',
    () => {
      const anyJson = fc.jsonValue({ maxDepth: 3 });
      const field = fc.oneof(
        anyJson,
        fc.constantFrom('TEXT', 'IMAGE', 'URL', 'OTP', 'ZERO_TAP', 'MARKETING', 'en'),
      );
      const item = fc.dictionary(
        fc.constantFrom(
          'type',
          'text',
          'url',
          'phoneNumber',
          'example',
          'otpType',
          'format',
          'examples',
          'header',
          'body',
          'buttons',
        ),
        field,
      );
      fc.assert(
        fc.property(
          fc.record(
            {
              name: field,
              language: field,
              category: fc.oneof(fc.constantFrom(...TEMPLATE_CATEGORIES), anyJson),
              header: fc.oneof(item, anyJson),
              body: fc.oneof(item, anyJson),
              footer: fc.oneof(item, anyJson),
              buttons: fc.oneof(fc.array(item, { maxLength: 12 }), anyJson),
              carousel: fc.oneof(fc.array(item, { maxLength: 12 }), anyJson),
              allowCategoryChange: field,
              messageSendTtlSeconds: fc.oneof(fc.integer(), anyJson),
              limitedTimeOffer: fc.oneof(item, anyJson),
            },
            { requiredKeys: [] },
          ),
          (input) => {
            validate(input);
          },
        ),
        { numRuns: RUNS },
      );
    },
    TIMEOUT,
  );

  it(
    'accepts every generated valid template with zero issues',
    () => {
      fc.assert(
        fc.property(validTemplate, (template) => {
          const issues = validate(template);
          if (issues.length > 0)
            expect(issues.map((i) => `${i.rule} at ${i.path.join('.')}: ${i.message}`)).toEqual([]);
        }),
        { numRuns: RUNS },
      );
    },
    TIMEOUT,
  );

  it(
    'never throws on mutated valid templates, and every issue is well formed',
    () => {
      fc.assert(
        fc.property(
          validTemplate,
          fc.nat(),
          fc.constantFrom<Mutation>('drop', 'retype', 'lengthen', 'swap_category'),
          fc.anything({ withBigInt: true, withNullPrototype: true, withSparseArray: true }),
          fc.constantFrom(...TEMPLATE_CATEGORIES),
          (template, pick, kind, value, category) => {
            validate(mutate(template, pick, kind, value, category));
          },
        ),
        { numRuns: RUNS },
      );
    },
    TIMEOUT,
  );

  it(
    'reports exactly the limit rule when one length-limited field of a valid template grows past its limit',
    () => {
      fc.assert(
        fc.property(validTemplate, fc.nat(), (template, pick) => {
          const candidates = pathsOf(template).filter((p) => {
            const field = p.filter((s) => typeof s === 'string').join('.');
            return field in LIMIT_RULES && typeof parentOf(template, p)[p.at(-1)!] === 'string';
          });
          fc.pre(candidates.length > 0);
          const path = candidates[pick % candidates.length]!;
          const t = structuredClone(template);
          const parent = parentOf(t, path);
          const key = path.at(-1)!;
          // Names grow with valid characters; texts grow at the end, after their last variable.
          parent[key] =
            key === 'name' && path.length === 1
              ? 'a'.repeat(600)
              : `${String(parent[key])} ${'x'.repeat(1100)}`;
          const field = path.filter((s) => typeof s === 'string').join('.');
          const issues = validate(t);
          expect(issues.map((i) => [i.rule, i.path])).toEqual([[LIMIT_RULES[field], path]]);
        }),
        { numRuns: RUNS },
      );
    },
    TIMEOUT,
  );
});
