/**
 * THE RULE TABLE of template validation. Each rule is data: a stable id, the spec's code (or `null` when the
 * spec names none for that rule), the server's `errors.fields` key it reports at, a description for the docs
 * page, and a `check` that reports violations. `validateTemplate` runs the table; `docs/template-rules.md` is
 * rendered from it; nothing else decides what is valid.
 *
 * Three kinds of rule:
 * - generic rules derived from the zod schemas (`schema.ts`): the type of every field (`type.<field>`),
 *   required fields (`<field>.required`) and enum membership (`<field>.enum`);
 * - the semantic rules the spec states (lengths, variables, button fields, category, carousel and
 *   limited-time-offer rules), written once per component and instantiated for the top level and for
 *   carousel cards where the spec applies them to both (`body.*` and `carousel.body.*`);
 * - `unknown_field` and `internal_error`.
 *
 * Decisions the spec leaves open, applied throughout:
 * - Lengths count Unicode code points (`[...s].length`), not UTF-16 code units, so an emoji counts as one
 *   character. The server may count code units; this is the kinder reading, and the server stays the judge.
 * - A required string that is empty (`''`) counts as missing. "Not allowed" rules fire on any present value,
 *   even `''` or `false` (the spec forbids the field, not a value of it).
 * - Variables are `{{n}}` with decimal digits. The number of variables is the number of DISTINCT variables
 *   (`{{1}} ... {{1}}` is one variable, needing one example), numbered 1..n without gaps.
 * - "Starts/ends with a variable" is judged after trimming white space.
 * - Rules that depend on the category run only when `category` is valid; rules that depend on another field's
 *   type run only when that field has the right type (its type rule already reported it otherwise). So one
 *   mistake gives one issue, not a cascade.
 */
import { WaGatewayError } from '../core/errors.js';
import type * as z from '../core/zod.js';
import {
  BUTTON_TYPES,
  HEADER_FORMATS,
  type TemplateCategory,
  TemplateCreateRequestSchema,
} from './schema.js';

/** A location in the template: object keys and list indices, e.g. `['buttons', 2, 'url']`. */
export type TemplatePath = (string | number)[];

// ---------------------------------------------------------------------------------------------------------
// Shape: the structure of the request, derived once from the zod schema.

/** The structure of one field, as the schema declares it. */
export type Shape =
  | { readonly kind: 'string'; readonly options?: readonly string[] }
  | { readonly kind: 'boolean' }
  | { readonly kind: 'integer' }
  | { readonly kind: 'number' }
  | { readonly kind: 'array'; readonly item: Shape }
  | {
      readonly kind: 'object';
      readonly fields: ReadonlyMap<string, { readonly shape: Shape; readonly required: boolean }>;
      /** Rank of each key in the spec's field order: document order of issues. */
      readonly order: ReadonlyMap<string, number>;
    };

/**
 * The parts of a zod schema's definition the shape is read from. zod/mini has no per-kind classes to test with
 * `instanceof`; its definitions carry the kind in `type`.
 */
interface SchemaDef {
  type: string;
  /** `enum`: the allowed values. */
  entries?: Record<string, string | number>;
  /** `number`: `safeint` for `z.int()`. */
  format?: string;
  /** `array`. */
  element?: z.ZodMiniType;
  /** `object`. */
  shape?: Record<string, z.ZodMiniType>;
  /** `optional`. */
  innerType?: z.ZodMiniType;
}

const defOf = (schema: z.ZodMiniType) => schema._zod.def as SchemaDef;

