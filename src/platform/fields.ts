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

/** Any JSON value: a string, a finite number, a boolean, null, an array or a plain object of JSON values. */
const jsonValueSchema = z.json();

/** How deep a custom field's value may nest before it is refused (a deeper one would exhaust the stack). */
const JSON_DEPTH_MAX = 64;

/** Why `value` cannot be sent as JSON, and where, or `undefined` when it can. */
function notJson(
  value: unknown,
  path: (string | number)[],
  open: Set<object>,
): [string, (string | number)[]] | undefined {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return undefined;
  if (typeof value === 'number')
    return Number.isFinite(value) ? undefined : [`${value} (JSON has no NaN or Infinity)`, path];
  if (typeof value !== 'object') return [value === undefined ? 'undefined' : `a ${typeof value}`, path];
  if (open.has(value)) return ['a circular reference', path];
  if (path.length >= JSON_DEPTH_MAX) return [`nested deeper than ${JSON_DEPTH_MAX} levels`, path];
  const proto: unknown = Object.getPrototypeOf(value);
  const array = Array.isArray(value);
  if (!array && proto !== Object.prototype && proto !== null)
    return [
      `a ${(value as object).constructor?.name ?? 'non-plain'} object (only plain objects and arrays are JSON)`,
      path,
    ];
  open.add(value);
  try {
    const entries: [string | number, unknown][] = array
      ? Array.from(value as unknown[], (v, i) => [i, v])
      : Object.entries(value);
    for (const [key, v] of entries) {
      const problem = notJson(v, [...path, key], open);
      if (problem) return problem;
    }
  } finally {
    open.delete(value);
  }
  return undefined;
}

/**
 * A custom field's value, sent as `{ value }`. The spec gives it no type, so any JSON value goes (a multi-select
 * field's array, an object) and the server judges it (a 400 with `info` and `error`). What cannot be sent as JSON
 * (`undefined`, a function, a bigint, a symbol, `NaN`, an instance of a class, a circular reference) is refused
 * with an issue naming where it is.
 */
export const customFieldValueSchema = z
  .custom<z.input<typeof jsonValueSchema>>()
  .superRefine((value, ctx) => {
    const problem = notJson(value, [], new Set());
    if (!problem) return;
    const [what, at] = problem;
    ctx.addIssue({
      code: 'custom',
      path: at,
      input: value,
      params: { rule: 'custom_field.json' },
      message: `a custom field value must be a JSON value (string, number, boolean, null, array or plain object); ${
        at.length > 0 ? `value.${at.join('.')} is` : 'got'
      } ${what}`,
    });
  });
export type CustomFieldValue = z.input<typeof customFieldValueSchema>;

/** Custom-field identifier → value. */
export const customFieldsSchema = z
  .record(z.string().min(1, 'a custom field identifier is empty'), customFieldValueSchema)
  .refine((fields) => Object.keys(fields).length > 0, { error: 'no custom fields given' });
export type CustomFields = z.input<typeof customFieldsSchema>;
