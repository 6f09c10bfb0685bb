import { describe, expect, it } from 'vitest';
import { MemoryWindowStore } from '../../src/conversations/stores.js';
import { givenKind, givenValue } from '../../src/core/given-value.js';

describe('givenValue: what a bad value was, never its content', () => {
  const revoked = Proxy.revocable({}, {});
  revoked.revoke();
  const nullProto = Object.create(null) as object;
  const throwingToString = {
    toString() {
      throw new Error('never called');
    },
  };
  it.each(
    [
      [5000, '5000'],
      [Number.NaN, 'NaN'],
      [null, 'null'],
      [undefined, 'undefined'],
      ['sk_live_abcdef', 'a string'],
      ['', 'an empty string'],
      ['  \n', 'an empty string'],
      [[1, 2], 'an array'],
      [{ a: 1 }, 'an object'],
      [nullProto, 'an object'],
      [throwingToString, 'an object'],
      [revoked.proxy, 'an object'],
      [() => 1, 'a function'],
      [10n, 'a bigint'],
      [Symbol('s'), 'a symbol'],
      [true, 'a boolean'],
    ].map(([value, expected]) => ({ value, expected })),
  )('$expected', ({ value, expected }) => {
    expect(givenValue(value)).toBe(expected);
  });
});

describe('givenKind: the same for a value that may be personal data, and no number echoed', () => {
  it('a phone number given as a number is "a number"; anything else as givenValue says', () => {
    expect(givenKind(998901234567)).toBe('a number');
    expect(givenKind('998901234567')).toBe('a string');
    expect(givenKind(null)).toBe('null');
  });
});

it("a window store given a customer's number as a number does not echo it", async () => {
  const error = await Promise.resolve()
    .then(() => new MemoryWindowStore().lastInbound(998901234567 as never))
    .then(
      () => undefined,
      (e: unknown) => e as Error,
    );
  expect(error?.name).toBe('ConfigurationError');
  expect(error?.message).toMatch(/got a number\.$/);
  expect(error?.message).not.toContain('998901234567');
});
