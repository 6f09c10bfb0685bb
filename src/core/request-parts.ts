import { ConfigurationError } from './errors.js';
import type { QueryParams } from './transport-types.js';

/** A call's own `timeoutMs`, checked: a typo must not become a zero or endless timeout. */
export function callTimeout(value: number | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !(value > 0) || !Number.isFinite(value)) {
    throw new ConfigurationError(
      `timeoutMs must be a positive number of milliseconds; got ${String(value)}.`,
    );
  }
  return value;
}

export function callMaxRetries(value: number | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isInteger(value) || value < 0) {
    throw new ConfigurationError(`maxRetries must be a whole number ≥ 0; got ${String(value)}.`);
  }
  return value;
}

/** `a=1&b=2`, or '' without building a URLSearchParams when every value is absent (the common send). */
export function queryString(query: QueryParams): string {
  for (const key in query) {
    const value = query[key];
    if (value !== undefined && value !== null) return toSearchParams(query).toString();
  }
  return '';
}

function toSearchParams(query: QueryParams): URLSearchParams {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined || value === null) continue;
    if (Array.isArray(value)) for (const v of value) params.append(key, String(v));
    else params.append(key, String(value));
  }
  return params;
}
