/**
 * The one rule for what a router session may hold: what every session store can write. `RedisSessionStore`,
 * `DurableObjectSessionStore` and `MemorySessionStore` all keep JSON text, so a BigInt or a cycle cannot be saved at
 * all (the router refuses it before the save, whichever the store), and a function, a symbol, `undefined` in an
 * array, a Date, a Map, a Set, a class instance or NaN are saved as JSON makes them (dropped, `null`, a string, a
 * bare object): the router saves those and warns once, naming where, so a test on the in-memory default sees what
 * Redis gives back.
 */
import { formatPath } from '../core/plain-data.js';

/**
 * Where `value` is not plain JSON data, and what is there (`session.orders[0]: a function`); `undefined` when it
 * is. A property holding `undefined` is allowed: JSON leaves it out, and it reads back as `undefined`. With
 * `unwritable`, only what JSON cannot write at all (a BigInt, a cycle, a getter that throws).
 *
 * @example
 * sessionProblem({ at: new Date() }, 'session'); // 'session.at: a Date'
 * sessionProblem({ at: new Date() }, 'session', true); // undefined: saved as its ISO string
 */
export function sessionProblem(value: unknown, root: string, unwritable = false): string | undefined {
  const path: (string | number)[] = [root];
  const onPath = new Set<object>();
  const visit = (v: unknown): string | undefined => {
    if (v === null || typeof v === 'string' || typeof v === 'boolean') return undefined;
    if (typeof v === 'number') return Number.isFinite(v) || unwritable ? undefined : String(v);
    if (typeof v === 'bigint') return 'a bigint';
    if (typeof v !== 'object')
      return unwritable ? undefined : v === undefined ? 'undefined' : `a ${typeof v}`;
    if (onPath.has(v)) return 'a cycle';
    const array = Array.isArray(v);
    const proto: unknown = Object.getPrototypeOf(v);
    // JSON writes a class instance's own fields (a Date by its toJSON): only those can be unwritable.
    if (!array && proto !== Object.prototype && proto !== null && !unwritable)
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
