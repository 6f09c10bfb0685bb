/**
 * Generators of hostile object inputs for the property runs: plain JSON-like trees, then spiked with getters
 * (throwing or not), proxies (throwing traps or transparent), shared and cyclic references, BigInt, symbols as
 * values and keys, and objects with non-plain prototypes (class instances, null-prototype objects, Date, Map,
 * typed arrays). Built from a seed shape so the spikes land inside otherwise plausible envelopes and messages.
 */
import fc from 'fast-check';

type Spike =
  | 'throwing-getter'
  | 'getter'
  | 'throwing-proxy'
  | 'proxy'
  | 'shared'
  | 'cycle'
  | 'bigint'
  | 'symbol-value'
  | 'symbol-key'
  | 'class-instance'
  | 'null-prototype'
  | 'exotic'
  | 'fan-out';

const SPIKES: Spike[] = [
  'throwing-getter',
  'getter',
  'throwing-proxy',
  'proxy',
  'shared',
  'cycle',
  'bigint',
  'symbol-value',
  'symbol-key',
  'class-instance',
  'null-prototype',
  'exotic',
  'fan-out',
];

class Custom {
  constructor(readonly inner: unknown) {}
  get computed(): unknown {
    return this.inner;
  }
}

/** Every object in a tree, depth-first (a plain tree: called before any spike is applied). */
function objects(value: unknown, out: object[] = []): object[] {
  if (typeof value !== 'object' || value === null) return out;
  out.push(value);
  for (const child of Array.isArray(value) ? value : Object.values(value)) objects(child, out);
  return out;
}

function spike(root: object, all: object[], kind: Spike, pick: number, key: string): void {
  const target = all[pick % all.length] as Record<string | symbol, unknown>;
  const other = all[(pick * 7 + 3) % all.length];
  const set = (value: unknown) =>
    Object.defineProperty(target, key, { value, enumerable: true, configurable: true, writable: true });
  switch (kind) {
    case 'throwing-getter':
      Object.defineProperty(target, key, {
        enumerable: true,
        configurable: true,
        get() {
          throw new Error('getter trap');
        },
      });
      return;
    case 'getter': {
      let n = 0;
      // A fresh object on every read: a walker that reads twice sees two different trees.
      Object.defineProperty(target, key, { enumerable: true, configurable: true, get: () => ({ n: n++ }) });
      return;
    }
    case 'throwing-proxy':
      set(
        new Proxy(
          {},
          {
            get() {
              throw new Error('proxy get');
            },
            ownKeys() {
              throw new Error('proxy ownKeys');
            },
            getPrototypeOf() {
              throw new Error('proxy proto');
            },
          },
        ),
      );
      return;
    case 'proxy':
      set(new Proxy(other ?? {}, {}));
      return;
    case 'shared':
      set(other);
      return;
    case 'cycle':
      set(root);
      return;
    case 'bigint':
      set(10n ** 20n);
      return;
    case 'symbol-value':
      set(Symbol('value'));
      return;
    case 'symbol-key':
      target[Symbol(key)] = 'hidden';
      return;
    case 'class-instance':
      set(new Custom(other));
      return;
    case 'null-prototype':
      set(Object.assign(Object.create(null) as object, { [key]: 'x' }));
      return;
    case 'exotic':
      set([new Date(0), new Map([[1, 2]]), new Uint8Array(4), () => 1][pick % 4]);
      return;
    case 'fan-out': {
      // Four references per level, 30 levels deep: 4^30 values to any walk that does not count its work.
      let x: unknown = { v: 1 };
      for (let i = 0; i < 30; i++) x = { a: x, b: x, c: [x, x] };
      set(x);
      return;
    }
  }
}

/** A copy of one of `seeds`, spiked 1–4 times. */
export function hostileFrom(seeds: readonly unknown[]): fc.Arbitrary<unknown> {
  return fc
    .record({
      seed: fc.nat({ max: seeds.length - 1 }),
      spikes: fc.array(
        fc.record({
          kind: fc.constantFrom(...SPIKES),
          pick: fc.nat(),
          key: fc.constantFrom('id', 'type', 'text', 'value', 'entry', 'changes', 'statuses', 'body', 'x'),
        }),
        { minLength: 1, maxLength: 4 },
      ),
    })
    .map(({ seed, spikes }) => {
      const root = structuredClone(seeds[seed]) as object;
      const all = objects(root);
      for (const s of spikes) spike(root, all, s.kind, s.pick, s.key);
      return root;
    });
}

/**
 * The slowest input's CPU time in ms (this process's user + system time, from `process.cpuUsage`): on a busy
 * shared machine wall-clock time mostly measures the neighbours, CPU time measures the work. An input over
 * `boundMs` is measured twice more and its fastest run kept, so a GC pause is not taken for a slow input (a
 * really slow input is slow every time).
 */
export function slowestMs(boundMs: number): { measure: (run: () => void) => void; readonly slowest: number } {
  let slowest = 0;
  return {
    measure(run) {
      let best = Number.POSITIVE_INFINITY;
      for (let attempt = 0; attempt < 3 && best > boundMs; attempt++) {
        const before = process.cpuUsage();
        run();
        const used = process.cpuUsage(before);
        best = Math.min(best, (used.user + used.system) / 1000);
      }
      slowest = Math.max(slowest, best);
    },
    get slowest() {
      return slowest;
    },
  };
}
