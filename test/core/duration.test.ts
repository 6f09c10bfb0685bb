import { describe, expect, it } from 'vitest';
import { parseDurationMs, parseRetryAfterHeader } from '../../src/core/error-body.js';

describe('parseDurationMs', () => {
  it.each([
    ['1s', 1000],
    ['60s', 60_000],
    ['500ms', 500],
    ['2m', 120_000],
    ['1.5s', 1500],
    ['3', 3000],
    [2, 2000],
  ])('%s → %i ms', (input, ms) => expect(parseDurationMs(input)).toBe(ms));

  it.each([['soon'], [''], ['-1s'], [null], [{}], [Number.NaN]])('%s → undefined', (input) =>
    expect(parseDurationMs(input)).toBeUndefined(),
  );

  it('reads an HTTP-date Retry-After', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfterHeader('Thu, 01 Jan 2026 00:00:05 GMT', now)).toBe(5000);
    expect(parseRetryAfterHeader(null)).toBeUndefined();
  });
});
