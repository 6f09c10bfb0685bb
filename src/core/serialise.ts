import { MessageValidationError } from './errors.js';

/**
 * A request body as JSON text. What JSON cannot hold (a cycle, a BigInt, a `toJSON` or getter that throws) is a
 * `MessageValidationError` naming the field, found by a second, bounded walk only when the first attempt fails.
 */
export function serialise(body: unknown): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(body);
  } catch {
    const found = findUnserialisable(body);
    throw new MessageValidationError(
      [{ path: found.path, message: `cannot be sent as JSON: ${found.why}`, code: 'unserialisable' }],
      'request body',
    );
  }
  if (text === undefined) {
    throw new MessageValidationError(
      [{ path: [], message: 'cannot be sent as JSON: the body is not a JSON value', code: 'unserialisable' }],
      'request body',
    );
  }
  return text;
}

/** The first value `JSON.stringify` chokes on, as a path and a reason that names a type, never a value. */
function findUnserialisable(root: unknown): { path: (string | number)[]; why: string } {
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
