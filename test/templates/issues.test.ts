import { describe, expect, it } from 'vitest';
import { type FieldIssue, TemplateValidationError, WaGatewayError } from '../../src/core/errors.js';
import {
  assertValidTemplate,
  type TemplateIssue,
  templateRules,
  validateTemplate,
} from '../../src/templates/index.js';

const TOP = [
  'name',
  'language',
  'category',
  'header',
  'body',
  'footer',
  'buttons',
  'carousel',
  'allowCategoryChange',
  'messageSendTtlSeconds',
  'limitedTimeOffer',
];

/** Sort key of a path by the spec's top-level field order, then the first list index. */
const orderKey = (path: (string | number)[]): [number, number] => {
  const top = TOP.indexOf(String(path[0]));
  const index = path.find((s) => typeof s === 'number');
  return [top === -1 ? TOP.length : top, typeof index === 'number' ? index : -1];
};

const rulesOf = (issues: TemplateIssue[]) => issues.map((i) => i.rule);

// A template with problems everywhere: the validator must report them all, in document order.
const broken = {
  extra: true,
  limitedTimeOffer: { text: 'x'.repeat(20) },
  messageSendTtlSeconds: 10,
  buttons: [
    { type: 'URL', text: 'Go' },
    { type: 'QUICK_REPLY', text: 'x' },
    { type: 'PHONE_NUMBER', text: 'Call', phoneNumber: 'abc' },
  ],
  footer: { text: 'f'.repeat(61) },
  body: { text: 'Hi {{1}}' },
  header: { format: 'TEXT', text: `{{1}} ${'h'.repeat(70)}` },
  category: 'MARKETING',
  language: 'en-US',
  name: 'Bad Name',
};

describe('all issues at once', () => {
  const { valid, issues } = validateTemplate(broken);

  it('reports every broken rule, not only the first', () => {
    expect(valid).toBe(false);
    const rules = new Set(rulesOf(issues));
    for (const rule of [
      'name.pattern',
      'language.enum',
      'header.text.max_length',
      'header.text.leading_variable',
      'header.examples.count',
      'body.text.trailing_variable',
      'body.examples.missing',
      'footer.text.max_length',
      'lto.footer.text',
      'lto.buttons.count',
      'buttons.url.required',
      'buttons.text.length',
      'lto.buttons.type',
      'buttons.phoneNumber.e164',
      'messageSendTtlSeconds.range',
      'limitedTimeOffer.text.max_length',
      'unknown_field',
    ]) {
      expect(rules.has(rule), rule).toBe(true);
    }
  });

  it('lists them in document order (spec field order, then list index), whatever the key order of the input', () => {
    const keys = issues.map((i) => orderKey(i.path));
    const sorted = [...keys].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    expect(keys).toEqual(sorted);
    expect(issues[0]!.field).toBe('name');
    expect(issues.at(-1)!.path).toEqual(['extra']);
    const buttonIndices = issues
      .filter((i) => i.path[0] === 'buttons' && i.path.length > 1)
      .map((i) => i.path[1]);
    expect(buttonIndices).toEqual([...buttonIndices].sort());
    expect(new Set(buttonIndices)).toEqual(new Set([0, 1, 2]));
  });

  it('keeps a parent before its fields and issues at one path in table order', () => {
    const buttons = issues.filter((i) => i.path[0] === 'buttons');
    expect(buttons[0]!.path).toEqual(['buttons']);
    const tableOrder = templateRules.map((r) => r.id);
    const atHeaderText = issues
      .filter((i) => i.field === 'header.text')
      .map((i) => tableOrder.indexOf(i.rule));
    expect(atHeaderText.length).toBe(2);
    expect(atHeaderText).toEqual([...atHeaderText].sort((a, b) => a - b));
  });

  it('is deterministic', () => {
    expect(validateTemplate(broken)).toEqual(validateTemplate(structuredClone(broken)));
  });
});

describe('path and field', () => {
  it('keeps list indices in path and omits them in field (the server errors.fields key)', () => {
    const { issues } = validateTemplate({
      name: 'carousel_x',
      language: 'en',
      category: 'MARKETING',
      body: { text: 'Look.' },
      carousel: [
        {
          header: { format: 'IMAGE', examples: ['h1'] },
          body: { text: 'A' },
          buttons: [{ type: 'URL', text: 'Go', url: 'https://a.b' }],
        },
        {
          header: { format: 'IMAGE', examples: ['h2'] },
          body: { text: 'B' },
          buttons: [{ type: 'URL', text: 'Go', url: 'http://a.b' }],
        },
      ],
    });
    expect(issues).toHaveLength(1);
    expect(issues[0]).toMatchObject({
      rule: 'carousel.buttons.url.https',
      path: ['carousel', 1, 'buttons', 0, 'url'],
      field: 'carousel.buttons.url',
    });
  });

  it('reports every issue at the field its rule documents', () => {
    const byId = new Map(templateRules.map((r) => [r.id, r.field]));
    for (const issue of validateTemplate(broken).issues) {
      const documented = byId.get(issue.rule);
      expect(documented, issue.rule).toBeDefined();
      if (documented !== '*') expect(issue.field).toBe(documented);
      expect(issue.field).toBe(issue.path.filter((s) => typeof s === 'string').join('.'));
    }
  });

  it('is assignable to FieldIssue, the shape server 422 errors use', () => {
    const issue = validateTemplate(broken).issues[0]!;
    const asField: FieldIssue = issue;
    expect(Object.keys(asField)).toEqual(expect.arrayContaining(['code', 'field', 'message']));
  });
});

