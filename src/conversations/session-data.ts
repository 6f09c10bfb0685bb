/**
 * The one rule for what a router session may hold: what every session store can write. `RedisSessionStore`,
 * `DurableObjectSessionStore` and `MemorySessionStore` all keep JSON text, so a BigInt or a cycle cannot be saved at
 * all (refused with `ConversationError` `invalid_session` before the save, by the router whichever the store, and by
 * the SDK's stores used directly), and a function, a symbol, `undefined` in an array, a Date, a Map, a Set, a class
 * instance or NaN are saved as JSON makes them (dropped, `null`, a string, a bare object), with one warning naming
 * where (by the router, or by a store that has a logger), so a test on the in-memory default sees what Redis gives
 * back.
 */
import { type Logger, log } from '../core/logger.js';
import { formatPath } from '../core/plain-data.js';
import { ConversationError } from './errors.js';

/**
 * Marks a value the rule was applied to (the router's record, holding the session it checked): a store given it
 * does not walk it again, nor warn a second time. `Symbol.for`: the router and the stores may come from different
 * bundles (each portable entry is one file), which must agree on it. Non-enumerable: JSON never writes it.
 */
const CHECKED = Symbol.for('wa-gateway-sdk.session-checked');

/** @internal Marks `value` as checked by the rule (a frozen value stays unmarked, and is checked again). */
export function markChecked(value: object): void {
  try {
    Object.defineProperty(value, CHECKED, { value: true, configurable: true });
  } catch {
    // Frozen, or a Proxy that refuses: the store checks it itself.
  }
}

function isChecked(value: unknown): boolean {
  try {
    return (
      typeof value === 'object' && value !== null && (value as { [CHECKED]?: unknown })[CHECKED] === true
    );
  } catch {
    return false;
  }
}

/**
 * The rule, where a value is saved: what JSON cannot write throws `ConversationError` (`invalid_session`) naming
 * where; what JSON changes is left to be saved as JSON makes it, with one warning through `logger` (once per
 * `warned`). `root` names the value in the messages (`session` in the router, `value` in a store); `who` starts the
 * warning, and a store's refusal (`RedisSessionStore.set`). For a store (`who` given), a value JSON writes as
 * nothing at all (`undefined`, a function) is refused too: there would be no record. A value the router marked
 * (`markChecked`) is not walked again.
 *
 * @example
 * checkSession(value, 'value', logger, this.#warned, 'RedisSessionStore.set');
 */
export function checkSession(
  value: unknown,
  root: string,
  logger: Logger | undefined,
  /** Whether this store or router has warned already; none: a store without a logger, which never warns. */
  warned: { session: boolean } | undefined,
  who?: string,
): void {
  if (who === undefined ? value === undefined : isChecked(value)) return;
  // One walk for plain data, the common case; a second only when it found something, to tell what it is.
  const changed = sessionProblem(value, root);
  if (changed === undefined) return;
  const nothing =
    who !== undefined && (value === undefined || typeof value === 'function' || typeof value === 'symbol');
  const unwritable = nothing ? changed : sessionProblem(value, root, true);
  if (unwritable !== undefined) {
    throw new ConversationError(
      'invalid_session',
      `${who === undefined ? '' : `${who}: `}the ${root} cannot be saved: the stores keep JSON, which cannot write ${unwritable.replace(': ', ' (')}).`,
    );
  }
  if (warned === undefined || warned.session) return;
  warned.session = true;
  log(
    logger,
    'warn',
    `${who ?? 'wa-gateway-sdk router'}: the ${root} holds a value JSON changes (${changed}); the stores keep JSON, so it reads back changed (a Date as its ISO string, a Map as {}, a function dropped). Keep plain data in the session. Said once.`,
  );
}

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
