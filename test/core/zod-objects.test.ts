/**
 * `core/zod.ts`'s object constructors: zod/mini's, on the compiled parse path, with zod's own handling of params.
 */
import { describe, expect, it } from 'vitest';
import * as z from '../../src/core/zod.js';

const messages = (r: { error?: { issues: { message: string }[] } | undefined }) =>
  r.error?.issues.map((i) => i.message);

describe('core/zod objects', () => {
  it('loose keeps unknown keys, strict refuses them, object strips them', () => {
    const shape = { a: z.string() };
    expect(z.looseObject(shape).parse({ a: 'x', b: 1 })).toEqual({ a: 'x', b: 1 });
    expect(z.object(shape).parse({ a: 'x', b: 1 })).toEqual({ a: 'x' });
    expect(z.strictObject(shape).safeParse({ a: 'x', b: 1 }).success).toBe(false);
  });

  it('takes params as zod/mini does: a string or { error } is the message', () => {
    expect(messages(z.looseObject({ a: z.string() }, 'an object with a').safeParse(5))).toEqual([
      'an object with a',
    ]);
    expect(messages(z.strictObject({ a: z.string() }, { error: 'strict' }).safeParse(5))).toEqual(['strict']);
    expect(messages(z.object({ a: z.string() }).safeParse(5))).toEqual([
      'Invalid input: expected object, received number',
    ]);
  });

  it('is on the compiled object path, with or without params', () => {
    for (const schema of [z.looseObject({}), z.strictObject({}, 'x'), z.object({})]) {
      expect(schema._zod.traits.has('$ZodObjectJIT')).toBe(true);
    }
  });
});
