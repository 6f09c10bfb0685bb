/**
 * The one rule for a duration option (a timeout, a lease, a TTL), wherever it is taken: client options, webhook
 * handlers, the in-memory stores and every Redis store; and its sibling for a count option (a cache's size, a
 * number of tries). Zod-free and Node-free: every entry uses them.
 */
import { ConfigurationError } from './errors.js';
import { givenValue } from './given-value.js';

/** The longest delay a timer takes: Node (and browsers) run a longer `setTimeout` at once, after a warning. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * The longest a stored record is kept (a Redis store's key, the router's session and reply ledger): 5 years of 365
 * days. Redis's `PX` takes far more; nobody means it, and a larger value is a typo to refuse when the option is
 * given. A literal, not `5 * 365 * ...`: esbuild keeps an unused product in a bundle (the webhooks Worker's, which
 * bounds no retention), and drops an unused literal.
 */
export const MAX_RETENTION_MS = 157_680_000_000;

/**
 * A duration in whole milliseconds: a finite number above 0, rounded up to a whole millisecond (Redis's `PX`
 * takes integers). `undefined` takes `fallback` when there is one. Anything else (and `undefined` without a
 * fallback) throws `ConfigurationError` naming the option: never a silent fall back to the default.
 *
 * @param name The option as the message should name it, e.g. ``'new RedisTokenStore: `lockLeaseMs`'``.
 * @example
 * const leaseMs = durationMs(options.leaseMs, 'new MyStore: `leaseMs`', 15_000);
 */
export function durationMs(value: unknown, name: string, fallback?: number): number {
  if (value === undefined && fallback !== undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0)
    throw new ConfigurationError(
      `${name} must be a positive number of milliseconds; got ${givenValue(value)}.`,
    );
  return Math.ceil(value);
}

/**
 * A count option (a cache's size, a number of tries): a whole number of at least 1; `undefined` takes `fallback`.
 * Anything else throws `ConfigurationError` naming the option, as `durationMs` does.
 *
 * @example
 * const maxKeys = countOption(options.maxKeys, 'new MyStore: `maxKeys`', 100_000);
 */
export function countOption(value: unknown, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || (value as number) < 1)
    throw new ConfigurationError(`${name} must be a whole number of at least 1; got ${givenValue(value)}.`);
  return value as number;
}

/**
 * A count option that may be 0 (`maxRetries`): a whole number ≥ 0; `undefined` stays `undefined`, for the caller's
 * default. Anything else throws `ConfigurationError` naming the option.
 *
 * @example
 * const maxRetries = nonNegativeInt(options.maxRetries, 'maxRetries') ?? 2;
 */
export function nonNegativeInt(value: number | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isInteger(value) || value < 0) {
    throw new ConfigurationError(`${name} must be a whole number ≥ 0; got ${givenValue(value)}.`);
  }
  return value;
}

/**
 * `durationMs`, at most `max` (`MAX_TIMER_MS` for a timer's delay). Apart from it, so the webhooks entry, which
 * bounds none, does not carry the bound's message (its Worker bundle is held to a size).
 *
 * @example
 * const pollMs = boundedDurationMs(options.pollMs, 'queue.work: `pollMs`', 1_000, MAX_TIMER_MS);
 */
export function boundedDurationMs(
  value: unknown,
  name: string,
  fallback: number | undefined,
  max: number,
): number {
  const ms = durationMs(value, name, fallback);
  if (ms > max) {
    throw new ConfigurationError(
      `${name} must be at most ${max.toLocaleString('en-US')} ms; got ${(value as number).toLocaleString('en-US')}.`,
    );
  }
  return ms;
}
