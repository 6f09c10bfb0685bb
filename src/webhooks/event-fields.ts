/** What events carry beside the wire objects: issues, parsed timestamps and content-derived keys. */

import { formatPath } from '../core/plain-data.js';
import type { Path } from './decode-body.js';
import type { WebhookIssue } from './events.js';

export function issue(path: Path, code: string, message: string): WebhookIssue {
  return { path, code, message };
}

// Zod's default messages name expected and received types only; its issues carry no input unless asked to.
export { toIssues } from '../core/issues.js';

const NUMERIC = /^\s*-?\d+(?:\.\d+)?\s*$/;

/**
 * Unix seconds from a wire timestamp. `undefined` when absent or not a plain decimal number: `NaN` would make
 * every comparison false and silently break sorting, `undefined` makes the caller decide.
 */
// biome-ignore format: in parentheses, V8 compiles it with the module rather than on a first delivery (docs/benchmarks.md)
export const parseTimestamp = (function parseTimestamp(raw: unknown): number | undefined {
  if (typeof raw === 'number') return Number.isFinite(raw) ? raw : undefined;
  if (typeof raw !== 'string') return undefined;
  const digits = digitsValue(raw);
  if (digits !== undefined) return digits;
  if (!NUMERIC.test(raw)) return undefined;
  const n = Number(raw);
  return Number.isFinite(n) ? n : undefined;
});

/**
 * The value of `text` when it is 1 to 15 ASCII digits, as wire timestamps are; `NUMERIC` and `Number` answer the
 * rest, so a first delivery compiles no regular expression and none converts a string twice. The last 8 digits and
 * the ones before are summed apart, each below 2^30: where V8 compresses pointers (workerd, Chrome) a small integer
 * has 31 bits, and one running sum of a 10-digit timestamp leaves that range on its last digit, which cost a
 * 20-status batch 4% inside workerd (docs/benchmarks.md). Exact: 15 digits stay below 2^53.
 */
// biome-ignore format: in parentheses, V8 compiles it with the module rather than on a first delivery (docs/benchmarks.md)
const digitsValue = (function digitsValue(text: string): number | undefined {
  const length = text.length;
  if (length === 0 || length > 15) return undefined;
  const split = length > 8 ? length - 8 : 0;
  let high = 0;
  for (let i = 0; i < split; i++) {
    const digit = text.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return undefined;
    high = high * 10 + digit;
  }
  let low = 0;
  for (let i = split; i < length; i++) {
    const digit = text.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return undefined;
    low = low * 10 + digit;
  }
  return split === 0 ? low : high * 100_000_000 + low;
});

// biome-ignore format: in parentheses, V8 compiles it with the module rather than on a first delivery (docs/benchmarks.md)
export const rawTimestampString = (function rawTimestampString(raw: unknown): string | undefined {
  if (typeof raw === 'string') return raw;
  if (typeof raw === 'number') return String(raw);
  return undefined;
});

/**
 * A 53-bit hash (cyrb53) of the JSON of the given parts, in base 36. Not cryptographic: it only has to map the same
 * redelivered content to the same key, with collisions far rarer than 24 hours of events.
 */
export function contentHash(time: unknown, raw: unknown, fallbackPath?: Path): string {
  let text: string;
  try {
    text = JSON.stringify([time ?? null, raw]) ?? '';
  } catch {
    // A cycle or BigInt in an object handed in by the caller: fall back to the location, still deterministic.
    text = `path:${fallbackPath ? formatPath(fallbackPath) : ''}`;
  }
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(36);
}
