/**
 * "Adding a template rule", replayed for `footer.text.test_only_marker` (a rule invented for this test, in the copy
 * only, with no spec code): a footer text holding `TEST_ONLY_MARKER` is refused.
 */
import { after, before, type WalkThrough } from './replay.js';

const RULE = 'footer.text.test_only_marker';

const rule = `    rule(
      '${RULE}',
      null,
      'footer.text',
      'Test only (the CONTRIBUTING walk-through replay): footer text may not hold TEST_ONLY_MARKER.',
      (ctx, emit) => {
        const text = ctx.root?.obj('footer')?.str('text');
        if (text?.includes('TEST_ONLY_MARKER')) emit(['footer', 'text'], 'Footer text holds TEST_ONLY_MARKER.');
      },
    ),`;

const proof = `import { expect, it } from 'vitest';
import { templateRules, validateTemplate } from '../../src/templates/index.js';

it('validateTemplate reports the new rule, and the table lists it', () => {
  const template = {
    name: 'order_update',
    language: 'en_US',
    category: 'UTILITY',
    body: { text: 'Your order {{1}} has shipped.', examples: ['#1234'] },
    footer: { text: 'TEST_ONLY_MARKER here' },
  };
  const { issues } = validateTemplate(template);
  expect(issues.map((i) => [i.rule, i.code, i.field, i.path])).toEqual([
    ['${RULE}', null, 'footer.text', ['footer', 'text']],
  ]);
  expect(validateTemplate({ ...template, footer: { text: 'Thanks' } }).issues).toEqual([]);
  expect(templateRules.map((r) => r.id)).toContain('${RULE}');
});
`;

export const templateRule: WalkThrough = {
  section: 'Adding a template rule',
  steps: [
    {
      guide: 'Rules are written per component in `src/templates/rules/`',
      file: 'src/templates/rules/footer.ts',
      // At the end of footerRules()'s array, the last place in the footer's order.
      edit: before('  ];', rule),
    },
    {
      guide: 'add a case to `test/templates/rules.test.ts`',
      file: 'test/templates/rules.test.ts',
      edit: after(
        'const nullCases: Case[] = [',
        `  c('${RULE}', null, make(utility, set(['footer'], { text: 'TEST_ONLY_MARKER' })), ['footer', 'text']),`,
      ),
    },
  ],
  commands: [
    { guide: 'Then run `npm run docs:template-rules`', command: ['npm', 'run', 'docs:template-rules'] },
  ],
  tests: ['test/templates/rules.test.ts', 'test/templates/docs.test.ts'],
  newTests: [RULE],
  proof: { file: 'test/walk-through-proofs/template-rule.test.ts', code: proof },
};
