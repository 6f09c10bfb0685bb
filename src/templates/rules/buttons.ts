import { buttonScopeRules, hasExample } from './button-scope.js';
import {
  BUTTON_TYPES_BY_CATEGORY,
  CARD_BUTTON_TYPES,
  didYouMean,
  LIMITS,
  maxLengthRule,
  rule,
  VALID_BUTTON_TYPES,
} from './semantic.js';
import { type SArray, SObject, type TemplateRule } from './snapshot.js';
import { plural, quote, where } from './text.js';

export function buttonRules(): TemplateRule[] {
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
    ...buttonScopeRules(''),
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
    ...buttonScopeRules('carousel.'),
  ];
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
