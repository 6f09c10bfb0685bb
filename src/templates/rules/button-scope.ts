import { E164, LIMITS, rule, TEXT_REQUIRED_TYPES, VALID_BUTTON_TYPES } from './semantic.js';
import type { SObject, TemplateRule } from './snapshot.js';
import { charCount, chars, plural, quote, where } from './text.js';
import { scanVariables } from './variables.js';

/**
 * The button rules that apply wherever a buttons list is: the template's own (`p` = '') and each carousel card's
 * (`p` = 'carousel.'). Each scope's rule ids and fields carry its prefix.
 */
export function buttonScopeRules(p: string): TemplateRule[] {
  const key = `${p}buttons[]`;
  const field = `${p}buttons`;
  const type = (b: SObject) => b.str('type');
  return [
    rule(
      `${field}.text.required`,
      'WA_TPL_015',
      `${field}.text`,
      'QUICK_REPLY, URL and PHONE_NUMBER buttons have a non-empty `text`.',
      (ctx, emit) => {
        for (const b of ctx.objects(key)) {
          const t = type(b);
          if (t !== undefined && TEXT_REQUIRED_TYPES.has(t) && b.missing('text')) {
            emit([...b.path, 'text'], `${where(b.path)} is a ${t} button and needs a text.`, { type: t });
          }
        }
      },
    ),
    rule(
      `${field}.text.length`,
      null,
      `${field}.text`,
      `Button text is ${LIMITS.buttonText.min} to ${LIMITS.buttonText.max} characters (code points).`,
      (ctx, emit) => {
        const { min, max } = LIMITS.buttonText;
        for (const b of ctx.objects(key)) {
          const text = b.str('text');
          if (text === undefined) continue;
          const t = type(b);
          if (text === '' && t !== undefined && TEXT_REQUIRED_TYPES.has(t)) continue;
          const actual = charCount(text);
          if (actual >= min && actual <= max) continue;
          emit(
            [...b.path, 'text'],
            `${where(b.path)} text is ${chars(actual)}; it must be ${min} to ${max} characters.`,
            { min, max, actual },
          );
        }
      },
    ),
    rule(`${field}.url.required`, 'WA_TPL_001', `${field}.url`, 'URL buttons have a `url`.', (ctx, emit) => {
      for (const b of ctx.objects(key)) {
        if (type(b) === 'URL' && b.missing('url'))
          emit([...b.path, 'url'], `${where(b.path)} is a URL button and needs a url.`);
      }
    }),
    rule(
      `${field}.url.with_phone_number`,
      'WA_TPL_002',
      `${field}.url`,
      '`url` cannot be combined with `phoneNumber`; reported on `url` when the button is not a URL button (on a URL button the `phoneNumber` is the intruder, WA_TPL_004).',
      (ctx, emit) => {
        for (const b of ctx.objects(key)) {
          if (b.has('url') && b.has('phoneNumber') && type(b) !== 'URL') {
            emit([...b.path, 'url'], `${where(b.path)} has both a url and a phoneNumber; keep only one.`);
          }
        }
      },
    ),
    rule(
      `${field}.url.type`,
      null,
      `${field}.url`,
      '`url` is allowed on URL buttons only (without a `phoneNumber`; with one, WA_TPL_002 reports it).',
      (ctx, emit) => {
        for (const b of ctx.objects(key)) {
          const t = type(b);
          if (
            b.has('url') &&
            !b.has('phoneNumber') &&
            t !== undefined &&
            VALID_BUTTON_TYPES.has(t) &&
            t !== 'URL'
          ) {
            emit([...b.path, 'url'], `${where(b.path)} is a ${t} button; only URL buttons take a url.`, {
              type: t,
            });
          }
        }
      },
    ),
    rule(
      `${field}.url.https`,
      null,
      `${field}.url`,
      'A button `url` starts with `https://`.',
      (ctx, emit) => {
        for (const b of ctx.objects(key)) {
          const url = b.str('url');
          if (type(b) === 'URL' && url && !url.startsWith('https://')) {
            emit([...b.path, 'url'], `${where(b.path)} url ${quote(url)} must start with https://.`, {
              value: quote(url),
            });
          }
        }
      },
    ),
    rule(
      `${field}.url.variable`,
      null,
      `${field}.url`,
      'A button `url` has no variable, or exactly one `{{1}}` at its very end (a dynamic URL).',
      (ctx, emit) => {
        for (const b of ctx.objects(key)) {
          const url = b.str('url');
          if (type(b) !== 'URL' || !url) continue;
          const scan = scanVariables(url);
          if (scan.occurrences === 0 || (scan.occurrences === 1 && url.endsWith('{{1}}'))) continue;
          emit(
            [...b.path, 'url'],
            `${where(b.path)} url has ${plural(scan.occurrences, 'variable')}; a dynamic url may only end in {{1}}.`,
            { variables: scan.occurrences },
          );
        }
      },
    ),
    rule(
      `${field}.example.dynamic_url`,
      null,
      `${field}.example`,
      'A URL button whose url ends in `{{1}}` has a non-empty `example` (the example URL suffix).',
      (ctx, emit) => {
        for (const b of ctx.objects(key)) {
          const url = b.str('url');
          if (type(b) !== 'URL' || !url?.endsWith('{{1}}') || hasExample(b)) continue;
          if (b.has('example') && !b.arr('example')) continue;
          emit([...b.path, 'example'], `${where(b.path)} has a dynamic url ending in {{1}} but no example.`);
        }
      },
    ),
    rule(
      `${field}.phoneNumber.required`,
      'WA_TPL_003',
      `${field}.phoneNumber`,
      'PHONE_NUMBER buttons have a `phoneNumber`.',
      (ctx, emit) => {
        for (const b of ctx.objects(key)) {
          if (type(b) === 'PHONE_NUMBER' && b.missing('phoneNumber')) {
            emit(
              [...b.path, 'phoneNumber'],
              `${where(b.path)} is a PHONE_NUMBER button and needs a phoneNumber.`,
            );
          }
        }
      },
    ),
    rule(
      `${field}.phoneNumber.with_url`,
      'WA_TPL_004',
      `${field}.phoneNumber`,
      '`phoneNumber` cannot be combined with `url`; reported on `phoneNumber` when the button is not a PHONE_NUMBER button.',
      (ctx, emit) => {
        for (const b of ctx.objects(key)) {
          if (b.has('url') && b.has('phoneNumber') && type(b) !== 'PHONE_NUMBER') {
            emit(
              [...b.path, 'phoneNumber'],
              `${where(b.path)} has both a phoneNumber and a url; keep only one.`,
            );
          }
        }
      },
    ),
    rule(
      `${field}.phoneNumber.type`,
      null,
      `${field}.phoneNumber`,
      '`phoneNumber` is allowed on PHONE_NUMBER buttons only (without a `url`; with one, WA_TPL_004 reports it).',
      (ctx, emit) => {
        for (const b of ctx.objects(key)) {
          const t = type(b);
          if (
            b.has('phoneNumber') &&
            !b.has('url') &&
            t !== undefined &&
            VALID_BUTTON_TYPES.has(t) &&
            t !== 'PHONE_NUMBER'
          ) {
            emit(
              [...b.path, 'phoneNumber'],
              `${where(b.path)} is a ${t} button; only PHONE_NUMBER buttons take a phoneNumber.`,
              {
                type: t,
              },
            );
          }
        }
      },
    ),
    rule(
      `${field}.phoneNumber.e164`,
      null,
      `${field}.phoneNumber`,
      'A button `phoneNumber` is in E.164 form: up to 15 digits, no leading zero, optional leading `+`.',
      (ctx, emit) => {
        for (const b of ctx.objects(key)) {
          const phone = b.str('phoneNumber');
          if (type(b) !== 'PHONE_NUMBER' || !phone) continue;
          if (phone.length <= 16 && E164.test(phone)) continue;
          emit(
            [...b.path, 'phoneNumber'],
            `${where(b.path)} phoneNumber ${quote(phone)} is not in E.164 form (like +15551234567).`,
            { value: quote(phone) },
          );
        }
      },
    ),
  ];
}

export function hasExample(b: SObject): boolean {
  const example = b.arr('example');
  return example?.items.some((e) => typeof e === 'string' && e !== '') === true;
}