describe('messages', () => {
  const header = (text: string) =>
    validateTemplate({
      name: 'n',
      language: 'en',
      category: 'UTILITY',
      header: { format: 'TEXT', text },
      body: { text: 'Body.' },
    }).issues;

  it('name the limit and the actual value in one sentence', () => {
    const [issue] = header('h'.repeat(61));
    expect(issue).toMatchObject({
      code: null,
      rule: 'header.text.max_length',
      message: 'Header text is 61 characters; the maximum is 60.',
      params: { max: 60, actual: 61 },
    });
  });

  it('count code points, so an emoji is one character', () => {
    expect(header('😀'.repeat(60))).toEqual([]);
    const [issue] = header('😀'.repeat(61));
    expect(issue?.params).toEqual({ max: 60, actual: 61 });
  });

  it('never echo huge input', () => {
    const huge = 'A'.repeat(1_000_000);
    const { issues } = validateTemplate({ name: huge, language: huge, category: huge, body: { text: huge } });
    expect(issues.length).toBeGreaterThanOrEqual(4);
    for (const issue of issues) expect(issue.message.length).toBeLessThan(250);
    expect(JSON.stringify(issues).length).toBeLessThan(5000);
    expect(issues.find((i) => i.rule === 'name.pattern')?.message).toContain('…');
  });

  it('never echo a huge unknown key in the message: the path alone holds it', () => {
    const key = 'k'.repeat(100_000);
    const good = { name: 'n', language: 'en', category: 'UTILITY', body: { text: 'B.' } };
    for (const [input, where] of [
      [{ ...good, [key]: 1 }, 'The template'],
      [{ ...good, buttons: [{ type: 'QUICK_REPLY', text: 'ok', [key]: 1 }] }, 'buttons[0]'],
    ] as const) {
      const [issue, ...rest] = validateTemplate(input).issues;
      expect(rest).toEqual([]);
      expect(issue).toMatchObject({
        rule: 'unknown_field',
        path: [...(where === 'The template' ? [] : ['buttons', 0]), key],
      });
      expect(issue?.message).toBe(
        `${where} key "${'k'.repeat(40)}"… is not a field of the template create request; remove it.`,
      );
    }
  });

  it('suggest the right spelling of an enum value', () => {
    const { issues } = validateTemplate({
      name: 'n',
      language: 'en-us',
      category: 'marketing',
      body: { text: 'B.' },
    });
    expect(issues.map((i) => [i.rule, i.params?.suggestion])).toEqual([
      ['language.enum', 'en_US'],
      ['category.enum', 'MARKETING'],
    ]);
  });

  it('use human numbering for list items', () => {
    const { issues } = validateTemplate({
      name: 'n',
      language: 'en',
      category: 'UTILITY',
      body: { text: 'B.' },
      buttons: [
        { type: 'QUICK_REPLY', text: 'ok' },
        { type: 'QUICK_REPLY', text: 'x' },
      ],
    });
    expect(issues.map((i) => i.message)).toEqual([
      'Button 2 text is 1 character; it must be 2 to 25 characters.',
    ]);
  });
});

describe('variables', () => {
  const body = (text: string, examples?: string[]) =>
    rulesOf(
      validateTemplate({
        name: 'n',
        language: 'en',
        category: 'UTILITY',
        body: examples ? { text, examples } : { text },
      }).issues,
    );

  it('count distinct variables, not occurrences', () => {
    expect(body('Hi {{1}} and {{1}} again.', ['Ann'])).toEqual([]);
    expect(body('Hi {{1}} and {{1}} again.', ['Ann', 'Ann'])).toEqual(['body.examples.count']);
    expect(body('Hi {{1}}, {{2}}.', ['Ann'])).toEqual(['body.examples.count']);
  });

  it('judge the first and last variable after trimming white space', () => {
    expect(body(' \n{{1}} hi', ['a'])).toEqual(['body.text.leading_variable']);
    expect(body('hi {{1}}\t ', ['a'])).toEqual(['body.text.trailing_variable']);
    // Double braces around anything but a number are their own issues, not silently plain text.
    expect(body('{hi} {{x}} {{}}')).toEqual(['body.variables.named', 'body.variables.invalid']);
  });

  it('treat examples without variables as a count mismatch', () => {
    expect(body('No variables.', ['stray'])).toEqual(['body.examples.count']);
    expect(body('No variables.', [])).toEqual([]);
  });
});

describe('assertValidTemplate', () => {
  it('throws TemplateValidationError carrying the same issues', () => {
    let caught: unknown;
    try {
      assertValidTemplate(broken);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(TemplateValidationError);
    expect(caught).toBeInstanceOf(WaGatewayError);
    const error = caught as TemplateValidationError;
    expect(error.issues).toEqual(validateTemplate(broken).issues);
    expect(error.message).toContain('name:');
    expect(error.message).toMatch(/and \d+ more/);
  });

  it('narrows a valid template', () => {
    const input: unknown = { name: 'ok', language: 'en', category: 'UTILITY', body: { text: 'Fine.' } };
    assertValidTemplate(input);
    expect(input.body.text).toBe('Fine.');
  });
});
