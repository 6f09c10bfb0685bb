import type { TemplateCategory } from '../schema.js';
import { BUTTON_TYPES } from '../vocabulary.js';
import type { SObject, TemplateRule } from './snapshot.js';
import { charCount, chars, enumHint, where } from './text.js';
import {
  endsWithVariable,
  type MalformedKind,
  type MalformedVariable,
  scanVariables,
  startsWithVariable,
} from './variables.js';

// ---------------------------------------------------------------------------------------------------------
// Semantic rules.

export const MEDIA_FORMATS: ReadonlySet<string> = new Set(['IMAGE', 'VIDEO', 'DOCUMENT']);
export const CARD_FORMATS: ReadonlySet<string> = new Set(['IMAGE', 'VIDEO']);
export const LTO_HEADER_FORMATS: ReadonlySet<string> = new Set(['NONE', 'IMAGE', 'VIDEO']);
export const VALID_BUTTON_TYPES: ReadonlySet<string> = new Set(BUTTON_TYPES);
export const TEXT_REQUIRED_TYPES: ReadonlySet<string> = new Set(['QUICK_REPLY', 'URL', 'PHONE_NUMBER']);
export const CARD_BUTTON_TYPES: ReadonlySet<string> = new Set(['QUICK_REPLY', 'URL', 'PHONE_NUMBER']);
export const LTO_BUTTON_TYPES: ReadonlySet<string> = new Set(['COPY_CODE', 'URL']);
export const BUTTON_TYPES_BY_CATEGORY: Readonly<Record<TemplateCategory, ReadonlySet<string>>> = {
  AUTHENTICATION: new Set(['OTP']),
  UTILITY: new Set(['QUICK_REPLY', 'URL', 'PHONE_NUMBER']),
  MARKETING: new Set(['QUICK_REPLY', 'URL', 'PHONE_NUMBER', 'COPY_CODE']),
};
export const TTL_RANGES: Readonly<Record<TemplateCategory, { min: number; max: number; also?: number }>> = {
  UTILITY: { min: 30, max: 43_200 },
  MARKETING: { min: 43_200, max: 2_592_000 },
  AUTHENTICATION: { min: 30, max: 900, also: -1 },
};
export const NAME_PATTERN = /^[a-z][a-z0-9_]*$/;
// E.164: up to 15 digits, no leading zero; the leading '+' is optional because both forms are common input.
export const E164 = /^\+?[1-9]\d{1,14}$/;
export const LIMITS = {
  name: 512,
  headerText: 60,
  bodyText: 1024,
  cardBodyText: 160,
  footerText: 60,
  buttonText: { min: 2, max: 25 },
  autofillText: 25,
  buttons: 10,
  cards: { min: 2, max: 10 },
  cardButtons: { min: 1, max: 2 },
  ltoText: 16,
  ltoButtons: 2,
  codeExpirationMinutes: { min: 1, max: 90 },
} as const;

/** ` (did you mean X?)` when the value is an allowed one written in another case, else ''. */
export function didYouMean(value: string, allowed: ReadonlySet<string>): string {
  const hint = enumHint(value, [...allowed]);
  return hint ? ` (did you mean ${hint}?)` : '';
}

export function rule(
  id: string,
  code: string | null,
  field: string,
  description: string,
  check: TemplateRule['check'],
): TemplateRule {
  return { id, code, field, description, check };
}

/** A media handle is there: `examples` is a list with at least one non-empty string. */
export function hasHandle(node: SObject): boolean {
  const examples = node.arr('examples');
  return examples?.items.some((e) => typeof e === 'string' && e !== '') === true;
}

export function maxLengthRule(
  id: string,
  code: string | null,
  objectsKey: string,
  leaf: string,
  max: number,
  what: string,
  when: (node: SObject) => boolean = () => true,
): TemplateRule {
  const parent = objectsKey.replace(/\[\]$/, '');
  return rule(
    id,
    code,
    parent === '' ? leaf : `${parent}.${leaf}`,
    `${what} is at most ${max} characters (code points).`,
    (ctx, emit) => {
      for (const node of ctx.objects(objectsKey)) {
        const text = node.str(leaf);
        if (text === undefined || text.length <= max || !when(node)) continue;
        const actual = charCount(text);
        if (actual > max) {
          const label = node.path.length === 0 ? `Template ${leaf}` : `${where(node.path)} ${leaf}`;
          emit([...node.path, leaf], `${label} is ${chars(actual)}; the maximum is ${max}.`, {
            max,
            actual,
          });
        }
      }
    },
  );
}

/** The rule of each way double braces can hold something other than a `{{n}}` variable. */
const MALFORMED: Readonly<
  Record<MalformedKind, { id: string; description: string; message: (m: MalformedVariable) => string }>
