/**
 * Template validation cost: `validateTemplate` (every rule of the table, document-ordered issues, hostile-input
 * guards) against a bare zod structural `safeParse` of the same full MARKETING template. Informational: the
 * figure says what the semantic rules cost on top of a type check; there is no bar in DESIGN.md.
 *
 * Run: `npx tsx bench/validate.bench.ts`
 */
import { validateTemplate } from '../src/templates/index.js';
import { TemplateCreateRequestSchema } from '../src/templates/schema.js';
import { compare, report, round } from './lib.js';

const template = {
  name: 'spring_sale_2025',
  language: 'en_US',
  category: 'MARKETING',
  header: { format: 'TEXT', text: 'Spring sale for {{1}} today', examples: ['members'] },
  body: {
    text: 'Hi {{1}}, everything in {{2}} is {{3}} off until Sunday. Show this message at the till.',
    examples: ['Ann', 'Garden', '30%'],
  },
  footer: { text: 'Reply STOP to opt out' },
  buttons: [
    { type: 'URL', text: 'Shop now', url: 'https://shop.example.com/sale/{{1}}', example: ['spring'] },
    { type: 'COPY_CODE', example: ['SPRING30'] },
    { type: 'QUICK_REPLY', text: 'Not interested' },
  ],
  allowCategoryChange: false,
  messageSendTtlSeconds: 86_400,
} as const;

// Both sides must accept the template, or the comparison would time an early exit.
if (!validateTemplate(template).valid || !TemplateCreateRequestSchema.safeParse(template).success) {
  throw new Error('bench template is not valid');
}

let sink = 0;
const { ratio, subjectMs, baselineMs } = await compare(
  () => {
    sink += validateTemplate(template).issues.length;
  },
  () => {
    sink += TemplateCreateRequestSchema.safeParse(template).success ? 0 : 1;
  },
  { iterations: 5000, rounds: 9 },
);

report({
  bench: 'validate',
  metric: 'validateTemplate vs zod structural safeParse, full MARKETING template (time ratio)',
  value: ratio,
  unit: 'x',
  bar: 'informational',
  pass: true,
  detail: {
    validateTemplateMsPerOp: round(subjectMs, 5),
    zodSafeParseMsPerOp: round(baselineMs, 5),
    validateTemplateOpsPerSec: Math.round(1000 / subjectMs),
    zodSafeParseOpsPerSec: Math.round(1000 / baselineMs),
    sink,
  },
});
