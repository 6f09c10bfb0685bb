/**
 * What the generated checkers (`*.generated.ts`, written by `npm run generate` from the zod schemas) share at run
 * time: zod's issue shape and the few pieces of zod's behaviour that depend on the input rather than on the
 * schema (how a received value is named in a message, where an issue's path starts). Imports nothing: the
 * portable entries check a delivery with generated code alone, and load no zod.
 *
 * Everything the schemas decide (which fields, which checks, every constant message) is in the generated files,
 * taken from zod at generation time; the generator checks this module against zod before it writes, and
 * `test/generated/agreement.test.ts` and the property runs hold the two to the same answers.
 */

/** An issue as zod raises it before it is finalised: `continue` says whether its node may go on (zod's own flag). */
export interface RawIssue {
  code: string;
  path: PropertyKey[];
  message: string;
  continue?: boolean;
  expected?: string;
  minimum?: number;
  maximum?: number;
  origin?: string;
  params?: Record<string, unknown>;
  [more: string]: unknown;
}

/**
 * How zod's English messages name a received value (`received string`, `received NaN`, `received Date`): zod's
 * `parsedType` and the locale's `getTypeName`, for an input that did not have the expected type.
 */
export function receivedName(value: unknown): string {
  switch (typeof value) {
    case 'number':
      return Number.isNaN(value) ? 'NaN' : Number.isFinite(value) ? 'number' : String(value);
    case 'object': {
      if (value === null) return 'null';
      if (Array.isArray(value)) return 'array';
      const ctor =
        Object.getPrototypeOf(value) !== Object.prototype && 'constructor' in value && value.constructor;
      return ctor ? (ctor as { name: string }).name : 'object';
    }
    default:
      return typeof value;
  }
}

/** An `invalid_type` issue: `message` is the schema's constant part, the received value's name is appended. */
export function typeIssue(expected: string, message: string, value: unknown): RawIssue {
  return { expected, code: 'invalid_type', path: [], message: message + receivedName(value) };
}

/** Puts `key` in front of the path of every issue from `from` on, as zod does when a child's issues reach it. */
export function prefixIssues(issues: RawIssue[], from: number, key: PropertyKey): void {
  for (let i = from; i < issues.length; i++) issues[i]!.path.unshift(key);
}

/** zod's `aborted`: an issue from `from` on that does not let its node go on. */
export function abortedSince(issues: readonly RawIssue[], from: number): boolean {
  for (let i = from; i < issues.length; i++) if (issues[i]!.continue !== true) return true;
  return false;
}

/** zod's `explicitlyAborted`: an issue from `from` on raised with `abort`. */
export function explicitlyAbortedSince(issues: readonly RawIssue[], from: number): boolean {
  for (let i = from; i < issues.length; i++) if (issues[i]!.continue === false) return true;
  return false;
}

/** zod's `isObject`: what its object parsers accept. */
// biome-ignore format: in parentheses, V8 compiles it with the module rather than on a first delivery (docs/benchmarks.md)
export const isObject = (function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
});

/**
 * An object zod would return as it is: a plain object (`Object.prototype`; no array has it) without an own
 * `__proto__` key, which zod's copy drops. The generated "returned as received" predicates start with it.
 */
// biome-ignore format: in parentheses, V8 compiles it with the module rather than on a first delivery (docs/benchmarks.md)
export const isPlainObject = (function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && Object.getPrototypeOf(value) === Object.prototype && !Object.hasOwn(value, '__proto__');
});

/** Absent or a string: what zod returns unchanged for an optional string, the commonest test of the predicates. */
// biome-ignore format: in parentheses, V8 compiles it with the module rather than on a first delivery (docs/benchmarks.md)
export const isOptionalString = (function isOptionalString(value: unknown): value is string | undefined {
  return value === undefined || typeof value === 'string';
});

/** The length a length check compares: code points for a string near the bound (zod's own rule), else `length`. */
export function lengthFor(value: { length: unknown }, bound: number): unknown {
  const units = value.length;
  if (typeof value !== 'string' || typeof units !== 'number' || units < bound || units >= bound * 2)
    return units;
  let n = 0;
  for (const _ of value as string) n++;
  return n;
}

