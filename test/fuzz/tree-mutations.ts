/**
 * Mutations of a JSON-like tree for the property runs: drop a key, set it to `null` or a present `undefined`,
 * replace, wrap in an array, insert a key, turn a subtree into its JSON text, empty it, append a copy of an array's
 * last item (its ids suffixed, so they stay distinct). Each test file chooses the
 * operations, values and inserted keys that matter to what it checks (`mutationArb`).
 */
import fc from 'fast-check';

export type Op =
  | 'delete'
  | 'null'
  | 'undefined'
  | 'replace'
  | 'wrap'
  | 'insert'
  | 'stringify'
  | 'empty'
  | 'append';

export interface Mutation {
  at: number;
  op: Op;
  value: unknown;
  key: string;
}

/** Every (container, key) position in a tree, depth-first. */
function positions(value: unknown, out: [Record<string, unknown> | unknown[], string | number][] = []) {
  if (Array.isArray(value)) {
    value.forEach((v, i) => {
      out.push([value, i]);
      positions(v, out);
    });
  } else if (typeof value === 'object' && value !== null) {
    for (const [k, v] of Object.entries(value)) {
      out.push([value as Record<string, unknown>, k]);
      positions(v, out);
    }
  }
  return out;
}

/** Sets an own property, as JSON.parse would: a `__proto__` key must not become the prototype. */
function put(target: Record<string | number, unknown>, key: string | number, value: unknown): void {
  Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
}

function jsonOf(value: unknown): string | undefined {
  try {
    return JSON.stringify(value);
  } catch {
    return undefined;
  }
}

/** `root` with the mutations applied in place. */
export function mutate(root: unknown, mutations: readonly Mutation[]): unknown {
  for (const m of mutations) {
    const all = positions(root);
    if (all.length === 0) return root;
    const [container, key] = all[m.at % all.length]!;
    const target = container as Record<string | number, unknown>;
    switch (m.op) {
      case 'delete':
        if (Array.isArray(container)) container.splice(key as number, 1);
        else delete target[key];
        break;
      case 'null':
        put(target, key, null);
        break;
      case 'undefined':
        put(target, key, undefined);
        break;
      case 'replace':
        put(target, key, m.value);
        break;
      case 'wrap':
        put(target, key, [target[key]]);
        break;
      case 'insert': {
        const inner = target[key];
        if (typeof inner === 'object' && inner !== null && !Array.isArray(inner)) {
          put(inner as Record<string, unknown>, m.key, m.value);
        } else if (!Array.isArray(container)) put(target, m.key, m.value);
        // An array is given no named key: no JSON text, nor any parsed body, holds one (a webhook checker hands a
        // valid array back as received, where zod's copy would drop the key).
        break;
      }
      case 'stringify':
        put(target, key, jsonOf(target[key]) ?? 'undefined');
        break;
      case 'empty':
        put(target, key, Array.isArray(target[key]) ? [] : {});
        break;
      case 'append': {
        // The array at this position, or the one holding it: a count limit is broken by one item more.
        const array = Array.isArray(target[key])
          ? (target[key] as unknown[])
          : Array.isArray(container)
            ? container
            : undefined;
        if (array && array.length > 0) array.push(suffixed(array[array.length - 1], String(array.length)));
        break;
      }
    }
  }
  return root;
}

/** One mutation, of the given operations, replacement values and inserted keys. */
export function mutationArb(options: {
  ops: readonly Op[];
  values: fc.Arbitrary<unknown>;
  keys: readonly string[];
}): fc.Arbitrary<Mutation> {
  return fc.record({
    at: fc.nat(),
    op: fc.constantFrom(...options.ops),
    value: options.values,
    key: fc.constantFrom(...options.keys),
  });
}

/** A path into a tree: object keys and array indexes. */
export type TreePath = readonly (string | number)[];

/** What `everySingleMutation` tries: the values and keys that matter to the checker under test. */
export interface SingleMutationOptions {
  /** Each string leaf is replaced by each of these (the empty string, texts just over each limit, enum words). */
  strings: readonly string[];
  /** Every value (leaf or not) is replaced by each of these (other types, out-of-range numbers). */
  values: readonly unknown[];
  /** Each object gets each of these keys added, with its value (unknown keys, keys allowed only elsewhere). */
  added: readonly (readonly [string, unknown])[];
}

/** One mutation of a tree: what was done where, and the mutated copy. */
export interface SingleMutation {
  what: string;
  tree: unknown;
}

/**
 * A copy of `item` whose string leaves under a key named `id` end in `suffix`: an appended item whose ids do not
 * repeat the last one's, and whose other strings (a `type`, a title) stay as valid as they were.
 */
