/**
 * Wire primitives the webhook schemas share: open enumerations, timestamps, and the fields every incoming
 * message carries. Imports nothing but zod/mini.
 */
import * as z from '../core/zod.js';
import { isNonEmptyString, isString } from './wire-rules.js';

/**
 * A string that is one of the known values or any other string. The `string & {}` arm keeps editors offering the
 * known values while accepting new ones the gateway may add.
 */
export type OpenEnum<T extends string> = T | (string & {});

/** Accepts any (non-empty) string at runtime; typed as the known values plus `string`. */
export function openEnum<const T extends string>(_known: readonly T[], { nonEmpty = false } = {}) {
  return z.custom<OpenEnum<T>>(nonEmpty ? isNonEmptyString : isString, {
    error: nonEmpty ? 'Expected a non-empty string' : 'Expected a string',
  });
}

// One instance of each common field schema, shared by every field of that type: each schema costs time to build
// at import (docs/benchmarks.md, cold import), and a schema holds no per-field state, so sharing is safe.
/** A string field. */
export const requiredString = z.string();
/** A string field that may be absent. */
export const optionalString = z.optional(requiredString);
/** A string field that must not be empty (an id, a type). */
export const nonEmptyString = z.string().check(z.minLength(1));

// The spec says timestamps are strings of Unix seconds; a number is accepted too, since re-serialising relays
// are known to turn them into numbers and refusing one would lose the event.
export const timestampSchema = z.union([requiredString, z.number()]);

/** Optional reply context some incoming messages carry (not in the spec; kept typed because it is common). */
const contextSchema = z.looseObject({ from: optionalString, id: optionalString });

// The fields every incoming message shares ("Every incoming message has these fields"), as real deliveries carry
// them: the sender is a phone number, a business-scoped user id, or both (docs/webhooks.md, "Who sent it").
export const messageBase = {
  /** The message's `wamid`: the idempotency key. */
  id: nonEmptyString,
  /** Sender's number; absent for a user known by `from_user_id` only (see `customerOf`). */
  from: optionalString,
  /** Sender's business-scoped user id, when sent. */
  from_user_id: optionalString,
  /** Business-scoped id of the sender's parent account, when sent. */
  from_parent_user_id: optionalString,
  /** Unix time in seconds, as sent. The event carries it parsed as `timestamp` and verbatim as `timestampRaw`. */
  timestamp: timestampSchema,
  context: z.optional(contextSchema),
};

/**
 * What every media message (image, audio, video, document, sticker) carries: the media id is what the download
 * needs, so it is required; the rest describe the file and are absent from some real deliveries.
 */
export const mediaFields = {
  /** Media identifier for the media download endpoint (valid 30 days). */
  id: nonEmptyString,
  /** Absent from some deliveries (the download's `Content-Type` has it). */
  mime_type: optionalString,
  /** Absent from some deliveries. */
  sha256: optionalString,
};
