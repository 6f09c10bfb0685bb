/**
 * An ISO 8601 date or date-time as the CLI's flags take it (`2024-05-01`, `2024-05-01T09:00:00Z`,
 * `2024-05-01T09:00:00.123+05:00`), in ms since the epoch; `NaN` for anything else. `Date.parse` alone stretches
 * other text into a date (`1` is 2001-01-01, `May 5` a local time in 2001): a range would be exported wrongly, in
 * silence.
 *
 * @example
 * parseIsoTime('2024-01-01T00:00:00Z'); // 1704067200000
 * parseIsoTime('1'); // NaN
 */
export function parseIsoTime(value: string): number {
  return ISO_TIME.test(value) ? Date.parse(value) : Number.NaN;
}

const ISO_TIME = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;
