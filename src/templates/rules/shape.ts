import { WaGatewayError } from '../../core/errors.js';
import type * as z from '../../core/zod.js';

/** A location in the template: object keys and list indices, e.g. `['buttons', 2, 'url']`. */
export type TemplatePath = (string | number)[];

// ---------------------------------------------------------------------------------------------------------
// Shape: the structure of the request, derived from the zod schema when the checkers are generated.

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
 * The structure of a schema, read from its definition the way zod documents for library authors
 * (zod.dev/packages/core): the schema as one of `$ZodTypes`, the union of zod's first-party schemas, whose
 * `_zod.def` is discriminated by `type`. zod/mini has no per-kind classes to test with `instanceof`.
 */
export function shapeOf(schema: z.core.$ZodType): Shape {
  const def = (schema as z.core.$ZodTypes)._zod.def;
  switch (def.type) {
    case 'string':
      return { kind: 'string' };
    case 'enum':
      return { kind: 'string', options: Object.values(def.entries).map(String) };
    case 'boolean':
      return { kind: 'boolean' };
    case 'number':
      // `z.int()` is a number with an integer format (`$ZodNumberFormatDef`, a `$ZodNumberDef` with `format`).
      return 'format' in def && String(def.format).includes('int') ? { kind: 'integer' } : { kind: 'number' };
    case 'array':
      return { kind: 'array', item: shapeOf(def.element) };
    case 'object': {
      const fields = new Map<string, { shape: Shape; required: boolean }>();
      const order = new Map<string, number>();
      for (const [key, value] of Object.entries(def.shape)) {
        const field = (value as z.core.$ZodTypes)._zod.def;
        const inner = field.type === 'optional' ? field.innerType : undefined;
        order.set(key, order.size);
        fields.set(key, { shape: shapeOf(inner ?? value), required: inner === undefined });
      }
      return { kind: 'object', fields, order };
    }
    default:
      // A schema construct the table does not understand is a programming error, caught by the tests at import.
      throw new WaGatewayError(`rules.ts: unsupported schema construct ${def.type}`);
  }
}

// The structure of the template create request, `TEMPLATE_SHAPE`, is derived from `TemplateCreateRequestSchema` by
// `shapeOf` at generation time (`npm run generate`, `../shape.generated.ts`): the templates entry validates without
// building any zod schema.
