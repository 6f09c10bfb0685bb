import { z } from 'zod';

/**
 * Field primitives every platform resource builds its schemas from: identifiers, instants, computed figures,
 * the channel reference and custom fields. Types are inferred from the schemas (`z.infer`), never kept by hand.
 *
 * Response records are loose: a field the spec does not list is kept as the server sent it, and a field the
 * spec does not describe in detail is typed as leniently as its description allows, so a server that grows a
 * field never breaks a report. Field names are the wire names.
 */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether `value` is a UUID string (any version, any case), the form of every platform identifier. */
export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID.test(value);
}

export const uuidSchema = z
  .string({ error: 'must be a UUID string' })
  .regex(UUID, { error: 'must be a UUID such as 3f2b8c1e-4d5a-4b6c-9e7f-0a1b2c3d4e5f' });

/**
 * An instant: a `Date`, or an ISO 8601 date-time string (sent as given, so a server-side precision such as
 * microseconds survives). A string without a UTC offset is read as UTC.
 */
export const instantSchema = z.union([z.date(), z.string()]).refine((v) => !Number.isNaN(instantMs(v)), {
  error: 'must be a valid Date or an ISO 8601 date-time string',
});
export type Instant = z.input<typeof instantSchema>;

/**
 * A query's refinement: `to` at most `latestEnd(from)` (the platform answers a longer span with a 400), so the
 * exported query schema gives the same verdict as the SDK's own check before the request. `message` says what the
 * latest end was, as an ISO string.
 */
export function maxSpan(
  from: string,
  to: string,
  latestEnd: (fromMs: number) => number,
  message: (latest: string) => string,
) {
  return (query: Record<string, unknown>, ctx: z.RefinementCtx) => {
    const a = query[from];
    const b = query[to];
    if (a === undefined || b === undefined) return;
    const latest = latestEnd(instantMs(a as Date | string));
    if (instantMs(b as Date | string) > latest) {
      const rule = `${to}.max_span`;
      ctx.addIssue({
        code: 'custom',
        path: [to],
        params: { rule },
        message: message(new Date(latest).toISOString()),
      });
    }
  };
}

const ZONED = /(?:z|[+-]\d{2}(?::?\d{2})?)$/i;

/**
 * Epoch milliseconds of a `Date` or an ISO 8601 string, `NaN` when unreadable. The platform's timestamps may
 * carry microseconds; they are truncated to the millisecond (what `Date.parse` does).
 */
export function instantMs(value: Date | string): number {
  if (value instanceof Date) return value.getTime();
  if (typeof value !== 'string' || value.trim() === '') return Number.NaN;
  const v = value.trim();
  // A bare date-time would otherwise be read in the local time zone of whichever machine runs the SDK.
  return Date.parse(/T|\s\d/.test(v) && !ZONED.test(v) ? `${v}Z` : v);
}

/**
 * A computed figure (an average, a percentage). Django serialises `Decimal` aggregates as strings, so a
 * numeric string is read as its number rather than failing the whole report.
 */
export const figure = z.union([
  z.number(),
  z
    .string()
    .regex(/^-?\d+(?:\.\d+)?$/)
    .transform(Number),
]);
export const nullableFigure = figure.nullable();
export const optionalText = z.string().nullable().optional();

export const channelRefSchema = z.looseObject({
  uuid: z.string(),
  name: optionalText,
  backend: optionalText,
});

/** A custom field's value, sent as `{ value }`. */
export const customFieldValueSchema = z.union([z.string(), z.number(), z.boolean(), z.null()], {
  error: 'a custom field value must be a string, number, boolean or null',
});
export type CustomFieldValue = z.input<typeof customFieldValueSchema>;

/** Custom-field identifier → value. */
export const customFieldsSchema = z
  .record(z.string().min(1, 'a custom field identifier is empty'), customFieldValueSchema)
  .refine((fields) => Object.keys(fields).length > 0, { error: 'no custom fields given' });
export type CustomFields = z.input<typeof customFieldsSchema>;
