/**
 * Mutations of a JSON-like tree for the property runs: drop a key, set it to `null` or a present `undefined`,
 * replace, wrap in an array, insert a key, turn a subtree into its JSON text, empty it. Each test file chooses the
 * operations, values and inserted keys that matter to what it checks (`mutationArb`).
 */
import fc from 'fast-check';

export type Op = 'delete' | 'null' | 'undefined' | 'replace' | 'wrap' | 'insert' | 'stringify' | 'empty';

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
        } else put(target, m.key, m.value);
        break;
      }
      case 'stringify':
        put(target, key, jsonOf(target[key]) ?? 'undefined');
        break;
      case 'empty':
        put(target, key, Array.isArray(target[key]) ? [] : {});
        break;
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
