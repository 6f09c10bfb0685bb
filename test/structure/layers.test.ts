/**
 * The layers of `src/`, held on the code's own imports (type-only ones included: a type drags its file into the
 * reader's map as much as a value does):
 *
 * - every folder has its place in `LAYERS`, lowest first, and a file imports only from its own folder or a lower
 *   one, never a higher one (put a shared type or constant in the lower folder);
 * - no two files import each other round, directly or through others (a file circle);
 * - the walks CONTRIBUTING.md writes down hold (`WALKS`): a chain only reads forward, a spine's steps never reach
 *   one another. `walks.test.ts` runs the spines and checks the order they are visited in.
 *
 * When this fails on a new folder, give it its place in `LAYERS` (CONTRIBUTING.md's layout table points here).
 */
import { describe, expect, it } from 'vitest';
import { circles, GUIDE, importGraph, valueClosure, WALKS, walkFiles } from './import-graph.js';

/** The folders of `src/`, lowest first. The one table of the layer order. */
const LAYERS = [
  'core',
  'webhooks',
  'templates',
  'gateway',
  'conversations',
  'campaigns',
  'durable-objects',
  'public-api',
  'platform',
  'redis',
  'testing',
  'cli',
] as const;

/**
 * Circles known and owned by another change, each with who removes it. An entry that no longer matches a circle
 * fails the test: delete it then.
 */
const KNOWN_CIRCLES: readonly { files: readonly string[]; owner: string }[] = [];

const graph = importGraph();
const folderOf = (file: string): string | undefined => (file.includes('/') ? file.split('/')[0] : undefined);
const rank = (folder: string): number => LAYERS.indexOf(folder as (typeof LAYERS)[number]);

/** Every file `entry` imports, directly or through others, types included. */
function reachable(entry: string): Set<string> {
  const seen = new Set<string>();
  const visit = (file: string) => {
    for (const { to } of graph.get(file) ?? []) {
      if (seen.has(to)) continue;
      seen.add(to);
      visit(to);
    }
  };
  visit(entry);
  return seen;
}

describe('the layers of src/', () => {
  it('reads the imports it checks', () => {
    expect(graph.size).toBeGreaterThan(150);
    expect(graph.get('gateway/client.ts')?.some((e) => e.to === 'core/transport.ts' && e.value)).toBe(true);
    expect(graph.get('core/attempt.ts')?.some((e) => e.to === 'core/transport-request.ts' && !e.value)).toBe(
      true,
    );
  });

  it('places every folder', () => {
    const folders = new Set([...graph.keys()].map(folderOf).filter((f) => f !== undefined));
    expect([...folders].filter((f) => rank(f) < 0)).toEqual([]);
  });

  it('has no arrow from a lower folder up to a higher one', () => {
    const upward: string[] = [];
    for (const [file, edges] of graph) {
      const from = folderOf(file);
      if (from === undefined) continue;
      for (const { to } of edges) {
        const into = folderOf(to);
        // The entries at the root (index.ts, schemas.ts) gather the folders; nothing inside imports them.
        if (into === undefined || rank(into) > rank(from)) upward.push(`${file} -> ${to}`);
      }
    }
    expect(upward).toEqual([]);
  });

  it('has no file circle but the known ones, and every known one still exists', () => {
    const found = circles(graph).map((c) => c.join(' <-> '));
    const known = KNOWN_CIRCLES.map((c) => [...c.files].sort().join(' <-> '));
    expect(found.filter((c) => !known.includes(c))).toEqual([]);
    expect(
      known.filter((c) => !found.includes(c)),
      'a known circle is gone: delete its entry from KNOWN_CIRCLES',
    ).toEqual([]);
  });

  it('keeps the testing kit and the command out of every other entry', () => {
    // The root entries gather the folders (the folders' own entries are held by the layer order above).
    const reached = ['index.ts', 'schemas.ts'].flatMap((entry) => [...reachable(entry)]);
    expect(reached.filter((f) => f.startsWith('testing/') || f.startsWith('cli/'))).toEqual([]);
  });

  it('finds a circle when there is one', () => {
    const round = new Map([
      ['a/x.ts', [{ to: 'a/y.ts', value: false }]],
      ['a/y.ts', [{ to: 'a/z.ts', value: true }]],
      ['a/z.ts', [{ to: 'a/x.ts', value: true }]],
      ['a/w.ts', [{ to: 'a/x.ts', value: true }]],
    ]);
    expect(circles(round)).toEqual([['a/x.ts', 'a/y.ts', 'a/z.ts']]);
  });
});

describe.each(WALKS.map((w) => [w.heading, w] as const))("CONTRIBUTING.md's walk '%s'", (heading, walk) => {
  const files = walkFiles(GUIDE, heading) ?? [];

  it('names files that exist, each once', () => {
    expect(files.length, `no numbered list of src/ files under '### ${heading}'`).toBeGreaterThan(2);
    expect(files.filter((f) => !graph.has(f))).toEqual([]);
    expect(new Set(files).size).toBe(files.length);
  });

  if (walk.kind === 'chain') {
    it('reads forward: each file imports only files after it in the walk', () => {
      const backward: string[] = [];
      files.forEach((file, i) => {
        for (const { to } of graph.get(file) ?? []) {
          const j = files.indexOf(to);
          if (j >= 0 && j < i) backward.push(`${file} -> ${to}`);
        }
      });
      expect(backward).toEqual([]);
    });
  } else {
    it('is a spine: the first file imports every step, and no step reaches another file of the walk', () => {
      const [spine, ...steps] = files as [string, ...string[]];
      const direct = new Set((graph.get(spine) ?? []).filter((e) => e.value).map((e) => e.to));
      expect(steps.filter((s) => !direct.has(s))).toEqual([]);
      const bounces = steps.flatMap((step) =>
        [...valueClosure(graph, step)].filter((f) => files.includes(f)).map((f) => `${step} -> ${f}`),
      );
      expect(bounces).toEqual([]);
    });
  }
});
