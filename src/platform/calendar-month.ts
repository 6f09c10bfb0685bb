/**
 * The platform's "a feedbacks request spans at most one month", the one rule of it: `end_date` at most one calendar
 * month after `start_date`, as the platform (a Python service) reads a month: `relativedelta(months=1)`, the same
 * day and time of the next month, clamped to its last day (1 February → 1 March, 31 January → 29 February in a
 * leap year). `feedbacksQuerySchema` checks a query by it, `feedbacksRange` cuts its windows by it, and the SDK's
 * platform simulator answers 400 by it, so the three cannot disagree (a fixed 31 days let 1 February → 2 March
 * through, which the platform refuses).
 */

/**
 * The same day and time one calendar month later (clamped to the month's last day, as `relativedelta`), in epoch
 * milliseconds; `NaN` for `NaN`.
 *
 * @example
 * addMonth(Date.parse('2024-01-31T10:00:00Z')); // Date.parse('2024-02-29T10:00:00Z')
 * addMonth(Date.parse('2024-02-01T00:00:00Z')); // Date.parse('2024-03-01T00:00:00Z')
 */
export function addMonth(ms: number): number {
  const d = new Date(ms);
  const y = d.getUTCFullYear();
  const m = d.getUTCMonth() + 1;
  // setUTCFullYear, not Date.UTC, which reads a year below 100 as 19xx.
  const next = new Date(0);
  next.setUTCFullYear(y, m + 1, 0);
  const last = next.getUTCDate();
  next.setUTCFullYear(y, m, Math.min(d.getUTCDate(), last));
  next.setUTCHours(d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds(), d.getUTCMilliseconds());
  return next.getTime();
}
