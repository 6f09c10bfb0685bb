import { ConfigurationError, MessageValidationError } from './errors.js';
import { formatPath } from './plain-data.js';

/**
 * A request body as JSON text. What JSON cannot hold (a cycle, a BigInt, a `toJSON` or getter that throws) is a
 * `MessageValidationError` naming the field, found by a second, bounded walk only when the first attempt fails.
 */
export function serialise(body: unknown): string {
  // First a count, since JSON.stringify writes a shared object once per reference: ten levels of two references
  // each are a thousand copies, thirty levels never end.
  const oversized = fitsBudget(body) ? undefined : overBudget(body);
  if (oversized) {
    throw new MessageValidationError(
      [
        {
          path: oversized.path,
          message: `cannot be sent as JSON: ${oversized.why}`,
          code: 'unserialisable',
          rule: 'body.unserialisable',
        },
      ],
      'request body',
    );
  }
  let text: string | undefined;
  try {
    text = JSON.stringify(body);
  } catch {
    const found = findUnserialisable(body);
    throw new MessageValidationError(
      [
        {
          path: found.path,
          message: `cannot be sent as JSON: ${found.why}`,
          code: 'unserialisable',
          rule: 'body.unserialisable',
        },
      ],
      'request body',
    );
  }
  if (text === undefined) {
    throw new MessageValidationError(
      [
        {
          path: [],
          message: 'cannot be sent as JSON: the body is not a JSON value',
          code: 'unserialisable',
          rule: 'body.unserialisable',
        },
      ],
      'request body',
    );
  }
  return text;
}

/**
 * A value a store keeps (a session, a Durable Object's request) as JSON text. What JSON cannot hold is the caller's
 * `ConfigurationError`, naming where, never an outage of the store.
 *
 * @example
 * storableJson({ step: 'ask-date' }, 'RedisSessionStore.set'); // '{"step":"ask-date"}'
 */
export function storableJson(value: unknown, operation: string): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch {
    const found = findUnserialisable(value);
    throw new ConfigurationError(
      `${operation}: the value cannot be stored as JSON, at ${formatPath(found.path, 'its root')}: ${found.why}.`,
    );
  }
  if (text === undefined) {
    throw new ConfigurationError(
      `${operation}: the value cannot be stored as JSON: it is undefined, a function or a symbol.`,
    );
  }
  return text;
}

const MAX_VALUES = 100_000;
const MAX_DEPTH = 64;

type Problem = { path: (string | number)[]; why: string };

let left = 0;

/**
 * The hot path of every send: whether the body stays within the budget, with no path kept and nothing
 * allocated. Only when it does not (or a getter throws) does `overBudget` walk again to say where.
 */
function fitsBudget(root: unknown): boolean {
  left = MAX_VALUES;
  try {
    return fits(root, 0);
  } catch {
    return false;
  }
}

function fits(value: unknown, depth: number): boolean {
  if (--left < 0) return false;
  if (typeof value !== 'object' || value === null) return true;
  if (depth >= MAX_DEPTH) return false;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (!fits(value[i], depth + 1)) return false;
    return true;
  }
  for (const key in value) {
    if (Object.hasOwn(value, key) && !fits((value as Record<string, unknown>)[key], depth + 1)) return false;
  }
  return true;
}

/** Where the body holds more values than `MAX_VALUES` as JSON would write them, or nests past `MAX_DEPTH`. */
function overBudget(root: unknown): Problem | undefined {
  let budget = MAX_VALUES;
  const path: (string | number)[] = [];
  const visit = (value: unknown): Problem | undefined => {
    if (--budget < 0) return { path: [...path], why: `more than ${MAX_VALUES} values (shared references?)` };
    if (typeof value !== 'object' || value === null) return undefined;
    if (path.length >= MAX_DEPTH)
      return { path: [...path], why: `nests deeper than ${MAX_DEPTH} levels, or refers to itself` };
    let keys: (string | number)[];
    try {
      keys = Array.isArray(value) ? Array.from(value.keys()) : Object.keys(value);
    } catch {
      return { path: [...path], why: 'reading it threw (a getter or proxy)' };
    }
    for (const key of keys) {
      path.push(key);
      let child: unknown;
      try {
        child = (value as Record<string | number, unknown>)[key];
      } catch {
        return { path: [...path], why: 'reading it threw (a getter or proxy)' };
      }
      const found = visit(child);
      if (found) return found;
      path.pop();
    }
    return undefined;
  };
  return visit(root);
}

/** The first value `JSON.stringify` chokes on, as a path and a reason that names a type, never a value. */
function findUnserialisable(root: unknown): Problem {
  const onPath = new Set<object>();
  let budget = 100_000;
  const visit = (
    value: unknown,
    path: (string | number)[],
  ): { path: (string | number)[]; why: string } | undefined => {
    if (--budget < 0) return { path, why: 'too many values (shared references?)' };
    if (typeof value === 'bigint') return { path, why: 'a BigInt (send it as a string or number)' };
    if (typeof value !== 'object' || value === null) return undefined;
    if (onPath.has(value)) return { path, why: 'it refers to itself (a cycle)' };
    onPath.add(value);
    try {
      const toJSON = (value as { toJSON?: unknown }).toJSON;
      if (typeof toJSON === 'function') {
        try {
          return visit(toJSON.call(value), path);
        } catch {
          return { path, why: 'its toJSON() threw' };
        }
      }
      const entries: [string | number, unknown][] = [];
      try {
        if (Array.isArray(value)) for (let i = 0; i < value.length; i++) entries.push([i, value[i]]);
        else
          for (const key of Object.keys(value)) entries.push([key, (value as Record<string, unknown>)[key]]);
      } catch {
        return { path, why: 'reading it threw (a getter or proxy)' };
      }
      for (const [key, child] of entries) {
        const found = visit(child, [...path, key]);
        if (found) return found;
      }
      return undefined;
    } finally {
      onPath.delete(value);
    }
  };
  return visit(root, []) ?? { path: [], why: 'JSON.stringify threw' };
}
