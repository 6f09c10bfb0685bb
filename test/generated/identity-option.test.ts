/**
 * The generator's `identity` option on schemas of its own making, not only the webhook schemas of today: each
 * construct that may take a value and give back another (a default, a `catch`, a union whose first option takes
 * more than its test, a length bound, a stripped key, an array with holes) must keep its checker from returning
 * the input, and every checker must still answer as zod does. The generated file is written to a scratch
 * directory and imported, as the build's files are.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { generate, type Schema } from '../../scripts/checkers/generator.js';
import type { RawIssue } from '../../src/core/checker-runtime.js';

type Check = (input: unknown, issues: RawIssue[]) => unknown;

const SCHEMAS = {
  defaultsAndCatch: z.looseObject({
    a: z.string(),
    b: z.optional(z.number()),
    c: z.string().default('filled'),
    d: z.catch(z.string(), 'caught'),
  }),
  unionCatchFirst: z.looseObject({ u: z.union([z.catch(z.string(), 'x'), z.number()]) }),
  unionDefaultFirst: z.looseObject({
    u: z.union([z.looseObject({ k: z.string().default('k') }), z.looseObject({ j: z.optional(z.string()) })]),
  }),
  nullableObject: z.looseObject({ n: z.nullable(z.looseObject({ a: z.string() })) }),
  stripped: z.looseObject({ s: z.object({ a: z.string() }) }),
  arrayOfOptional: z.looseObject({ arr: z.array(z.optional(z.string())) }),
  lengthBound: z.looseObject({ m: z.string().min(2), l: z.array(z.looseObject({ q: z.int() })) }),
};
type Name = keyof typeof SCHEMAS;

/** Inputs that reach each construct's edge, beside fast-check's. */
const EDGES: Record<Name, unknown[]> = {
  defaultsAndCatch: [
    { a: 'x' },
    { a: 'x', b: 1, c: 'c', d: 'd' },
    { a: 'x', c: 'c', d: 5 },
    { a: 'x', c: undefined, d: 'd' },
    { a: 'x', b: undefined, c: 'c', d: 'd' },
  ],
  unionCatchFirst: [{ u: 5 }, { u: 's' }, { u: null }, {}],
  unionDefaultFirst: [{ u: { j: 'j' } }, { u: { k: 'k' } }, { u: {} }, { u: { k: 1, j: 'j' } }],
  nullableObject: [{ n: null }, { n: { a: 'a' } }, { n: { a: 1 } }, { n: Object.create(null) }],
  stripped: [{ s: { a: 'a' } }, { s: { a: 'a', extra: 1 } }],
  // biome-ignore lint/suspicious/noSparseArray: an array with a hole is the input under test
  arrayOfOptional: [{ arr: ['a', undefined] }, { arr: ['a', , 'b'] }, { arr: [] }, { arr: [1] }],
  lengthBound: [
    { m: 'ab', l: [] },
    { m: '😀', l: [{ q: 1 }] },
    { m: 'a', l: [{ q: 1.5 }] },
    { m: '😀😀', l: [{ q: 2 }] },
  ],
};

let dir: string;
let checkers: Record<Name, Check>;
let text: string;

beforeAll(async () => {
  text = generate({
    what: 'test: the identity option',
    runtime: pathToFileURL(fileURLToPath(new URL('../../src/core/checker-runtime.ts', import.meta.url))).href,
    functions: new Map(),
    identity: true,
    roots: Object.entries(SCHEMAS).map(([name, schema]) => ({
      name: `check_${name}`,
      schema: schema as unknown as Schema,
      eager: true,
    })),
  });
  dir = mkdtempSync(join(tmpdir(), 'identity-option-'));
  const file = join(dir, 'checkers.generated.ts');
  writeFileSync(file, text);
  const mod = (await import(pathToFileURL(file).href)) as Record<string, Check>;
  checkers = Object.fromEntries(Object.keys(SCHEMAS).map((n) => [n, mod[`check_${n}`]!])) as Record<
    Name,
    Check
  >;
});

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function agree(name: Name, input: unknown): void {
  const expected = SCHEMAS[name].safeParse(input);
  const issues: RawIssue[] = [];
  const value = checkers[name](input, issues);
  expect(issues.length === 0).toBe(expected.success);
  if (expected.success) expect(value).toStrictEqual(expected.data);
  else
    expect(issues.map((i) => [i.code, i.path, i.message])).toEqual(
      expected.error.issues.map((i) => [i.code, i.path, i.message]),
    );
}

describe('the generator with `identity`', () => {
  it('writes predicates (the option is on) and a checker per schema', () => {
    expect(text).toMatch(/function p\d+\(v\)/);
    for (const name of Object.keys(SCHEMAS)) expect(typeof checkers[name as Name]).toBe('function');
  });

  it.each(Object.keys(SCHEMAS) as Name[])('%s: agrees with zod on its edges and on any value', (name) => {
    for (const input of EDGES[name]) agree(name, structuredClone(input));
    fc.assert(
      fc.property(fc.anything(), (input) => agree(name, input)),
      { numRuns: 300 },
    );
  });

  it('returns an input as received only where zod would give back the same value', () => {
    const same = (name: Name, input: unknown) => checkers[name](input, []) === input;
    // Every key present and valid: nothing to fill in, nothing caught.
    expect(same('defaultsAndCatch', { a: 'x', c: 'c', d: 'd' })).toBe(true);
    expect(same('defaultsAndCatch', { a: 'x', d: 'd' })).toBe(false);
    expect(same('defaultsAndCatch', { a: 'x', c: 'c', d: 5 })).toBe(false);
    // The first option (a catch) takes a number too, as 'x': no predicate may stand for the union.
    expect(checkers.unionCatchFirst({ u: 5 }, [])).toStrictEqual({ u: 'x' });
    expect(checkers.unionDefaultFirst({ u: { j: 'j' } }, [])).toStrictEqual({ u: { j: 'j', k: 'k' } });
    expect(same('nullableObject', { n: null })).toBe(true);
    expect(same('nullableObject', { n: { a: 'a' } })).toBe(true);
    // A stripped object drops a key it does not know: never returned as received.
    expect(same('stripped', { s: { a: 'a' } })).toBe(false);
    expect(same('arrayOfOptional', { arr: ['a', 'b'] })).toBe(true);
    // A length bound counts code points, the test UTF-16 units: only a string long enough in either passes it.
    expect(same('lengthBound', { m: 'abc', l: [{ q: 1 }] })).toBe(true);
    const short = { m: 'ab', l: [] };
    expect(same('lengthBound', short)).toBe(false);
    expect(checkers.lengthBound(short, [])).toStrictEqual(short);
  });
});