> = {
  named: {
    id: 'named',
    description:
      'are numbered, not named: `{{name}}` is refused; write `{{1}}`, `{{2}}`, ... and give one example each.',
    message: (m) =>
      `has ${m.token}: variables are numbered, not named; write {{1}} for the first variable, {{2}} for the next, and give one example each.`,
  },
  spaces: {
    id: 'spaces',
    description: 'have no spaces inside the braces: `{{ 1 }}` is refused; write `{{1}}`.',
    message: (m) => `has ${m.token}: write ${m.instead ?? '{{1}}'}, without spaces inside the braces.`,
  },
  zero: {
    id: 'zero',
    description: 'start at `{{1}}`, without leading zeros: `{{0}}` and `{{01}}` are refused.',
    message: (m) =>
      m.instead === undefined
        ? `has ${m.token}: variables start at {{1}}; number them {{1}}, {{2}}, ...`
        : `has ${m.token}: write ${m.instead}, without a leading zero.`,
  },
  invalid: {
    id: 'invalid',
    description:
      'hold only a number between double braces: `{{}}`, `{{1.5}}`, `{{-1}}` are refused; write `{{1}}`, `{{2}}`, ... or remove the braces.',
    message: (m) =>
      `has ${m.token}: double braces hold only a variable number ({{1}}, {{2}}, ...); write one, or remove the braces.`,
  },
};

/**
 * One rule per way double braces hold something other than a `{{n}}` variable (`{{name}}`, `{{ 1 }}`, `{{0}}`,
 * `{{}}`): `<key>.variables.named|spaces|zero|invalid`, code `null` (the spec names none), one issue per token.
 */
export function malformedVariableRules(
  prefix: string,
  component: 'header' | 'body',
  when: (n: SObject) => boolean,
): TemplateRule[] {
  const key = `${prefix}${component}`;
  return (Object.keys(MALFORMED) as MalformedKind[]).map((kind) => {
    const m = MALFORMED[kind];
    return rule(
      `${key}.variables.${m.id}`,
      null,
      `${key}.text`,
      `Variables in \`${key}.text\` ${m.description}`,
      (ctx, emit) => {
        for (const node of ctx.objects(key)) {
          const text = node.str('text');
          if (text === undefined || !when(node)) continue;
          for (const found of scanVariables(text).malformed) {
            if (found.kind !== kind) continue;
            emit([...node.path, 'text'], `${where(node.path)} text ${m.message(found)}`, {
              token: found.token,
              ...(found.instead === undefined ? {} : { instead: found.instead }),
            });
          }
        }
      },
    );
  });
}

/** The distinct variables must be {{1}}..{{n}} without gaps, so example i belongs to variable i. */
export function sequenceRule(prefix: string, component: 'header' | 'body', when: (n: SObject) => boolean) {
  const key = `${prefix}${component}`;
  return rule(
    `${key}.variables.sequence`,
    null,
    `${key}.text`,
    `Variables in \`${key}.text\` are numbered {{1}}, {{2}}, ... without gaps, so example i fills variable {{i}}.`,
    (ctx, emit) => {
      for (const node of ctx.objects(key)) {
        const text = node.str('text');
        if (text === undefined || !when(node)) continue;
        const { distinct } = scanVariables(text);
        const gap = distinct.findIndex((n, i) => n !== i + 1);
        if (gap !== -1) {
          const found = distinct.slice(0, 5).map((n) => `{{${n}}}`);
          emit(
            [...node.path, 'text'],
            `${where(node.path)} text uses ${found.join(', ')}${distinct.length > 5 ? ', ...' : ''}; variables must be numbered {{1}} to {{${distinct.length}}} without gaps.`,
            { variables: distinct.slice(0, 20) },
          );
        }
      }
    },
  );
}

export function edgeVariableRule(
  id: string,
  code: string,
  key: string,
  side: 'start' | 'end',
  when: (n: SObject) => boolean = () => true,
): TemplateRule {
  const test = side === 'start' ? startsWithVariable : endsWithVariable;
  return rule(id, code, `${key}.text`, `\`${key}.text\` cannot ${side} with a variable.`, (ctx, emit) => {
    for (const node of ctx.objects(key)) {
      const text = node.str('text');
      if (text === undefined || !when(node) || !test(text)) continue;
      emit(
        [...node.path, 'text'],
        `${where(node.path)} text ${side === 'start' ? 'starts' : 'ends'} with a variable; add text ${side === 'start' ? 'before' : 'after'} it.`,
      );
    }
  });
}

export const isText = (n: SObject) => n.get('format') === 'TEXT';