function shapeOf(schema: z.ZodMiniType): Shape {
  const def = defOf(schema);
  if (def.type === 'string') return { kind: 'string' };
  if (def.type === 'enum') return { kind: 'string', options: Object.values(def.entries ?? {}).map(String) };
  if (def.type === 'boolean') return { kind: 'boolean' };
  if (def.type === 'number') return def.format?.includes('int') ? { kind: 'integer' } : { kind: 'number' };
  if (def.type === 'array' && def.element) return { kind: 'array', item: shapeOf(def.element) };
  if (def.type === 'object' && def.shape) {
    const fields = new Map<string, { shape: Shape; required: boolean }>();
    const order = new Map<string, number>();
    for (const [key, value] of Object.entries(def.shape)) {
      const inner = defOf(value).type === 'optional' ? defOf(value).innerType : undefined;
      order.set(key, order.size);
      fields.set(key, { shape: shapeOf(inner ?? value), required: inner === undefined });
    }
    return { kind: 'object', fields, order };
  }
  // A schema construct the table does not understand is a programming error, caught by the tests at import.
  throw new WaGatewayError(`rules.ts: unsupported schema construct ${def.type}`);
}

/** The structure of the template create request, derived from `TemplateCreateRequestSchema`. */
export const TEMPLATE_SHAPE: Shape = shapeOf(TemplateCreateRequestSchema);

// ---------------------------------------------------------------------------------------------------------
// The read-once snapshot the rules see (built by validate.ts; the rules never touch the caller's object).

/** A value that is not plain data at this position: a function, symbol, bigint, mismatched container, ... */
export class Opaque {
  constructor(readonly what: string) {}
}

/** A value whose read threw (a throwing getter or Proxy trap). */
export const UNREADABLE = new Opaque('a value that could not be read (reading it threw)');

/** A template object read once: known fields only, unknown keys listed apart. */
export class SObject {
  constructor(
    readonly path: TemplatePath,
    readonly fields: ReadonlyMap<string, SValue>,
    /** Own enumerable keys the schema does not know (capped). */
    readonly extra: readonly string[],
  ) {}
  get(key: string): SValue {
    return this.fields.get(key);
  }
  /** Present means not `undefined`: what `JSON.stringify` would send. */
  has(key: string): boolean {
    return this.fields.get(key) !== undefined;
  }
  str(key: string): string | undefined {
    const v = this.fields.get(key);
    return typeof v === 'string' ? v : undefined;
  }
  int(key: string): number | undefined {
    const v = this.fields.get(key);
    return typeof v === 'number' && Number.isSafeInteger(v) ? v : undefined;
  }
  obj(key: string): SObject | undefined {
    const v = this.fields.get(key);
    return v instanceof SObject ? v : undefined;
  }
  arr(key: string): SArray | undefined {
    const v = this.fields.get(key);
    return v instanceof SArray ? v : undefined;
  }
  /** `undefined` or `''`: how required rules see a missing string. */
  missing(key: string): boolean {
    const v = this.fields.get(key);
    return v === undefined || v === '';
  }
}

/** A template list read once. `length` is the real length; only the first items are inspected. */
export class SArray {
  constructor(
    readonly path: TemplatePath,
    readonly items: readonly SValue[],
    readonly length: number,
  ) {}
}

/** A value of the snapshot. */
export type SValue = undefined | null | string | number | boolean | SObject | SArray | Opaque;

/** One place a field key occurs (`buttons.url` occurs once per button), absent values included. */
export interface Occurrence {
  readonly path: TemplatePath;
  readonly value: SValue;
}

/** What a rule's `check` reads. */
export interface RuleContext {
  /** The template, when it is an object. */
  readonly root: SObject | undefined;
  /** The category, only when it is one of the three valid ones. */
  readonly category: TemplateCategory | undefined;
  /** Every value at a field key (`'buttons.url'`; list items: `'buttons[]'`), in document order. */
  at(key: string): readonly Occurrence[];
  /** The objects at a field key. */
  objects(key: string): readonly SObject[];
  /** The lists at a field key. */
  arrays(key: string): readonly SArray[];
  /** Every object of the snapshot (for `unknown_field`). */
  readonly allObjects: readonly SObject[];
}

/** Reports one violation; the validator adds the rule's id, code and the field key. */
export type Emit = (path: TemplatePath, message: string, params?: Record<string, unknown>) => void;

