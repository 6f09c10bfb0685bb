import { didYouMean, LIMITS, LTO_BUTTON_TYPES, LTO_HEADER_FORMATS, maxLengthRule, rule } from './semantic.js';
import { present, type RuleContext, type TemplateRule } from './snapshot.js';
import { quote, where } from './text.js';

export function ltoRules(): TemplateRule[] {
  const lto = (ctx: RuleContext) => present(ctx, 'limitedTimeOffer');
  return [
    rule(
      'lto.category',
      'WA_TPL_048',
      'category',
      'A template with `limitedTimeOffer` has category MARKETING.',
      (ctx, emit) => {
        const category = ctx.root?.str('category');
        if (lto(ctx) && category && category !== 'MARKETING') {
          emit(['category'], `Limited-time offer templates must be MARKETING, not ${quote(category)}.`, {
            category: quote(category),
          });
        }
      },
    ),
    rule(
      'lto.body.text.required',
      'WA_TPL_049',
      'body.text',
      'With `limitedTimeOffer`, `body.text` is required and non-empty (replaces WA_TPL_027 for these templates).',
      (ctx, emit) => {
        if (lto(ctx) && ctx.root?.obj('body')?.missing('text')) {
          emit(['body', 'text'], 'Limited-time offer templates need a non-empty body text.');
        }
      },
    ),
    rule(
      'lto.header.format',
      'WA_TPL_050',
      'header.format',
      'With `limitedTimeOffer`, `header.format` is only NONE, IMAGE or VIDEO.',
      (ctx, emit) => {
        const format = ctx.root?.obj('header')?.get('format');
        if (lto(ctx) && typeof format === 'string' && format !== '' && !LTO_HEADER_FORMATS.has(format)) {
          emit(
            ['header', 'format'],
            `Header format ${quote(format)} is not allowed with a limited-time offer (only NONE, IMAGE, VIDEO)${didYouMean(format, LTO_HEADER_FORMATS)}.`,
            {
              format: quote(format),
            },
          );
        }
      },
    ),
    rule(
      'lto.footer.text',
      'WA_TPL_051',
      'footer.text',
      'With `limitedTimeOffer`, there is no `footer.text`.',
      (ctx, emit) => {
        if (lto(ctx) && ctx.root?.obj('footer')?.has('text')) {
          emit(['footer', 'text'], 'Limited-time offer templates have no footer text; remove it.');
        }
      },
    ),
    rule(
      'lto.carousel',
      'WA_TPL_052',
      'carousel',
      '`limitedTimeOffer` cannot be combined with `carousel`.',
      (ctx, emit) => {
        if (lto(ctx) && present(ctx, 'carousel')) {
          emit(['carousel'], 'A limited-time offer cannot be combined with a carousel; remove one of them.');
        }
      },
    ),
    rule(
      'lto.buttons.type',
      'WA_TPL_053',
      'buttons.type',
      'With `limitedTimeOffer`, buttons are only COPY_CODE or URL.',
      (ctx, emit) => {
        if (!lto(ctx)) return;
        for (const b of ctx.objects('buttons[]')) {
          const t = b.str('type');
          if (t !== undefined && t !== '' && !LTO_BUTTON_TYPES.has(t)) {
            emit(
              [...b.path, 'type'],
              `${where(b.path)} is a ${quote(t)} button; limited-time offers allow only COPY_CODE and URL${didYouMean(t, LTO_BUTTON_TYPES)}.`,
              { type: quote(t) },
            );
          }
        }
      },
    ),
    rule(
      'lto.buttons.copy_code_max',
      'WA_TPL_054',
      'buttons',
      'With `limitedTimeOffer`, at most one COPY_CODE button.',
      (ctx, emit) => {
        if (!lto(ctx)) return;
        const n = ctx.objects('buttons[]').filter((b) => b.get('type') === 'COPY_CODE').length;
        if (n > 1) {
          emit(
            ['buttons'],
            `The template has ${n} COPY_CODE buttons; a limited-time offer allows at most one.`,
            {
              max: 1,
              actual: n,
            },
          );
        }
      },
    ),
    rule(
      'lto.buttons.count',
      'WA_TPL_055',
      'buttons',
      `With \`limitedTimeOffer\`, at most ${LIMITS.ltoButtons} buttons in total.`,
      (ctx, emit) => {
        const list = ctx.root?.arr('buttons');
        if (lto(ctx) && list && list.length > LIMITS.ltoButtons) {
          emit(
            ['buttons'],
            `The template has ${list.length} buttons; a limited-time offer allows at most ${LIMITS.ltoButtons}.`,
            {
              max: LIMITS.ltoButtons,
              actual: list.length,
            },
          );
        }
      },
    ),
    maxLengthRule(
      'limitedTimeOffer.text.max_length',
      null,
      'limitedTimeOffer',
      'text',
      LIMITS.ltoText,
      'Limited-time offer `text` (banner; 1 to 16, the minimum being the required rule)',
    ),
  ];
}
