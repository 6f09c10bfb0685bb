/**
 * The functions the webhook schemas call (a predicate of `z.custom`, the transform of a pipe), as exported
 * functions of a module that imports no zod: the generated checkers (`checkers.generated.ts`) import and call these
 * same functions, so a rule written here is the schema's and the checker's at once.
 */
import { INTERACTIVE_TYPES } from './vocabulary.js';

/** An open enumeration's value: any string. */
// biome-ignore format: in parentheses, V8 compiles it with the module rather than on a first delivery (docs/benchmarks.md)
export const isString = (function isString(value: unknown): boolean {
  return typeof value === 'string';
});

/** An open enumeration's value where empty means missing: any non-empty string. */
// biome-ignore format: in parentheses, V8 compiles it with the module rather than on a first delivery (docs/benchmarks.md)
export const isNonEmptyString = (function isNonEmptyString(value: unknown): boolean {
  return typeof value === 'string' && value.length > 0;
});

const KNOWN_KINDS: ReadonlySet<string> = new Set(INTERACTIVE_TYPES);

/**
 * An `interactive` object of a kind not listed becomes `{ type: 'unknown', originalType, raw }` before the union
 * sees it; a listed kind, or anything that is not an object with a string `type`, goes through as received, so the
 * union still names what is missing or mistyped in it.
 */
export function wrapUnknownKind(value: unknown): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  const kind = (value as { type?: unknown }).type;
  if (typeof kind !== 'string' || kind === '' || KNOWN_KINDS.has(kind)) return value;
  return { type: 'unknown', originalType: kind, raw: value };
}
