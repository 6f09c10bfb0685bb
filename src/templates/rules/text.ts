import { formatPath as formatDataPath } from '../../core/plain-data.js';
import type { TemplatePath } from './shape.js';
import { Opaque, SArray, SObject, type SValue } from './snapshot.js';

// ---------------------------------------------------------------------------------------------------------
// Text helpers.

export { charCount } from '../../core/text.js';
export {
  endsWithVariable,
  type MalformedKind,
  type MalformedVariable,
  scanVariables,
  startsWithVariable,
  type VariableScan,
} from './variables.js';

export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

export const chars = (n: number) => plural(n, 'character');

/**
 * A string quoted for a message, cut to `max` units so huge input is never echoed.
 *
 * @example
 * quote('x'.repeat(100)); // the first 40 x's in JSON quotes, then '…'
 */
export function quote(value: string, max = 40): string {
  if (value.length <= max) return JSON.stringify(value);
  let cut = value.slice(0, max);
  const last = cut.charCodeAt(cut.length - 1);
  if (last >= 0xd800 && last <= 0xdbff) cut = cut.slice(0, -1);
  return `${JSON.stringify(cut)}…`;
}

/**
 * How generic messages name a location.
 *
 * @example
 * formatPath(['buttons', 2, 'url']); // 'buttons[2].url'
 */
export function formatPath(path: TemplatePath): string {
  return formatDataPath(path, 'The template');
}

const ITEM_NOUN: Readonly<Record<string, string>> = { buttons: 'button', carousel: 'card' };
const NOUN: Readonly<Record<string, string>> = { limitedTimeOffer: 'limited-time offer' };

/**
 * How semantic messages name a component for a person (1-based).
 *
 * @example
 * where(['carousel', 1, 'header']); // 'Card 2 header'
 */
export function where(path: TemplatePath): string {
  const parts: string[] = [];
  for (let i = 0; i < path.length; i++) {
    const seg = path[i];
    if (typeof seg !== 'string') continue;
    const next = path[i + 1];
    parts.push(typeof next === 'number' ? `${ITEM_NOUN[seg] ?? seg} ${next + 1}` : (NOUN[seg] ?? seg));
  }
  const s = parts.join(' ');
  return s.charAt(0).toUpperCase() + s.slice(1);
}

export function typeName(v: SValue): string {
  if (v === undefined) return 'undefined';
  if (v === null) return 'null';
  if (v instanceof SObject) return 'an object';
  if (v instanceof SArray) return 'an array';
  if (v instanceof Opaque) return v.what;
  if (typeof v === 'string') return `a string (${quote(v)})`;
  if (typeof v === 'number') return Number.isFinite(v) ? `the number ${v}` : String(v);
  return `the boolean ${v}`;
}

/** A known value that differs only in case or `-`/`_`, for "did you mean". */
export function enumHint(value: string, options: readonly string[]): string | undefined {
  if (value.length > 40) return undefined;
  const norm = (s: string) => s.toLowerCase().replace(/-/g, '_');
  return options.find((o) => norm(o) === norm(value));
}
