/**
 * Checks of call arguments, made before any request so that a mistake costs no round trip and is named
 * precisely, and the wire form of the few arguments the platform wants shaped differently.
 */

import type { z } from 'zod';
import { hot } from '../core/compiled.js';
import { invalidArgument, MessageValidationError } from '../core/errors.js';
import { safeCheck } from '../core/zod.js';
import { type Instant, instantMs, isUuid } from './fields.js';

export function argumentsCheck<S extends z.ZodType>(schema: S, input: unknown, what: string): z.output<S> {
  const result = safeCheck(hot(schema), input);
  if (result.ok) return result.data;
  throw new MessageValidationError(result.issues, what);
}

/** `'conversations.archive uuid'` as the call and the argument's name. */
function split(what: string): [call: string, argument: string] {
  const at = what.lastIndexOf(' ');
  return at === -1 ? [what, 'value'] : [what.slice(0, at), what.slice(at + 1)];
}

export function requireUuid(value: unknown, what: string): string {
  if (isUuid(value)) return value;
  const [call, argument] = split(what);
  throw invalidArgument(
    call,
    [argument],
    `must be a UUID such as 3f2b8c1e-4d5a-4b6c-9e7f-0a1b2c3d4e5f; got ${
      typeof value === 'string' ? `'${value.slice(0, 60)}'` : typeof value
    }`,
    `${argument}.format`,
  );
}

/** Epoch milliseconds of a `Date` or ISO 8601 string. */
export function requireInstant(value: unknown, what: string): number {
  const ms = value instanceof Date || typeof value === 'string' ? instantMs(value) : Number.NaN;
  if (Number.isNaN(ms)) {
    const [call, argument] = split(what);
    throw invalidArgument(
      call,
      [argument],
      'must be a valid Date or ISO 8601 date-time string',
      `${argument}.format`,
    );
  }
  return ms;
}

/** A method's options, `null` read as none (as `requestOf` reads it), so no option read throws a `TypeError`. */
export function optionsOf<O extends object>(options: O | null | undefined): Partial<O> {
  return options ?? {};
}

/** A string is sent as the caller wrote it: it may carry microseconds that a `Date` would lose. */
export function toWire(value: Instant): string {
  return value instanceof Date ? value.toISOString() : value;
}

/** The platform takes custom fields as `{ identifier: { value } }`. */
export function wrapValues(fields: Record<string, unknown>): Record<string, { value: unknown }> {
  const out: Record<string, { value: unknown }> = {};
  for (const [key, value] of Object.entries(fields)) out[key] = { value };
  return out;
}
