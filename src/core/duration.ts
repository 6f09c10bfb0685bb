/**
 * Parses the gateway's duration strings (`params.retry_after`: `1s`, `60s`) and HTTP `Retry-After` values into
 * milliseconds. Returns `undefined` for anything it cannot read, so a malformed hint falls back to backoff
 * instead of failing the request.
 */
const UNIT_MS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

export function parseDurationMs(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? value * 1000 : undefined;
  if (typeof value !== 'string') return undefined;
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$/i.exec(value);
  if (!match) return undefined;
  const unit = (match[2] ?? 's').toLowerCase();
  return Math.round(Number(match[1]) * (UNIT_MS[unit] ?? 1000));
}

/** `Retry-After` is either delay-seconds or an HTTP date. */
export function parseRetryAfterHeader(value: string | null, now = Date.now()): number | undefined {
  if (value === null) return undefined;
  const seconds = parseDurationMs(value);
  if (seconds !== undefined) return seconds;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
