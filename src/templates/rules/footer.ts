import { LIMITS, maxLengthRule, rule } from './semantic.js';
import type { TemplateRule } from './snapshot.js';

export function footerRules(): TemplateRule[] {
  return [
    maxLengthRule('footer.text.max_length', null, 'footer', 'text', LIMITS.footerText, 'Footer text'),
    rule(
      'footer.text.authentication',
      'WA_TPL_024',
      'footer.text',
      'AUTHENTICATION templates have no footer text (only `codeExpirationMinutes`).',
      (ctx, emit) => {
        if (ctx.category === 'AUTHENTICATION' && ctx.root?.obj('footer')?.has('text')) {
          emit(
            ['footer', 'text'],
            'AUTHENTICATION templates have no footer text; use codeExpirationMinutes.',
          );
        }
      },
    ),
    rule(
      'footer.codeExpirationMinutes.category',
      'WA_TPL_029',
      'footer.codeExpirationMinutes',
      '`codeExpirationMinutes` is allowed only in AUTHENTICATION templates. The spec gives WA_TPL_029 for "1 to 90; AUTHENTICATION only"; the code sits in the category range (022–033) and parallels WA_TPL_028, so it is used for the category rule and the range has its own code-less rule.',
      (ctx, emit) => {
        if (ctx.category === undefined || ctx.category === 'AUTHENTICATION') return;
        if (ctx.root?.obj('footer')?.has('codeExpirationMinutes')) {
          emit(
            ['footer', 'codeExpirationMinutes'],
            `Footer codeExpirationMinutes is allowed only in AUTHENTICATION templates, not ${ctx.category}.`,
            { category: ctx.category },
          );
        }
      },
    ),
    rule(
      'footer.codeExpirationMinutes.range',
      null,
      'footer.codeExpirationMinutes',
      '`codeExpirationMinutes` is 1 to 90 (the spec names no separate code for the range; see the category rule).',
      (ctx, emit) => {
        const v = ctx.root?.obj('footer')?.int('codeExpirationMinutes');
        const { min, max } = LIMITS.codeExpirationMinutes;
        if (v !== undefined && (v < min || v > max)) {
          emit(
            ['footer', 'codeExpirationMinutes'],
            `Footer codeExpirationMinutes is ${v}; it must be ${min} to ${max}.`,
            {
              min,
              max,
              actual: v,
            },
          );
        }
      },
    ),
  ];
}
