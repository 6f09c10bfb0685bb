/** `npm pack` without a build must not give an empty package: `prepack` refuses until the build is there. */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  scripts: Record<string, string>;
  main: string;
  exports: Record<string, unknown>;
};
const scratch = mkdtempSync(join(tmpdir(), 'wa-prepack-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));
writeFileSync(join(scratch, 'package.json'), JSON.stringify(manifest));

/** Runs the prepack script in the scratch package (as npm would: at the package root). */
const prepack = () =>
  spawnSync(join(root, 'node_modules', '.bin', 'tsx'), [join(root, 'scripts', 'prepack.ts')], {
    cwd: scratch,
    encoding: 'utf8',
  });

/** Every `./` path the manifest points at (the leaves of `exports`, `bin`, `main`, ...). */
function pathsIn(value: unknown): string[] {
  if (typeof value === 'string') return value.startsWith('./') ? [value] : [];
  if (typeof value !== 'object' || value === null) return [];
  return Object.values(value).flatMap(pathsIn);
}

describe('prepack', () => {
  it('is the script npm runs before packing', () => {
    expect(manifest.scripts['prepack']).toBe('tsx scripts/prepack.ts');
  });

  it('refuses to pack without dist, naming what is missing and what to run', () => {
    const r = prepack();
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('npm pack refused: the package would ship without its build');
    expect(r.stderr).toContain(manifest.main.slice(2));
    expect(r.stderr).toContain('Run `npm run build` first');
  });

  it('lets the pack go on once every file package.json points at exists', () => {
    for (const f of pathsIn(manifest)) {
      if (f === './package.json') continue;
      mkdirSync(dirname(join(scratch, f)), { recursive: true });
      writeFileSync(join(scratch, f), '');
    }
    const r = prepack();
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
  });
});
