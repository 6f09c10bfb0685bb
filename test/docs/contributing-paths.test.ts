/**
 * CONTRIBUTING.md's walk-throughs send a reader to files: every repository path it names (`src/...`, `test/...`,
 * `docs/...`, `scripts/...`, `bench/...`, `.ci/...`) exists, so the guide cannot point at a file that moved or
 * never was. A `<type>`-style placeholder stands for any file of its folder, which must exist.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const guide = readFileSync(join(root, 'CONTRIBUTING.md'), 'utf8');
const paths = [
  ...new Set([...guide.matchAll(/`((?:src|test|docs|scripts|bench|\.ci)\/[\w./<>*-]+)`/g)].map((m) => m[1]!)),
];

describe('CONTRIBUTING.md', () => {
  it('names repository paths (the check below checks something)', () => {
    expect(paths.length).toBeGreaterThan(20);
  });

  it('names only paths that exist', () => {
    const missing = paths.filter((p) => {
      const path = p.includes('<') || p.includes('*') ? dirname(p.replace(/<[^>]*>.*$/, 'x')) : p;
      return !existsSync(join(root, path));
    });
    expect(missing).toEqual([]);
  });
});
