/**
 * The one rule for what a router session may hold: plain JSON data, what every session store keeps unchanged.
 * `RedisSessionStore` and `DurableObjectSessionStore` store JSON text (and `MemorySessionStore` the same), so a
 * function, a symbol or `undefined` in an array would be dropped or turned into `null`, a Date into a string, a Map,
 * a Set or a class instance into a bare object, NaN into `null`; a BigInt or a cycle cannot be written at all. The
 * router refuses all of these before it saves, whichever the store: a session that works on the in-memory default
 * works on Redis too.
 */
import { formatPath } from '../core/plain-data.js';

/**
 * Where `value` is not plain JSON data, and what is there (`session.orders[0]: a function`); `undefined` when it
 * is. A property holding `undefined` is allowed: JSON leaves it out, and it reads back as `undefined`.
 *
 * @example
 * sessionProblem({ at: new Date() }, 'session'); // 'session.at: a Date'
 */
export function sessionProblem(value: unknown, root: string): string | undefined {
  const path: (string | number)[] = [root];
  const onPath = new Set<object>();
  const visit = (v: unknown): string | undefined => {
    if (v === null || typeof v === 'string' || typeof v === 'boolean') return undefined;
    if (typeof v === 'number') return Number.isFinite(v) ? undefined : String(v);
    if (typeof v !== 'object') return v === undefined ? 'undefined' : `a ${typeof v}`;
    if (onPath.has(v)) return 'a cycle';
    const array = Array.isArray(v);
    const proto: unknown = Object.getPrototypeOf(v);
    if (!array && proto !== Object.prototype && proto !== null)
      return `a ${(proto as { constructor?: { name?: string } }).constructor?.name || 'class instance'}`;
    onPath.add(v);
    for (const key of array ? Array.from((v as unknown[]).keys()) : Object.keys(v)) {
      const child = (v as Record<string | number, unknown>)[key];
      if (child === undefined && !array) continue;
      path.push(key);
      const found = visit(child);
      if (found !== undefined) return found;
      path.pop();
    }
    onPath.delete(v);
    return undefined;
  };
  let found: string | undefined;
  try {
    found = visit(value);
  } catch {
    found = 'unreadable (a getter or proxy threw, or it nests too deep)';
  }
  return found === undefined ? undefined : `${formatPath(path)}: ${found}`;
}
