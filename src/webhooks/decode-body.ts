import { WebhookParseError } from '../core/errors.js';
import { isRecord } from '../core/plain-data.js';
import { bytesOf } from './bytes.js';

/**
 * Webhook body in, plain JSON tree out: text or bytes through `JSON.parse`, an object handed in through a bounded
 * copy. Error messages name a location and a type, never a value.
 */

export type Path = (string | number)[];
export type JsonObject = Record<string, unknown>;

/** What `parseWebhook` accepts: the raw body (text or bytes) or an already parsed object. */
export type WebhookBody = string | Uint8Array | ArrayBuffer | ArrayBufferView | object;

const decoder = new TextDecoder();

/** A decoded body: the envelope as a plain tree, and the JSON text it came from (none for an object input). */
export interface DecodedBody {
  root: JsonObject;
  text: string | undefined;
  /** `mayHoldNulls`'s answer, once asked. */
  nulls?: boolean;
}

/** The envelope as a plain tree (see `DecodedBody`). */
// biome-ignore format: in parentheses, V8 compiles it with the module rather than on a first delivery (docs/benchmarks.md)
export const decodeBody = (function decodeBody(body: WebhookBody): DecodedBody {
  if (typeof body === 'string') return fromText(body);
  const bytes = bytesOf(body);
  if (bytes !== undefined) return fromText(decoder.decode(bytes));
  if (isRecord(body)) return { root: snapshot(body), text: undefined };
  throw new WebhookParseError(`Webhook body must be a JSON object, got ${describe(body)}`);
});

// biome-ignore format: in parentheses, V8 compiles it with the module rather than on a first delivery (docs/benchmarks.md)
const fromText = (function fromText(text: string): DecodedBody {
  return { root: parseJsonText(text), text };
});

/**
 * Whether the body may hold a `null` anywhere. Most deliveries hold none, and one search of the text for `null` is
 * far cheaper than looking for one in every item; it is made once per body (an object input may always hold one).
 * The search looks for `ull` first: V8 scans for a short pattern's first character, and `n` is among the commonest
 * letters of message text and keys where `u` is not, so a text without `ull` (most) is answered in a fraction of
 * the time (docs/benchmarks.md, "The second pass").
 */
// biome-ignore format: in parentheses, V8 compiles it with the module rather than on a first delivery (docs/benchmarks.md)
export const mayHoldNulls = (function mayHoldNulls(body: DecodedBody): boolean {
  const text = body.text;
  body.nulls ??= text === undefined || (text.includes('ull') && text.includes('null'));
  return body.nulls;
});

// biome-ignore format: in parentheses, V8 compiles it with the module rather than on a first delivery (docs/benchmarks.md)
const parseJsonText = (function parseJsonText(text: string): JsonObject {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch {
    // A blank text fails `JSON.parse` too: told apart here, not by a `trim` of every valid body.
    if (text.trim() === '') throw new WebhookParseError('Webhook body is empty');
    // V8's SyntaxError quotes the input around the fault: never pass it on.
    throw new WebhookParseError('Webhook body is not valid JSON');
  }
  if (!isRecord(parsed))
    throw new WebhookParseError(`Webhook body must be a JSON object, got ${describe(parsed)}`);
  return parsed;
});

/** The most values an object input may hold, counted as a JSON text would hold them (a shared object once per use). */
const MAX_VALUES = 100_000;
/** Deeper than any envelope the spec shows (about 10 levels); also where a cycle is caught. */
const MAX_DEPTH = 64;

/**
 * A plain copy of an object handed in by the caller (JSON text needs none: `JSON.parse` builds plain trees).
 * Everything after works on data that can run no getter or proxy trap a second time, and whose size is that of
 * its JSON text: a cycle, or shared references that expand past `MAX_VALUES` (two references per level double
 * the work at every level), are refused here with `WebhookParseError` instead of hanging every later walk.
 */
function snapshot(root: JsonObject): JsonObject {
  let budget = MAX_VALUES;
  // One path, pushed and popped: copied only into an error, so a large input allocates none per value.
  const path: Path = [];
  const copy = (value: unknown): unknown => {
    if (--budget < 0) {
      throw new WebhookParseError(
        `Webhook body holds more than ${MAX_VALUES} values (counting a shared object once per reference)`,
        [...path],
      );
    }
    if (value === null || typeof value !== 'object') return value;
    if (path.length >= MAX_DEPTH) {
      throw new WebhookParseError(`Webhook body nests deeper than ${MAX_DEPTH} levels, or refers to itself`, [
        ...path,
      ]);
    }
    if (Array.isArray(value)) {
      const out: unknown[] = [];
      for (let i = 0; i < value.length; i++) {
        path.push(i);
        out.push(copy(value[i]));
        path.pop();
      }
      return out;
    }
    const out: JsonObject = {};
    for (const key of Object.keys(value)) {
      path.push(key);
      setOwn(out, key, copy((value as JsonObject)[key]));
      path.pop();
    }
    return out;
  };
  return copy(root) as JsonObject;
}

/** `out[key] = value`, except that a `__proto__` key stays data rather than setting the prototype. */
export function setOwn(out: JsonObject, key: string, value: unknown): void {
  if (key === '__proto__') {
    Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  } else {
    out[key] = value;
  }
}

/** The JSON type of a value, for error messages; never the value itself. */
export function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  const t = typeof value;
  return t === 'object' ? 'an object' : `a ${t}`;
}

/**
 * `value` without its `null` properties, at every depth. Relays write `null` for fields that are absent; the
 * schemas' optional fields mean "absent", and a `null` there must not demote a whole status or message to
 * `unknown` (which handlers usually skip), nor the change's metadata (every message of the change) or the sender's
 * contact.
 *
 * Copy on write: a branch without a `null` is returned as it is, so the common delivery (no `null` at all) costs
 * one read of each property and no allocation. The input is a plain tree (JSON text, or a `snapshot`), so the
 * walk is linear in its size.
 */
export function withoutNulls(value: unknown, depth = 0): unknown {
  if (depth > 32 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const before: unknown = value[i];
      const after = withoutNulls(before, depth + 1);
      if (out === undefined && after !== before) out = value.slice(0, i);
      out?.push(after);
    }
    return out ?? value;
  }
  const object = value as JsonObject;
  const keys = Object.keys(object);
  let out: JsonObject | undefined;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    const before = object[key];
    const after = before === null ? null : withoutNulls(before, depth + 1);
    if (out === undefined && (after === null || after !== before)) {
      out = {};
      for (let j = 0; j < i; j++) setOwn(out, keys[j]!, object[keys[j]!]);
    }
    if (out !== undefined && after !== null) setOwn(out, key, after);
  }
  return out ?? value;
}