/** Where a length issue says it came from (zod's `getLengthableOrigin`). */
export function lengthOrigin(value: unknown): 'array' | 'string' | 'unknown' {
  return Array.isArray(value) ? 'array' : typeof value === 'string' ? 'string' : 'unknown';
}

/** A field's generated checker: its output, issues pushed with paths relative to the field. */
export type FieldCheck = (value: unknown, issues: RawIssue[]) => unknown;
type Out = Record<string, unknown>;

/**
 * A key whose schema is not optional (zod's `handlePropertyResult` with no `optin`): its issues, and when it is
 * absent yet its schema passed, a `nonoptional` issue (`absent` is zod's message for it); written only if present.
 */
export function requiredKey(
  v: Out,
  out: Out,
  key: string,
  check: FieldCheck,
  issues: RawIssue[],
  absent: string,
): void {
  const x = v[key];
  const from = issues.length;
  const r = check(x, issues);
  if (issues.length !== from) prefixIssues(issues, from, key);
  if (x !== undefined || key in v) out[key] = r;
  else if (issues.length === from)
    issues.push({ expected: 'nonoptional', code: 'invalid_type', path: [key], message: absent });
}

/**
 * An object's checker where no valid input comes (its generated predicate takes those as they are): each field as
 * zod's object reads it, `[key, check, how]` (`how`: the message of an absent required key; `0` optional; `1`
 * written when present or given a value, a `catch`; `2` always written, a default), then every other key of `v`
 * in its order but `__proto__` (zod's catchall of `unknown`). Data in place of code: the Worker bundle's bar is on
 * its size, and these calls are megamorphic, which only a refused or repaired item pays.
 */
export function objectFields(
  v: unknown,
  issues: RawIssue[],
  type: readonly [string, string],
  fields: readonly (readonly [string, FieldCheck, string | 0 | 1 | 2])[],
): unknown {
  if (!isObject(v)) return wrongType(v, issues, type);
  const out: Out = {};
  for (const [key, check, how] of fields) {
    if (how === 0) optionalKey(v, out, key, check, issues);
    else if (typeof how === 'string') requiredKey(v, out, key, check, issues, how);
    else lenientKey(v, out, key, check, issues, how === 2);
  }
  // Every key of `out` is a field's, written when present: the keys `out` lacks are the others.
  for (const k in v) if (k !== '__proto__' && !Object.hasOwn(out, k)) out[k] = v[k];
  return out;
}

/** A key optional in and out (`optional`): an absent key adds nothing, neither a value nor an issue. */
// biome-ignore format: in parentheses, V8 compiles it with the module rather than on a first delivery (docs/benchmarks.md)
export const optionalKey = (function optionalKey(v: Out, out: Out, key: string, check: FieldCheck, issues: RawIssue[]): void {
  const x = v[key];
  if (x === undefined && !(key in v)) return;
  const from = issues.length;
  const r = check(x, issues);
  if (issues.length !== from) prefixIssues(issues, from, key);
  out[key] = r;
});

/**
 * A key optional in but not out (a `catch`, a `default`): checked even when absent; written when it produced a
 * value or is present (`always`: a default, written whatever it produced).
 */
export function lenientKey(
  v: Out,
  out: Out,
  key: string,
  check: FieldCheck,
  issues: RawIssue[],
  always: boolean,
): void {
  const x = v[key];
  const from = issues.length;
  const r = check(x, issues);
  if (issues.length !== from) prefixIssues(issues, from, key);
  if (always || r !== undefined || key in v) out[key] = r;
}

/**
 * The type issue of a value that is not what a schema expects (`type`: the expected type and zod's message before
 * the received type's name), and the value (the output means nothing then).
 */
export function wrongType(v: unknown, issues: RawIssue[], type: readonly [string, string]): unknown {
  issues.push(typeIssue(type[0], type[1], v));
  return v;
}

/** The issue of a value that is none of a literal's `values` (zod's `invalid_value`), and the value. */
export function wrongValue(v: unknown, issues: RawIssue[], values: unknown[], message: string): unknown {
  issues.push({ code: 'invalid_value', values, path: [], message });
  return v;
}

