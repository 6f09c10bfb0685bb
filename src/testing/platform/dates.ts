import { instantMs } from '../../platform/fields.js';
import type { DateRange, ReportTrunc } from '../../platform/reports.schema.js';

/** Dates as the platform reads them: microsecond instants, relative ranges, report buckets. */

export const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * Epoch microseconds of an ISO 8601 string, `NaN` when unreadable. The platform compares its bounds to the
 * microsecond, which a `Date` cannot hold.
 */
export function instantMicros(value: string): number {
  const ms = instantMs(value);
  if (Number.isNaN(ms)) return Number.NaN;
  const fraction = /T\d{2}:\d{2}:\d{2}[.,](\d+)/i.exec(value)?.[1] ?? '';
  return ms * 1000 + Number((fraction.slice(3, 6) || '0').padEnd(3, '0'));
}

/** Unreadable timestamps sort last. */
export function orderOf(us: number): number {
  return Number.isNaN(us) ? Number.POSITIVE_INFINITY : us;
}

/** A relative range as inclusive epoch-ms bounds, in UTC. */
export function rangeOf(range: DateRange, now: number): [number, number] {
  const d = new Date(now);
  const y = d.getUTCFullYear();
  const m = d.getUTCMonth();
  const today = Date.UTC(y, m, d.getUTCDate());
  const monday = today - ((d.getUTCDay() + 6) % 7) * DAY_MS;
  switch (range) {
    case 'today':
      return [today, now];
    case 'yesterday':
      return [today - DAY_MS, today - 1];
    case 'last_7':
      return [now - 7 * DAY_MS, now];
    case 'last_14':
      return [now - 14 * DAY_MS, now];
    case 'last_30':
      return [now - 30 * DAY_MS, now];
    case 'last_week':
      return [monday - 7 * DAY_MS, monday - 1];
    case 'last_month':
      return [Date.UTC(y, m - 1, 1), Date.UTC(y, m, 1) - 1];
    case 'wtd':
      return [monday, now];
    case 'mtd':
      return [Date.UTC(y, m, 1), now];
    case 'ytd':
      return [Date.UTC(y, 0, 1), now];
  }
}

/** The `date` of a report entry: the start of the `trunc` bucket. */
export function bucketOf(ms: number, trunc: ReportTrunc): string {
  if (Number.isNaN(ms)) return 'unknown';
  const d = new Date(ms);
  const day = (t: number) => new Date(t).toISOString().slice(0, 10);
  switch (trunc) {
    case 'hour':
      return `${d.toISOString().slice(0, 13)}:00:00Z`;
    case 'day':
      return day(ms);
    case 'week':
      return day(
        Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate()) - ((d.getUTCDay() + 6) % 7) * DAY_MS,
      );
    case 'month':
      return `${d.toISOString().slice(0, 7)}-01`;
    case 'year':
      return `${d.getUTCFullYear()}-01-01`;
  }
}
