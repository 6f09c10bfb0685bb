import {
  edgeVariableRule,
  LIMITS,
  malformedVariableRules,
  maxLengthRule,
  rule,
  sequenceRule,
} from './semantic.js';
import { present, SArray, type TemplateRule } from './snapshot.js';
import { plural, where } from './text.js';
import { scanVariables } from './variables.js';

export function bodyRules(): TemplateRule[] {
  const perScope = (p: string): TemplateRule[] => {
    const key = `${p}body`;
    return [
      edgeVariableRule(`${key}.text.leading_variable`, 'WA_TPL_011', key, 'start'),
      edgeVariableRule(`${key}.text.trailing_variable`, 'WA_TPL_012', key, 'end'),
      sequenceRule(p, 'body', () => true),
      ...malformedVariableRules(p, 'body', () => true),
      rule(
        `${key}.examples.missing`,
        'WA_TPL_013',
        `${key}.examples`,
        `\`${key}.text\` has variables but \`examples\` is missing or empty.`,
        (ctx, emit) => {
          for (const b of ctx.objects(key)) {
            const text = b.str('text');
            if (text === undefined) continue;
            const examples = b.get('examples');
            if (examples !== undefined && !(examples instanceof SArray && examples.length === 0)) continue;
            const variables = scanVariables(text).distinct.length;
            if (variables > 0) {
              emit(
                [...b.path, 'examples'],
                `${where(b.path)} text has ${plural(variables, 'variable')} but no examples; give one example per variable.`,
                { variables, examples: 0 },
              );
            }
          }
        },
      ),
      rule(
        `${key}.examples.count`,
        'WA_TPL_014',
        `${key}.examples`,
        `\`${key}.examples\`, when given, has exactly one entry per distinct variable of the text, in order.`,
        (ctx, emit) => {
          for (const b of ctx.objects(key)) {
            const examples = b.arr('examples');
            if (!examples || examples.length === 0 || (b.has('text') && b.str('text') === undefined))
              continue;
            const text = b.str('text');
            const scan = text === undefined ? undefined : scanVariables(text);
            // A malformed variable has its own issue; how many examples it meant cannot be told.
            if (scan && scan.malformed.length > 0) continue;
            const variables = scan?.distinct.length ?? 0;
            if (variables !== examples.length) {
              emit(
                [...b.path, 'examples'],
                `${where(b.path)} text has ${plural(variables, 'variable')} but ${plural(examples.length, 'example')} ${examples.length === 1 ? 'was' : 'were'} given; the counts must match.`,
                { variables, examples: examples.length },
              );
            }
          }
        },
      ),
      rule(
        `${key}.addSecurityRecommendation.category`,
        'WA_TPL_028',
        `${key}.addSecurityRecommendation`,
        '`addSecurityRecommendation` is allowed only in AUTHENTICATION templates (any value counts).',
        (ctx, emit) => {
          if (ctx.category === undefined || ctx.category === 'AUTHENTICATION') return;
          for (const b of ctx.objects(key)) {
            if (b.has('addSecurityRecommendation')) {
              emit(
                [...b.path, 'addSecurityRecommendation'],
                `${where(b.path)} addSecurityRecommendation is allowed only in AUTHENTICATION templates, not ${ctx.category}.`,
                { category: ctx.category },
              );
            }
          }
        },
      ),
    ];
  };
  return [
    rule(
      'body.text.required',
      'WA_TPL_027',
      'body.text',
      'UTILITY and MARKETING templates have a non-empty body text (with a limited-time offer, `lto.body.text.required` reports it instead).',
      (ctx, emit) => {
        const b = ctx.root?.obj('body');
        if ((ctx.category === 'UTILITY' || ctx.category === 'MARKETING') && b && b.missing('text')) {
          if (present(ctx, 'limitedTimeOffer')) return;
          emit(['body', 'text'], `${ctx.category} templates need a body text.`, { category: ctx.category });
        }
      },
    ),
    rule(
      'body.text.authentication',
      'WA_TPL_023',
      'body.text',
      'AUTHENTICATION templates have no body text (only `addSecurityRecommendation`).',
      (ctx, emit) => {
        if (ctx.category === 'AUTHENTICATION' && ctx.root?.obj('body')?.has('text')) {
          emit(['body', 'text'], 'AUTHENTICATION templates have no body text; the platform supplies it.');
        }
      },
    ),
    maxLengthRule('body.text.max_length', null, 'body', 'text', LIMITS.bodyText, 'Body text'),
    ...perScope(''),
    rule(
      'carousel.body.text.required',
      'WA_TPL_044',
      'carousel.body.text',
      'Each card body has a non-empty text.',
      (ctx, emit) => {
        for (const b of ctx.objects('carousel.body')) {
          if (b.missing('text')) emit([...b.path, 'text'], `${where(b.path)} needs a text.`);
        }
      },
    ),
    maxLengthRule(
      'carousel.body.text.max_length',
      'WA_TPL_045',
      'carousel.body',
      'text',
      LIMITS.cardBodyText,
      'Card body text',
    ),
    ...perScope('carousel.'),
  ];
}
