import { describe, expect, it } from 'vitest';
import { addMonth } from '../../src/platform/calendar-month.js';

describe('addMonth, the platform\'s "one month" (relativedelta(months=1))', () => {
  it.each([
    ['2024-02-01T00:00:00.000Z', '2024-03-01T00:00:00.000Z'],
    ['2024-01-31T10:00:00.123Z', '2024-02-29T10:00:00.123Z'],
    ['2023-01-31T10:00:00.000Z', '2023-02-28T10:00:00.000Z'],
    ['2024-03-31T23:59:59.999Z', '2024-04-30T23:59:59.999Z'],
    ['2024-12-15T12:00:00.000Z', '2025-01-15T12:00:00.000Z'],
    // Date.UTC read a year below 100 as 19xx: 0050 became 1950.
    ['0050-01-31T00:00:00.000Z', '0050-02-28T00:00:00.000Z'],
  ])('%s → %s', (from, to) => {
    expect(new Date(addMonth(Date.parse(from))).toISOString()).toBe(to);
  });

  it('an unreadable instant stays unreadable', () => {
    expect(addMonth(Number.NaN)).toBeNaN();
  });
});
