/**
 * The generated webhook checkers of what nearly every delivery holds (the envelope, metadata, contact, status, text
 * message: the ones whose objects a predicate may return as received) against their schemas, one field at a time:
 * a "full" valid value built from the schema itself (every optional key present, so none is left unmutated), then
 * each field set to each odd value, deleted, and each object given an own `__proto__` key or a null prototype.
 * Deterministic, so a predicate that takes one field too loosely fails here on every run, where the property runs
 * may not reach a key the fixtures lack.
 */
import { describe, expect, it } from 'vitest';
import type { RawIssue } from '../../src/core/checker-runtime.js';
import {
  checkContact,
  checkEnvelope,
  checkMetadata,
  checkStatus,
  messageCheckers,
} from '../../src/webhooks/checkers.generated.js';
import {
  contactSchema,
  messageSchemas,
  metadataSchema,
  statusSchema,
  webhookEnvelopeSchema,
} from '../../src/webhooks/schemas.js';

interface Def {
  type: string;
  shape?: Record<string, Schema>;
  innerType?: Schema;
  element?: Schema;
  options?: Schema[];
  values?: unknown[];
  entries?: Record<string, unknown>;
  checks?: { _zod: { def: { check: string; minimum?: number } } }[];
}
interface Schema {
  _zod: { def: Def };
  safeParse(
    input: unknown,
  ): { success: true; data: unknown } | { success: false; error: { issues: RawIssue[] } };
}
type Check = (input: unknown, issues: RawIssue[]) => unknown;

/** A valid value of the schema with every optional key present: the first option, a string long enough. */
function full(schema: Schema): unknown {
  const def = schema._zod.def;
  switch (def.type) {
    case 'object':
      return Object.fromEntries(Object.entries(def.shape ?? {}).map(([k, s]) => [k, full(s)]));
    case 'array':
      return [full(def.element!)];
    case 'optional':
    case 'nullable':
    case 'default':
    case 'catch':
      return full(def.innerType!);
    case 'union':
      return full(def.options![0]!);
    case 'string':
      return 'value-1';
    case 'number':
      return 1700000000;
    case 'boolean':
      return true;
    case 'literal':
      return def.values![0];
    case 'enum':
      return Object.values(def.entries ?? {})[0];
    case 'custom':
      // The wire rules' predicates (a non-empty string, an open enum): a plain word passes them.
      return 'value-1';
    case 'unknown':
    case 'any':
      return { kept: 'as is' };
    default:
      throw new Error(`full(): no valid value for a ${def.type}`);
  }
}

/** Every (container, key) of a tree, depth-first. */
function places(value: unknown, at: (string | number)[] = [], out: (string | number)[][] = []) {
  if (typeof value !== 'object' || value === null) return out;
  for (const [k, v] of Object.entries(value)) {
    const here = [...at, Array.isArray(value) ? Number(k) : k];
    out.push(here);
    places(v, here, out);
  }
  return out;
}

/** The path of every object (not array) of a tree, the root's `[]` first. */
function objectPaths(value: unknown, at: (string | number)[] = [], out: (string | number)[][] = []) {
  if (typeof value !== 'object' || value === null) return out;
  if (!Array.isArray(value)) out.push(at);
  for (const [k, v] of Object.entries(value))
    objectPaths(v, [...at, Array.isArray(value) ? Number(k) : k], out);
  return out;
}

/** `root` (a copy) with `change` applied to what is at `path`. */
function changed(
  root: unknown,
  path: (string | number)[],
  change: (parent: Record<string | number, unknown>, key: string | number) => void,
) {
  const copy = structuredClone(root);
  if (path.length === 0) return copy;
  let parent = copy as Record<string | number, unknown>;
  for (const key of path.slice(0, -1)) parent = parent[key] as Record<string | number, unknown>;
  change(parent, path.at(-1)!);
  return copy;
}

const put = (parent: Record<string | number, unknown>, key: string | number, value: unknown) =>
  Object.defineProperty(parent, key, { value, writable: true, enumerable: true, configurable: true });

const ODD: [string, () => unknown][] = [
  ['null', () => null],
  ['undefined (present)', () => undefined],
  ['0', () => 0],
  ['1.5', () => 1.5],
  ['NaN', () => Number.NaN],
  ['2^60', () => 2 ** 60],
  ["''", () => ''],
  ["'x'", () => 'x'],
  ['true', () => true],
  ['[]', () => []],
  ['{}', () => ({})],
  ['a null-prototype object', () => Object.create(null)],
  ['an object with an own __proto__', () => put({}, '__proto__', { polluted: true })],
];

/** The checker and the schema agree: verdict, output (values and prototypes), and issues. */
function agree(schema: Schema, check: Check, input: unknown, what: string): void {
  const expected = schema.safeParse(input);
  const issues: RawIssue[] = [];
  const value = check(input, issues);
  expect(issues.length === 0, `${what}: the verdict`).toBe(expected.success);
  if (expected.success) expect(value, what).toStrictEqual(expected.data);
  else
    expect(
      issues.map((i) => [i.code, i.path, i.message]),
      what,
    ).toEqual(expected.error.issues.map((i) => [i.code, i.path, i.message]));
}

const ROOTS: [string, Schema, Check][] = [
  ['envelope', webhookEnvelopeSchema as unknown as Schema, checkEnvelope],
  ['metadata', metadataSchema as unknown as Schema, checkMetadata],
  ['contact', contactSchema as unknown as Schema, checkContact],
  ['status', statusSchema as unknown as Schema, checkStatus],
  ['text message', messageSchemas.text as unknown as Schema, messageCheckers.text!],
];

describe.each(ROOTS)('the generated %s checker, one field at a time', (_, schema, check) => {
  const valid = full(schema);

  it('takes the full value, every optional key present, and returns it as received', () => {
    expect(schema.safeParse(valid).success).toBe(true);
    const issues: RawIssue[] = [];
    expect(check(valid, issues)).toBe(valid);
    expect(issues).toEqual([]);
  });

  it('agrees with zod on each field set to each odd value, and deleted', () => {
    let cases = 0;
    for (const path of places(valid)) {
      const where = path.join('.');
      for (const [name, odd] of ODD) {
        agree(
          schema,
          check,
          changed(valid, path, (p, k) => put(p, k, odd())),
          `${where} = ${name}`,
        );
        cases++;
      }
      agree(
        schema,
        check,
        changed(valid, path, (p, k) => void delete p[k]),
        `${where} deleted`,
      );
    }
    expect(cases).toBeGreaterThan(0);
  });

  it('agrees with zod on each object given an own __proto__ key or a null prototype', () => {
    for (const path of objectPaths(valid)) {
      const where = path.join('.') || '(the root)';
      const withProto = structuredClone(valid);
      const target = path.reduce<unknown>((o, k) => (o as Record<string | number, unknown>)[k], withProto);
      put(target as Record<string, unknown>, '__proto__', { polluted: true });
      agree(schema, check, withProto, `${where} with an own __proto__`);
      const bare =
        path.length === 0
          ? Object.assign(Object.create(null), structuredClone(valid))
          : changed(valid, path, (p, k) => put(p, k, Object.assign(Object.create(null), p[k])));
      agree(schema, check, bare, `${where} with a null prototype`);
    }
  });
});