export function suffixed(item: unknown, suffix: string, key?: string | number): unknown {
  if (typeof item === 'string') return key === 'id' ? item + suffix : item;
  if (Array.isArray(item)) return item.map((v, i) => suffixed(v, suffix, i));
  if (typeof item === 'object' && item !== null)
    return Object.fromEntries(Object.entries(item).map(([k, v]) => [k, suffixed(v, suffix, k)]));
  return item;
}

/** Every (path, value) of a tree, depth-first, the root first. */
function nodes(value: unknown, path: TreePath = [], out: [TreePath, unknown][] = []): [TreePath, unknown][] {
  out.push([path, value]);
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) nodes(value[i], [...path, i], out);
  } else if (typeof value === 'object' && value !== null)
    for (const [k, v] of Object.entries(value)) nodes(v, [...path, k], out);
  return out;
}

/** `root` (deeply copied) with `change` applied to the parent of `path` (its key given too). */
function at(
  root: unknown,
  path: TreePath,
  change: (parent: Record<string | number, unknown>, key: string | number) => void,
): unknown {
  const copy = structuredClone(root);
  let parent = copy as Record<string | number, unknown>;
  for (const key of path.slice(0, -1)) parent = parent[key] as Record<string | number, unknown>;
  change(parent, path[path.length - 1]!);
  return copy;
}

/** `root` (deeply copied) with the value at `path` replaced by `value` (the root itself when `path` is empty). */
function replaced(root: unknown, path: TreePath, value: unknown): unknown {
  return path.length === 0 ? value : at(root, path, (parent, key) => put(parent, key, value));
}

/**
 * Every single mutation of `root`, deterministically (no randomness): at every position, each string leaf replaced
 * by each of `strings`, every value by each of `values`; each array with its last item appended again, and a copy
 * of it with new ids (`suffixed`), and emptied; each key or item deleted, set to `null` and to a present
 * `undefined`; each object given each of `added`. One mutation each: a rule a checker drops shows as a difference
 * on the one mutation that breaks only it.
 */
export function everySingleMutation(root: unknown, options: SingleMutationOptions): SingleMutation[] {
  const out: SingleMutation[] = [];
  const add = (what: string, path: TreePath, tree: unknown) =>
    out.push({ what: `${path.join('.') || '(root)'}: ${what}`, tree });
  for (const [path, value] of nodes(root)) {
    if (typeof value === 'string')
      for (const s of options.strings)
        if (s !== value) add(`the string ${describe(s)}`, path, replaced(root, path, s));
    for (const v of options.values) add(`the value ${describe(v)}`, path, replaced(root, path, v));
    if (Array.isArray(value)) {
      if (value.length > 0) {
        const last = value[value.length - 1];
        add('its last item appended again', path, replaced(root, path, [...value, structuredClone(last)]));
        const item = suffixed(last, String(value.length));
        add('a copy of its last item (new ids) appended', path, replaced(root, path, [...value, item]));
      }
      add('emptied', path, replaced(root, path, []));
    } else if (typeof value === 'object' && value !== null) {
      for (const [key, v] of options.added)
        if (!(key in value)) add(`key ${key} added`, path, replaced(root, path, { ...value, [key]: v }));
    }
    if (path.length > 0) {
      add(
        'deleted',
        path,
        at(root, path, (parent, key) => {
          if (Array.isArray(parent)) parent.splice(key as number, 1);
          else delete parent[key];
        }),
      );
      add('null', path, replaced(root, path, null));
      add('undefined (present)', path, replaced(root, path, undefined));
    }
  }
  return out;
}

/** A short name of a value for a mutation's description. */
function describe(value: unknown): string {
  if (typeof value === 'string')
    return value.length > 24
      ? `of ${[...value].length} code points (${JSON.stringify(value.slice(0, 4))}...)`
      : JSON.stringify(value);
  return jsonOf(value) ?? String(value);
}

/** In an edit of `edited`: delete the key instead of setting it. */
export const GONE = Symbol('gone');
/** One edit: the path and the value to set there (or `GONE`). */
export type Edit = readonly [TreePath, unknown];

/** A deep copy of `base` with each edit applied: the value set at its path, or the key deleted (`GONE`). */
export function edited(base: unknown, ...edits: Edit[]): unknown {
  const copy = structuredClone(base);
  for (const [path, value] of edits) {
    let node = copy as Record<string | number, unknown>;
    for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, unknown>;
    const last = path[path.length - 1]!;
    if (value === GONE) delete node[last];
    else node[last] = value;
  }
  return copy;
}
