import {
  BUTTON_TYPES_BY_CATEGORY,
  CARD_BUTTON_TYPES,
  didYouMean,
  E164,
  LIMITS,
  maxLengthRule,
  rule,
  TEXT_REQUIRED_TYPES,
  VALID_BUTTON_TYPES,
} from './semantic.js';
import { type SArray, SObject, type TemplateRule } from './snapshot.js';
import { charCount, chars, plural, quote, scanVariables, where } from './text.js';

export function buttonRules(): TemplateRule[] {
  const perScope = (p: string): TemplateRule[] => {
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
      rule(
        `${field}.url.required`,
        'WA_TPL_001',
        `${field}.url`,
        'URL buttons have a `url`.',
        (ctx, emit) => {
          for (const b of ctx.objects(key)) {
            if (type(b) === 'URL' && b.missing('url'))
              emit([...b.path, 'url'], `${where(b.path)} is a URL button and needs a url.`);
          }
        },
      ),
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
            emit(
              [...b.path, 'example'],
              `${where(b.path)} has a dynamic url ending in {{1}} but no example.`,
            );
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
  };

  const otp = (b: SObject) => b.str('type') === 'OTP';
  const appOtp = (b: SObject) =>
    otp(b) && (b.get('otpType') === 'ONE_TAP' || b.get('otpType') === 'ZERO_TAP');
  const requiredForAppOtp = (leaf: string, code: string): TemplateRule =>
    rule(
      `buttons.${leaf}.required`,
      code,
      `buttons.${leaf}`,
      `ONE_TAP and ZERO_TAP OTP buttons have a non-empty \`${leaf}\`.`,
      (ctx, emit) => {
        for (const b of ctx.objects('buttons[]')) {
          if (appOtp(b) && b.missing(leaf)) {
            emit(
              [...b.path, leaf],
              `${where(b.path)} is a ${String(b.get('otpType'))} OTP button and needs a ${leaf}.`,
            );
          }
        }
      },
    );

  return [
    rule(
      'buttons.count',
      null,
      'buttons',
      `At most ${LIMITS.buttons} buttons per template (a limited-time offer lowers it to 2, \`lto.buttons.count\`).`,
      (ctx, emit) => {
        const list = ctx.root?.arr('buttons');
        if (list && list.length > LIMITS.buttons) {
          emit(['buttons'], `The template has ${list.length} buttons; the maximum is ${LIMITS.buttons}.`, {
            max: LIMITS.buttons,
            actual: list.length,
          });
        }
      },
    ),
    rule(
      'buttons.type.category',
      null,
      'buttons.type',
      'Button types allowed by category: AUTHENTICATION only OTP; UTILITY neither OTP nor COPY_CODE; MARKETING anything but OTP.',
      (ctx, emit) => {
        const category = ctx.category;
        if (category === undefined) return;
        const allowed = BUTTON_TYPES_BY_CATEGORY[category];
        for (const b of ctx.objects('buttons[]')) {
          const t = b.str('type');
          if (t !== undefined && VALID_BUTTON_TYPES.has(t) && !allowed.has(t)) {
            emit(
              [...b.path, 'type'],
              `${where(b.path)} is a ${t} button, which ${category} templates do not allow (allowed: ${[...allowed].join(', ')}).`,
              { type: t, category },
            );
          }
        }
      },
    ),
    ...perScope(''),
    rule(
      'buttons.example.copy_code',
      'WA_TPL_016',
      'buttons.example',
      'COPY_CODE buttons carry the coupon code in a non-empty `example`.',
      (ctx, emit) => {
        for (const b of ctx.objects('buttons[]')) {
          if (b.str('type') !== 'COPY_CODE' || hasExample(b) || (b.has('example') && !b.arr('example')))
            continue;
          emit(
            [...b.path, 'example'],
            `${where(b.path)} is a COPY_CODE button and needs the coupon code in example.`,
          );
        }
      },
    ),
    rule(
      'buttons.otpType.required',
      'WA_TPL_017',
      'buttons.otpType',
      'OTP buttons have an `otpType`.',
      (ctx, emit) => {
        for (const b of ctx.objects('buttons[]')) {
          if (otp(b) && b.missing('otpType')) {
            emit(
              [...b.path, 'otpType'],
              `${where(b.path)} is an OTP button and needs an otpType (COPY_CODE, ONE_TAP or ZERO_TAP).`,
            );
          }
        }
      },
    ),
    maxLengthRule(
      'buttons.autofillText.max_length',
      null,
      'buttons[]',
      'autofillText',
      LIMITS.autofillText,
      'A button `autofillText`',
    ),
    requiredForAppOtp('packageName', 'WA_TPL_018'),
    requiredForAppOtp('signatureHash', 'WA_TPL_019'),
    rule(
      'buttons.zeroTapTermsAccepted.required',
      'WA_TPL_020',
      'buttons.zeroTapTermsAccepted',
      'ZERO_TAP OTP buttons have `zeroTapTermsAccepted: true`.',
      (ctx, emit) => {
        for (const b of ctx.objects('buttons[]')) {
          const v = b.get('zeroTapTermsAccepted');
          if (otp(b) && b.get('otpType') === 'ZERO_TAP' && (v === undefined || v === false)) {
            emit(
              [...b.path, 'zeroTapTermsAccepted'],
              `${where(b.path)} is a ZERO_TAP OTP button; zeroTapTermsAccepted must be true.`,
            );
          }
        }
      },
    ),
    rule(
      'carousel.buttons.count',
      null,
      'carousel.buttons',
      `Each card has ${LIMITS.cardButtons.min} to ${LIMITS.cardButtons.max} buttons.`,
      (ctx, emit) => {
        const { min, max } = LIMITS.cardButtons;
        for (const list of ctx.arrays('carousel.buttons')) {
          if (list.length < min || list.length > max) {
            emit(
              list.path,
              `${where(list.path)} has ${plural(list.length, 'button')}; a card needs ${min} to ${max}.`,
              {
                min,
                max,
                actual: list.length,
              },
            );
          }
        }
      },
    ),
    rule(
      'carousel.buttons.type.allowed',
      'WA_TPL_046',
      'carousel.buttons.type',
      'Card buttons are only QUICK_REPLY, URL or PHONE_NUMBER.',
      (ctx, emit) => {
        for (const b of ctx.objects('carousel.buttons[]')) {
          const t = b.str('type');
          if (t !== undefined && t !== '' && !CARD_BUTTON_TYPES.has(t)) {
            emit(
              [...b.path, 'type'],
              `${where(b.path)} is a ${quote(t)} button; cards allow only QUICK_REPLY, URL and PHONE_NUMBER${didYouMean(t, CARD_BUTTON_TYPES)}.`,
              { type: quote(t) },
            );
          }
        }
      },
    ),
    rule(
      'carousel.buttons.types.same',
      'WA_TPL_041',
      'carousel.buttons',
      'All cards have the same button types in the same order; each card is compared with the first card whose buttons are all valid card buttons.',
      (ctx, emit) => {
        let first: string[] | undefined;
        for (const list of ctx.arrays('carousel.buttons')) {
          const types = cardButtonTypes(list);
          if (types === undefined) continue;
          if (first === undefined) first = types;
          else if (types.join(',') !== first.join(',')) {
            emit(
              list.path,
              `${where(list.path)} are [${types.join(', ')}] but an earlier card has [${first.join(', ')}]; all cards need the same button types in the same order.`,
              { types, expected: first },
            );
          }
        }
      },
    ),
    ...perScope('carousel.'),
  ];
}

function hasExample(b: SObject): boolean {
  const example = b.arr('example');
  return example?.items.some((e) => typeof e === 'string' && e !== '') === true;
}

/** The card's button types when every button is a valid card button, else undefined (not compared). */
function cardButtonTypes(list: SArray): string[] | undefined {
  const types: string[] = [];
  for (const item of list.items) {
    const t = item instanceof SObject ? item.str('type') : undefined;
    if (t === undefined || !CARD_BUTTON_TYPES.has(t)) return undefined;
    types.push(t);
  }
  return types.length === list.length ? types : undefined;
}
