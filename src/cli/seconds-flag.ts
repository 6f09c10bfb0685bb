import { MAX_TIMER_MS } from '../core/duration.js';
import { UsageError } from './io.js';

/**
 * A `--timeout <seconds>` flag as milliseconds: a number above 0 (fractions allowed), at most what a timer takes
 * (24 days); `fallback` (seconds) when the flag is not given. Anything else is a usage error naming the flag.
 *
 * @example
 * const timeoutMs = secondsFlag('--timeout', values.timeout, 60);
 */
export function secondsFlag(flag: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback * 1000;
  const ms = Math.ceil(Number(value.trim() === '' ? Number.NaN : value) * 1000);
  if (!Number.isFinite(ms) || ms <= 0)
    throw new UsageError(`${flag} is a number of seconds above 0; got '${value}'.`);
  if (ms > MAX_TIMER_MS)
    throw new UsageError(`${flag} is at most ${Math.floor(MAX_TIMER_MS / 1000)} seconds; got '${value}'.`);
  return ms;
}
