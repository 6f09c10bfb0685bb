import {
  CARD_FORMATS,
  didYouMean,
  edgeVariableRule,
  hasHandle,
  isText,
  LIMITS,
  MEDIA_FORMATS,
  malformedVariableRules,
  maxLengthRule,
  rule,
  sequenceRule,
} from './semantic.js';
import type { TemplateRule } from './snapshot.js';
import { plural, quote, where } from './text.js';
import { scanVariables } from './variables.js';

export function headerRules(): TemplateRule[] {
  const textNotAllowed = (
    id: string,
    code: string | null,
    key: string,
    formats: ReadonlySet<string>,
    label: string,
  ): TemplateRule =>
    rule(id, code, `${key}.text`, `\`${key}.text\` is not allowed on a ${label} header.`, (ctx, emit) => {
      for (const h of ctx.objects(key)) {
        const format = h.get('format');
        if (typeof format === 'string' && formats.has(format) && h.has('text')) {
          emit(
            [...h.path, 'text'],
            `${where(h.path)} has format ${format}, which takes no text; remove the text.`,
            {
              format,
            },
          );
        }
      }
    });
  const perScope = (p: string): TemplateRule[] => [
    textNotAllowed(
      `${p}header.text.media`,
      'WA_TPL_010',
      `${p}header`,
      MEDIA_FORMATS,
      'media (IMAGE, VIDEO, DOCUMENT)',
    ),
    textNotAllowed(`${p}header.text.location`, 'WA_TPL_021', `${p}header`, new Set(['LOCATION']), 'LOCATION'),
    textNotAllowed(`${p}header.text.none`, null, `${p}header`, new Set(['NONE']), 'NONE'),
  ];
  return [
    rule(
      'header.authentication',
      null,
      'header',
      'AUTHENTICATION templates have no header (omit it, or use format NONE).',
      (ctx, emit) => {
        const h = ctx.root?.obj('header');
        if (ctx.category === 'AUTHENTICATION' && h && h.get('format') !== 'NONE') {
          emit(['header'], 'AUTHENTICATION templates have no header; remove it.');
        }
      },
    ),
    rule(
      'header.text.required',
      null,
      'header.text',
      'A TEXT header has a non-empty `text`.',
      (ctx, emit) => {
        for (const h of ctx.objects('header')) {
          if (isText(h) && h.missing('text'))
            emit([...h.path, 'text'], 'Header has format TEXT but no text.');
        }
      },
    ),
    maxLengthRule('header.text.max_length', null, 'header', 'text', LIMITS.headerText, 'Header text', isText),
    edgeVariableRule('header.text.leading_variable', 'WA_TPL_008', 'header', 'start', isText),
    edgeVariableRule('header.text.trailing_variable', 'WA_TPL_009', 'header', 'end', isText),
    sequenceRule('', 'header', isText),
    ...malformedVariableRules('', 'header', isText),
    ...perScope(''),
    rule(
      'header.examples.count',
      null,
      'header.examples',
      'A TEXT header has exactly one example per distinct variable in its text (none when it has no variable).',
      (ctx, emit) => {
        for (const h of ctx.objects('header')) {
          const text = h.str('text');
          if (!isText(h) || text === undefined || (h.has('examples') && !h.arr('examples'))) continue;
          const scan = scanVariables(text);
          // A malformed variable has its own issue; how many examples it meant cannot be told.
          if (scan.malformed.length > 0) continue;
          const variables = scan.distinct.length;
          const examples = h.arr('examples')?.length ?? 0;
          if (variables !== examples) {
            emit(
              [...h.path, 'examples'],
              `Header text has ${plural(variables, 'variable')} but ${plural(examples, 'example')}; give one example per variable.`,
              { variables, examples },
            );
          }
        }
      },
    ),
    rule(
      'header.examples.media_handle',
      null,
      'header.examples',
      'An IMAGE, VIDEO or DOCUMENT header carries the media handle from the media upload in `examples`.',
      (ctx, emit) => {
        for (const h of ctx.objects('header')) {
          const format = h.get('format');
          if (typeof format !== 'string' || !MEDIA_FORMATS.has(format) || hasHandle(h)) continue;
          if (h.has('examples') && !h.arr('examples')) continue;
          emit(
            [...h.path, 'examples'],
            `Header has format ${format} but no media handle in examples; upload the media and pass its handle.`,
            { format },
          );
        }
      },
    ),
    // Card headers: the carousel table's own codes, plus the header text rules that apply to any header.
    rule(
      'carousel.header.format.media',
      'WA_TPL_042',
      'carousel.header.format',
      'A card header has format IMAGE or VIDEO.',
      (ctx, emit) => {
        for (const h of ctx.objects('carousel.header')) {
          const format = h.get('format');
          if (typeof format === 'string' && format !== '' && !CARD_FORMATS.has(format)) {
            emit(
              [...h.path, 'format'],
              `${where(h.path)} has format ${quote(format)}; a card header must be IMAGE or VIDEO${didYouMean(format, CARD_FORMATS)}.`,
              { format: quote(format) },
            );
          }
        }
      },
    ),
    rule(
      'carousel.header.format.same',
      'WA_TPL_040',
      'carousel.header.format',
      'All cards use the same header format (all IMAGE or all VIDEO); each card is compared with the first card whose format is valid.',
      (ctx, emit) => {
        let first: string | undefined;
        for (const h of ctx.objects('carousel.header')) {
          const format = h.get('format');
          if (typeof format !== 'string' || !CARD_FORMATS.has(format)) continue;
          if (first === undefined) first = format;
          else if (format !== first) {
            emit(
              [...h.path, 'format'],
              `${where(h.path)} has format ${format} but an earlier card uses ${first}; all cards must use the same header format.`,
              { format, expected: first },
            );
          }
        }
      },
    ),
    rule(
      'carousel.header.examples.media_handle',
      'WA_TPL_043',
      'carousel.header.examples',
      'A card header carries its own media handle in `examples` (one upload per card).',
      (ctx, emit) => {
        for (const h of ctx.objects('carousel.header')) {
          const format = h.get('format');
          if (typeof format !== 'string' || !CARD_FORMATS.has(format) || hasHandle(h)) continue;
          if (h.has('examples') && !h.arr('examples')) continue;
          emit(
            [...h.path, 'examples'],
            `${where(h.path)} has no media handle in examples; each card needs its own.`,
          );
        }
      },
    ),
    rule(
      'carousel.header.examples.distinct',
      null,
      'carousel.header.examples',
      'Each card has its own media handle: handles are single-use, one upload per card, so no two cards share one.',
      (ctx, emit) => {
        const seen = new Map<string, string>(); // handle → the first card holding it, named for a person
        for (const h of ctx.objects('carousel.header')) {
          const handle = h.arr('examples')?.items.find((e): e is string => typeof e === 'string' && e !== '');
          if (handle === undefined) continue;
          const earlier = seen.get(handle);
          if (earlier === undefined) seen.set(handle, where(h.path.slice(0, 2)).toLowerCase());
          else {
            emit(
              [...h.path, 'examples'],
              `${where(h.path)} reuses the media handle of ${earlier}; upload the media once per card.`,
              { handle: quote(handle) },
            );
          }
        }
      },
    ),
    ...perScope('carousel.'),
  ];
}