/** One rule of the table. */
export interface TemplateRule {
  /** Stable id, `<section>.<field>.<what>`, e.g. `header.text.max_length`. */
  readonly id: string;
  /** The spec's code for this rule (`WA_TPL_0NN`), or `null` when the spec names none. Never guessed. */
  readonly code: string | null;
  /** The server's `errors.fields` key it reports at: dot-joined, list indices omitted (`buttons.url`). */
  readonly field: string;
  /** What the rule checks, for the docs page. */
  readonly description: string;
  readonly check: (ctx: RuleContext, emit: Emit) => void;
}

/** The documented part of a rule, without its check: what `templateRules` exposes. */
export type TemplateRuleInfo = Pick<TemplateRule, 'id' | 'code' | 'field' | 'description'>;

// ---------------------------------------------------------------------------------------------------------
// Text helpers.

/**
 * Length in Unicode code points (an emoji is one character). Linear, no allocation.
 *
 * @example
 * charCount('héllo 😀'); // 7 ('héllo 😀'.length is 8)
 */
export function charCount(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length - 1; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

const chars = (n: number) => plural(n, 'character');

/**
 * A string quoted for a message, cut to `max` units so huge input is never echoed.
 *
 * @example
 * quote('x'.repeat(100)); // the first 40 x's in JSON quotes, then '…'
 */
export function quote(value: string, max = 40): string {
  if (value.length <= max) return JSON.stringify(value);
  let cut = value.slice(0, max);
  const last = cut.charCodeAt(cut.length - 1);
  if (last >= 0xd800 && last <= 0xdbff) cut = cut.slice(0, -1);
  return `${JSON.stringify(cut)}…`;
}

/** Variables found in a text. `distinct` is capped so a hostile 10 MB text cannot blow up memory. */
export interface VariableScan {
  /** Distinct variable numbers, ascending. */
  readonly distinct: readonly number[];
  /** Total occurrences. */
  readonly occurrences: number;
}

const MAX_DISTINCT_VARIABLES = 10_000;

const isDigit = (c: number) => c >= 48 && c <= 57;

/**
 * Finds `{{n}}` variables with a linear scan (no regex backtracking on hostile input).
 *
 * @example
 * scanVariables('Hi {{1}}, {{2}} and {{1}}').distinct; // [1, 2] (occurrences: 3)
 */
export function scanVariables(s: string): VariableScan {
  const seen = new Set<number>();
  let occurrences = 0;
  let i = s.indexOf('{{');
  while (i !== -1) {
    let j = i + 2;
    while (j < s.length && isDigit(s.charCodeAt(j))) j++;
    if (j > i + 2 && s.startsWith('}}', j)) {
      occurrences++;
      if (seen.size < MAX_DISTINCT_VARIABLES) seen.add(Number(s.slice(i + 2, j)));
      i = s.indexOf('{{', j + 2);
    } else {
      i = s.indexOf('{{', i + 1);
    }
  }
  return { distinct: [...seen].sort((a, b) => a - b), occurrences };
}

/**
 * Whether the text, trimmed, starts with a `{{n}}` variable.
 *
 * @example
 * startsWithVariable('  {{1}} is ready'); // true
 */
export function startsWithVariable(s: string): boolean {
  const i = s.search(/\S/);
  if (i === -1 || !s.startsWith('{{', i)) return false;
  let j = i + 2;
  while (j < s.length && isDigit(s.charCodeAt(j))) j++;
  return j > i + 2 && s.startsWith('}}', j);
}

/**
 * Whether the text, trimmed, ends with a `{{n}}` variable.
 *
 * @example
 * endsWithVariable('Ready: {{12}} \n'); // true
 */
export function endsWithVariable(s: string): boolean {
  const t = s.trimEnd();
  if (!t.endsWith('}}')) return false;
  let j = t.length - 2;
  while (j > 0 && isDigit(t.charCodeAt(j - 1))) j--;
  return j < t.length - 2 && j >= 2 && t.startsWith('{{', j - 2);
}

/**
 * How generic messages name a location.
 *
 * @example
 * formatPath(['buttons', 2, 'url']); // 'buttons[2].url'
 */
export function formatPath(path: TemplatePath): string {
  let out = '';
  for (const seg of path) out += typeof seg === 'number' ? `[${seg}]` : out === '' ? seg : `.${seg}`;
  return out === '' ? 'The template' : out;
}

const ITEM_NOUN: Readonly<Record<string, string>> = { buttons: 'button', carousel: 'card' };
const NOUN: Readonly<Record<string, string>> = { limitedTimeOffer: 'limited-time offer' };

/**
 * How semantic messages name a component for a person (1-based).
 *
 * @example
 * where(['carousel', 1, 'header']); // 'Card 2 header'
 */
export function where(path: TemplatePath): string {
  const parts: string[] = [];
  for (let i = 0; i < path.length; i++) {
    const seg = path[i];
    if (typeof seg !== 'string') continue;
    const next = path[i + 1];
    parts.push(typeof next === 'number' ? `${ITEM_NOUN[seg] ?? seg} ${next + 1}` : (NOUN[seg] ?? seg));
  }
  const s = parts.join(' ');
  return s.charAt(0).toUpperCase() + s.slice(1);
}

function typeName(v: SValue): string {
  if (v === undefined) return 'undefined';
  if (v === null) return 'null';
  if (v instanceof SObject) return 'an object';
  if (v instanceof SArray) return 'an array';
  if (v instanceof Opaque) return v.what;
  if (typeof v === 'string') return `a string (${quote(v)})`;
  if (typeof v === 'number') return Number.isFinite(v) ? `the number ${v}` : String(v);
  return `the boolean ${v}`;
}

// ---------------------------------------------------------------------------------------------------------
// Generic rules, derived from the shape.

const EXPECTED: Readonly<Record<Shape['kind'], string>> = {
  string: 'a string',
  boolean: 'a boolean',
  integer: 'an integer',
  number: 'a number',
  array: 'an array',
  object: 'an object',
};

function matches(v: SValue, shape: Shape): boolean {
  switch (shape.kind) {
    case 'string':
      return typeof v === 'string';
    case 'boolean':
      return typeof v === 'boolean';
    case 'integer':
      return typeof v === 'number' && Number.isSafeInteger(v);
    case 'number':
      return typeof v === 'number' && Number.isFinite(v);
    case 'array':
      return v instanceof SArray;
    case 'object':
      return v instanceof SObject;
  }
}

function typeRule(key: string, indexKey: string, shape: Shape, item: boolean): TemplateRule {
  const expected = EXPECTED[shape.kind];
  const label = key === '' ? 'The template' : `\`${key}\`${item ? ' items' : ''}`;
  return {
    id: key === '' ? 'type.template' : `type.${key}${item ? '.item' : ''}`,
    code: null,
    field: key,
    description: `${label} must be ${item ? expected.replace(/^an? /, '') + 's' : expected}.`,
    check(ctx, emit) {
      for (const occ of ctx.at(indexKey)) {
        // An absent field is a required rule's business; an absent list item (a hole) is a type error.
        if (occ.value === undefined && !item && key !== '') continue;
        if (!matches(occ.value, shape)) {
          emit(occ.path, `${formatPath(occ.path)} must be ${expected}; got ${typeName(occ.value)}.`, {
            expected: shape.kind,
          });
        }
      }
    },
  };
}

function requiredRule(key: string, parentKey: string, leaf: string): TemplateRule {
  return {
    id: `${key}.required`,
    code: null,
    field: key,
    description: `\`${key}\` is required (an empty string counts as missing).`,
    check(ctx, emit) {
      for (const parent of ctx.objects(parentKey)) {
        if (parent.missing(leaf)) {
          const path = [...parent.path, leaf];
          emit(path, `${formatPath(path)} is required.`);
        }
      }
    },
  };
}

/**
 * Enum fields where a coded rule of the spec also restricts the value: there the coded rule reports every value
 * outside its own allowed set, valid-enum or not, so an invalid value keeps the spec's code instead of a
 * null-code enum issue (one mistake, one issue). `when` says whether the coded rule applies to this template.
 */
const CODED_ENUMS: Readonly<
  Record<string, { codes: string; when: 'always' | ((ctx: RuleContext) => boolean) }>
> = {
  category: {
    codes: 'WA_TPL_035 (carousel) or WA_TPL_048 (limited-time offer)',
    when: (ctx) => present(ctx, 'carousel') || present(ctx, 'limitedTimeOffer'),
  },
  'header.format': { codes: 'WA_TPL_050', when: (ctx) => present(ctx, 'limitedTimeOffer') },
  'buttons.type': { codes: 'WA_TPL_053', when: (ctx) => present(ctx, 'limitedTimeOffer') },
  // The coded rule's allowed set is a subset of the enum: it owns every invalid value and no enum rule exists.
  'carousel.header.format': { codes: 'WA_TPL_042', when: 'always' },
  'carousel.buttons.type': { codes: 'WA_TPL_046', when: 'always' },
};

/** A known value that differs only in case or `-`/`_`, for "did you mean". */
function enumHint(value: string, options: readonly string[]): string | undefined {
  if (value.length > 40) return undefined;
  const norm = (s: string) => s.toLowerCase().replace(/-/g, '_');
  return options.find((o) => norm(o) === norm(value));
}

function enumRule(key: string, options: readonly string[]): TemplateRule {
  const coded = CODED_ENUMS[key];
  const many = options.length > 12;
  const list = many
    ? `one of the ${options.length} codes of TEMPLATE_LANGUAGES`
    : `one of ${options.join(', ')}`;
  const set = new Set(options);
  return {
    id: `${key}.enum`,
    code: null,
    field: key,
    description: `\`${key}\` is ${list} (exact, case-sensitive).${coded ? ` Where ${coded.codes} applies, that rule reports an invalid value instead.` : ''}`,
    check(ctx, emit) {
      if (typeof coded?.when === 'function' && coded.when(ctx)) return;
      for (const occ of ctx.at(key)) {
        const v = occ.value;
        if (typeof v !== 'string' || v === '' || set.has(v)) continue;
        const hint = enumHint(v, options);
        emit(
          occ.path,
          `${formatPath(occ.path)} is ${quote(v)}; it must be ${list}${hint ? ` (did you mean ${hint}?)` : ''}.`,
          { value: quote(v), ...(hint ? { suggestion: hint } : {}) },
        );
      }
    },
  };
}

/** Type, required and enum rules for every field under `prefix` (a top-level key), in schema order. */
function genericRules(prefix: string): TemplateRule[] {
  const out: TemplateRule[] = [];
  const root = TEMPLATE_SHAPE;
  if (root.kind !== 'object') return out;
  const visit = (
    key: string,
    parentKey: string,
    leaf: string,
    field: { shape: Shape; required: boolean },
  ) => {
    const { shape } = field;
    out.push(typeRule(key, key, shape, false));
    if (field.required) out.push(requiredRule(key, parentKey, leaf));
    if (shape.kind === 'string' && shape.options && CODED_ENUMS[key]?.when !== 'always') {
      out.push(enumRule(key, shape.options));
    }
    let inner: Shape = shape;
    let objectKey = key;
    if (shape.kind === 'array') {
      out.push(typeRule(key, `${key}[]`, shape.item, true));
      inner = shape.item;
      objectKey = `${key}[]`;
    }
    if (inner.kind === 'object') {
      for (const [k, f] of inner.fields) visit(`${key}.${k}`, objectKey, k, f);
    }
  };
  const top = root.fields.get(prefix);
  if (top) visit(prefix, '', prefix, top);
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// Semantic rules.

const MEDIA_FORMATS: ReadonlySet<string> = new Set(['IMAGE', 'VIDEO', 'DOCUMENT']);
const CARD_FORMATS: ReadonlySet<string> = new Set(['IMAGE', 'VIDEO']);
const LTO_HEADER_FORMATS: ReadonlySet<string> = new Set(['NONE', 'IMAGE', 'VIDEO']);
const VALID_FORMATS: ReadonlySet<string> = new Set(HEADER_FORMATS);
const VALID_BUTTON_TYPES: ReadonlySet<string> = new Set(BUTTON_TYPES);
const TEXT_REQUIRED_TYPES: ReadonlySet<string> = new Set(['QUICK_REPLY', 'URL', 'PHONE_NUMBER']);
const CARD_BUTTON_TYPES: ReadonlySet<string> = new Set(['QUICK_REPLY', 'URL', 'PHONE_NUMBER']);
const LTO_BUTTON_TYPES: ReadonlySet<string> = new Set(['COPY_CODE', 'URL']);
const BUTTON_TYPES_BY_CATEGORY: Readonly<Record<TemplateCategory, ReadonlySet<string>>> = {
  AUTHENTICATION: new Set(['OTP']),
  UTILITY: new Set(['QUICK_REPLY', 'URL', 'PHONE_NUMBER']),
  MARKETING: new Set(['QUICK_REPLY', 'URL', 'PHONE_NUMBER', 'COPY_CODE']),
};
const TTL_RANGES: Readonly<Record<TemplateCategory, { min: number; max: number; also?: number }>> = {
  UTILITY: { min: 30, max: 43_200 },
  MARKETING: { min: 43_200, max: 2_592_000 },
  AUTHENTICATION: { min: 30, max: 900, also: -1 },
};
const NAME_PATTERN = /^[a-z][a-z0-9_]*$/;
// E.164: up to 15 digits, no leading zero; the leading '+' is optional because both forms are common input.
const E164 = /^\+?[1-9]\d{1,14}$/;
const LIMITS = {
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
function didYouMean(value: string, allowed: ReadonlySet<string>): string {
  const hint = enumHint(value, [...allowed]);
  return hint ? ` (did you mean ${hint}?)` : '';
}

function rule(
  id: string,
  code: string | null,
  field: string,
  description: string,
  check: TemplateRule['check'],
): TemplateRule {
  return { id, code, field, description, check };
}

/**
 * A component (`carousel`, `limitedTimeOffer`, `footer`, `buttons`) is present for cross-field rules when it is
 * there with its right type; a wrong type is its type rule's business alone, so it does not cascade.
 */
const present = (ctx: RuleContext, key: string) => {
  const v = ctx.root?.get(key);
  return v instanceof SObject || v instanceof SArray;
};

/** A media handle is there: `examples` is a list with at least one non-empty string. */
function hasHandle(node: SObject): boolean {
  const examples = node.arr('examples');
  return examples?.items.some((e) => typeof e === 'string' && e !== '') === true;
}

function maxLengthRule(
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

/** The distinct variables must be {{1}}..{{n}} without gaps, so example i belongs to variable i. */
function sequenceRule(prefix: string, component: 'header' | 'body', when: (n: SObject) => boolean) {
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

function edgeVariableRule(
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

const isText = (n: SObject) => n.get('format') === 'TEXT';

function headerRules(): TemplateRule[] {
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
          const variables = scanVariables(text).distinct.length;
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

function bodyRules(): TemplateRule[] {
  const perScope = (p: string): TemplateRule[] => {
    const key = `${p}body`;
    return [
      edgeVariableRule(`${key}.text.leading_variable`, 'WA_TPL_011', key, 'start'),
      edgeVariableRule(`${key}.text.trailing_variable`, 'WA_TPL_012', key, 'end'),
      sequenceRule(p, 'body', () => true),
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
            const variables = text === undefined ? 0 : scanVariables(text).distinct.length;
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

function footerRules(): TemplateRule[] {
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

function buttonRules(): TemplateRule[] {
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

function carouselRules(): TemplateRule[] {
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

function ltoRules(): TemplateRule[] {
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

function scalarRules(): TemplateRule[] {
  return [
    maxLengthRule('name.max_length', null, '', 'name', LIMITS.name, 'Template `name`'),
    rule('name.pattern', 'WA_TPL_034', 'name', '`name` matches `^[a-z][a-z0-9_]*$`.', (ctx, emit) => {
      const name = ctx.root?.str('name');
      if (name && !NAME_PATTERN.test(name)) {
        emit(
          ['name'],
          `Template name ${quote(name)} must start with a lowercase letter and use only a-z, 0-9 and _.`,
          { value: quote(name), pattern: NAME_PATTERN.source },
        );
      }
    }),
  ];
}

function ttlRule(): TemplateRule {
  return rule(
    'messageSendTtlSeconds.range',
    null,
    'messageSendTtlSeconds',
    '`messageSendTtlSeconds` by category: UTILITY 30 to 43200; MARKETING 43200 to 2592000; AUTHENTICATION 30 to 900 or -1.',
    (ctx, emit) => {
      const v = ctx.root?.int('messageSendTtlSeconds');
      if (v === undefined || ctx.category === undefined) return;
      const { min, max, also } = TTL_RANGES[ctx.category];
      if ((v >= min && v <= max) || v === also) return;
      emit(
        ['messageSendTtlSeconds'],
        `messageSendTtlSeconds is ${v}; for ${ctx.category} it must be ${min} to ${max}${also === undefined ? '' : ` or ${also}`}.`,
        { min, max, ...(also === undefined ? {} : { also }), actual: v, category: ctx.category },
      );
    },
  );
}

const MAX_UNKNOWN_REPORTED = 20;

function unknownFieldRule(): TemplateRule {
  return rule(
    'unknown_field',
    null,
    '*',
    'Every key is a field the spec defines; an unknown key (often a typo such as `phone_number`) is reported at its own path, up to 20 per object. The spec shows no code for it (a malformed request is 400 `REQ_001`).',
    (ctx, emit) => {
      for (const node of ctx.allObjects) {
        for (const key of node.extra.slice(0, MAX_UNKNOWN_REPORTED)) {
          const path = [...node.path, key];
          emit(path, `${formatPath(path)} is not a field of the template create request; remove it.`, {
            key: quote(key),
          });
        }
      }
    },
  );
}

/** Reported by the validator (never by a check) if a check itself fails: a bug, please report it. */
export const INTERNAL_ERROR_RULE: TemplateRule = rule(
  'internal_error',
  null,
  '',
  'A check of the validator itself failed (a bug in the SDK, never expected). The template is reported invalid so it is not sent unchecked.',
  () => {},
);

// ---------------------------------------------------------------------------------------------------------
// The table.

/** Every rule, grouped by section in the spec's field order. */
export const TEMPLATE_RULES: readonly TemplateRule[] = Object.freeze([
  typeRule('', '', TEMPLATE_SHAPE, false),
  unknownFieldRule(),
  ...genericRules('name'),
  ...scalarRules(),
  ...genericRules('language'),
  ...genericRules('category'),
  ...genericRules('header'),
  ...headerRules().filter((r) => !r.id.startsWith('carousel.')),
  ...genericRules('body'),
  ...bodyRules().filter((r) => !r.id.startsWith('carousel.')),
  ...genericRules('footer'),
  ...footerRules(),
  ...genericRules('buttons'),
  ...buttonRules().filter((r) => !r.id.startsWith('carousel.')),
  ...genericRules('carousel'),
  ...carouselRules(),
  ...headerRules().filter((r) => r.id.startsWith('carousel.')),
  ...bodyRules().filter((r) => r.id.startsWith('carousel.')),
  ...buttonRules().filter((r) => r.id.startsWith('carousel.')),
  ...genericRules('allowCategoryChange'),
  ...genericRules('messageSendTtlSeconds'),
  ttlRule(),
  ...genericRules('limitedTimeOffer'),
  ...ltoRules(),
  INTERNAL_ERROR_RULE,
]);

/**
 * The rule table for docs and tooling: id, code, field and description of every rule, read-only.
 *
 * @example
 * import { templateRules } from 'wa-gateway-sdk/templates';
 * const coded = templateRules.filter((r) => r.code !== null).map((r) => `${r.code} ${r.id}`);
 */
export const templateRules: readonly Readonly<TemplateRuleInfo>[] = Object.freeze(
  TEMPLATE_RULES.map(({ id, code, field, description }) => Object.freeze({ id, code, field, description })),
);
