/**
 * Marks of the SDK's objects whose state lives in one process, read the same in every copy of the SDK (its ESM and
 * CommonJS builds loaded side by side, where `instanceof` of the other copy's class fails): what a campaign's
 * workers, which run in many processes, must refuse. One mark per kind, so that one kind never passes for another.
 */

/** The in-memory rate limiter (`RateLimiter`). */
export const ONE_PROCESS_LIMITER = Symbol.for('wa-gateway-sdk.one-process-limiter');

/** The in-memory opt-out list (`MemorySuppressionList`). */
export const ONE_PROCESS_SUPPRESSIONS = Symbol.for('wa-gateway-sdk.one-process-suppressions');

/** Whether `value` carries `mark`; a Proxy whose trap throws carries none. */
export function hasMark(value: unknown, mark: symbol): boolean {
  try {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[mark] === true;
  } catch {
    return false;
  }
}
