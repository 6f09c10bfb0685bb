import { LIMITS, rule } from './semantic.js';
import { present, SObject, type TemplateRule } from './snapshot.js';
import { plural, quote } from './text.js';

export function carouselRules(): TemplateRule[] {
  return [
    rule(
      'carousel.category',
      'WA_TPL_035',
      'category',
      'A template with `carousel` has category MARKETING.',
      (ctx, emit) => {
        const category = ctx.root?.str('category');
        if (present(ctx, 'carousel') && category && category !== 'MARKETING') {
          emit(['category'], `Carousel templates must be MARKETING, not ${quote(category)}.`, {
            category: quote(category),
          });
        }
      },
    ),
    rule(
      'carousel.top_level.header',
      'WA_TPL_036',
      'header',
      'With `carousel`, there is no top-level `header` (omit it, or use format NONE).',
      (ctx, emit) => {
        const h = ctx.root?.get('header');
        if (present(ctx, 'carousel') && h instanceof SObject && h.get('format') !== 'NONE') {
          emit(['header'], 'Carousel templates have no top-level header; each card has its own.');
        }
      },
    ),
    rule(
      'carousel.top_level.footer',
      'WA_TPL_037',
      'footer',
      'With `carousel`, there is no top-level `footer`.',
      (ctx, emit) => {
        if (present(ctx, 'carousel') && present(ctx, 'footer')) {
          emit(['footer'], 'Carousel templates have no top-level footer; remove it.');
        }
      },
    ),
    rule(
      'carousel.top_level.buttons',
      'WA_TPL_038',
      'buttons',
      'With `carousel`, there are no top-level `buttons` (even an empty list). This is also the Button table\'s "not allowed together with carousel".',
      (ctx, emit) => {
        if (present(ctx, 'carousel') && present(ctx, 'buttons')) {
          emit(['buttons'], 'Carousel templates have no top-level buttons; put buttons on the cards.');
        }
      },
    ),
    rule(
      'carousel.cards.count',
      'WA_TPL_039',
      'carousel',
      `A carousel has ${LIMITS.cards.min} to ${LIMITS.cards.max} cards.`,
      (ctx, emit) => {
        const list = ctx.root?.arr('carousel');
        const { min, max } = LIMITS.cards;
        if (list && (list.length < min || list.length > max)) {
          emit(['carousel'], `The carousel has ${plural(list.length, 'card')}; it needs ${min} to ${max}.`, {
            min,
            max,
            actual: list.length,
          });
        }
      },
    ),
  ];
}
