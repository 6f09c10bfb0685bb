import { describe, expect, it } from 'vitest';
import { givenValue } from '../../src/core/given-value.js';

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
