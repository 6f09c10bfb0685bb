import { WaGatewayError } from '../../core/errors.js';
import type * as z from '../../core/zod.js';
import { TemplateCreateRequestSchema } from '../schema.js';

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
