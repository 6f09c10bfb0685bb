import { TEMPLATE_SHAPE } from '../shape.generated.js';
import type { Shape } from './shape.js';
import { present, type RuleContext, SArray, SObject, type SValue, type TemplateRule } from './snapshot.js';
import { enumHint, formatPath, quote, typeName } from './text.js';

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

export function typeRule(key: string, indexKey: string, shape: Shape, item: boolean): TemplateRule {
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
export function genericRules(prefix: string): TemplateRule[] {
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