/** `check`'s answer for a key's value `x`, its issues under `key`: a field whose key the generated code reads. */
// biome-ignore format: in parentheses, V8 compiles it with the module rather than on a first delivery (docs/benchmarks.md)
export const checkedUnder = (function checkedUnder(x: unknown, check: FieldCheck, issues: RawIssue[], key: string): unknown {
  const from = issues.length;
  const r = check(x, issues);
  if (issues.length !== from) prefixIssues(issues, from, key);
  return r;
});

/**
 * zod's `array` of `check`'s items, each item's issues under its index; anything but an array is `type`'s issue
 * (as `wrongType` takes it).
 */
export function arrayOf(check: FieldCheck, type: readonly [string, string]): FieldCheck {
  // biome-ignore format: in parentheses, V8 compiles it with the module rather than on a first delivery (docs/benchmarks.md)
  return (function checkArray(v: unknown, issues: RawIssue[]): unknown {
    if (!Array.isArray(v)) return wrongType(v, issues, type);
    const n = v.length;
    const out = new Array<unknown>(n);
    for (let i = 0; i < n; i++) {
      const from = issues.length;
      out[i] = check(v[i], issues);
      if (issues.length !== from) prefixIssues(issues, from, i);
    }
    return out;
  });
}

/** zod's `optional`: `undefined` as it is, anything else as `check` answers. */
export function optionalOf(check: FieldCheck): FieldCheck {
  // biome-ignore format: in parentheses, V8 compiles it with the module rather than on a first delivery (docs/benchmarks.md)
  return (function checkOptional(v: unknown, issues: RawIssue[]): unknown {
    return v === undefined ? undefined : check(v, issues);
  });
}

/** zod's `nullable`: `null` as it is, anything else as `check` answers. */
export function nullableOf(check: FieldCheck): FieldCheck {
  return (v, issues) => (v === null ? null : check(v, issues));
}

/** zod's `default`: `value` for `undefined`, and for what `check` turns into `undefined`. */
export function defaultOf(check: FieldCheck, value: unknown): FieldCheck {
  return (v, issues) => {
    if (v === undefined) return value;
    const r = check(v, issues);
    return r === undefined ? value : r;
  };
}

/**
 * A refusal on a path whose schema explains its issues (the generator's `explain: 'schema'`): one marker issue,
 * which the caller never shows (it parses with the schema for the issues), and the value.
 */
export function refused(issues: RawIssue[], v: unknown): unknown {
  issues.push({ code: 'refused', path: [], message: '' });
  return v;
}

/**
 * A generated checker's output when it raised no issue, else `undefined`: for a caller that explains a refusal
 * another way (by the schema) or not at all. The checkers it serves never answer `undefined` for a valid input.
 */
export function passed<T>(check: (input: unknown, issues: RawIssue[]) => T, input: unknown): T | undefined {
  const issues: RawIssue[] = [];
  const output = check(input, issues);
  return issues.length === 0 ? output : undefined;
}

/** zod's `default([])`: a new empty array for `undefined` (zod copies an object default each time), else `check`'s. */
export function defaultEmptyArrayOf(check: FieldCheck): FieldCheck {
  return (v, issues) => {
    if (v === undefined) return [];
    const r = check(v, issues);
    return r === undefined ? [] : r;
  };
}

/** zod's `catch(() => [])`: a new empty array in place of any issue (never one array shared by every output). */
export function caughtEmptyArrayOf(check: FieldCheck): FieldCheck {
  return (v) => {
    const e: RawIssue[] = [];
    const r = check(v, e);
    return e.length === 0 ? r : [];
  };
}

/** zod's `catch` of a primitive that does not depend on the input: `value` in place of any issue. */
export function caughtOf(check: FieldCheck, value: unknown): FieldCheck {
  return (v) => {
    const e: RawIssue[] = [];
    const r = check(v, e);
    return e.length === 0 ? r : value;
  };
}

/**
 * zod's literal of one string: `value` itself, else its `invalid_value` issue, whose message is `prefix` (zod's text,
 * taken at generation time) and the value's JSON, as zod's English messages write it.
 */
export function literalOf(value: string, prefix: string): FieldCheck {
  const message = prefix + JSON.stringify(value);
  return (v, issues) => (v === value ? v : wrongValue(v, issues, [value], message));
}
