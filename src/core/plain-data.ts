/**
 * Helpers over plain JSON-like data that every part of the SDK uses, the webhooks and templates entries included:
 * dependency-free (no zod, no Node built-in), so importing them costs a portable entry nothing else.
 */

/**
 * Whether a value is a non-array object (a JSON object, or anything a property can be read from like one).
 *
 * @example
 * isRecord({ a: 1 }); // true
 * isRecord([1]); // false
 */
// biome-ignore format: in parentheses, V8 compiles it with the module rather than on a first delivery (docs/benchmarks.md)
export const isRecord = (function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
});

/**
 * A location in a JSON tree as messages write it: keys joined by `.`, indices in brackets; `whenEmpty` for the root.
 *
 * @example
 * formatPath(['entry', 0, 'changes']); // 'entry[0].changes'
 */
export function formatPath(path: readonly (string | number)[], whenEmpty = ''): string {
  let out = '';
  for (const part of path) out += typeof part === 'number' ? `[${part}]` : out === '' ? part : `.${part}`;
  return out === '' ? whenEmpty : out;
}

/**
 * `T` with every array and property readonly. Inputs are typed with it so that `as const` literals and
 * frozen configuration can be passed as they are; a mutable value is assignable to it too.
 */
export type DeepReadonly<T> = T extends (infer U)[]
  ? readonly DeepReadonly<U>[]
  : T extends (...args: never[]) => unknown
    ? T
    : T extends object
      ? { readonly [K in keyof T]: DeepReadonly<T[K]> }
      : T;

/**
 * A string field of a value not yet validated (a caller's message, a template), or `undefined`: read so that a
 * getter that throws, a Proxy or a primitive cannot make a log line or a span fail the call.
 *
 * @example
 * stringField({ to: '998901234567' }, 'to'); // '998901234567'
 * stringField(null, 'to'); // undefined
 */
export function stringField(value: unknown, key: string): string | undefined {
  try {
    const field = (value as Record<string, unknown> | null | undefined)?.[key];
    return typeof field === 'string' ? field : undefined;
  } catch {
    return undefined;
  }
}
