/**
 * `prepack` (run by `npm pack` and `npm publish`): refuses to pack without the build. `files` lists `dist`, so
 * packing a fresh clone would give a package of README, CHANGELOG and package.json with no code, and no warning.
 * It refuses rather than builds: `npm run check:package` packs right after its own build (twice, with
 * `attw --pack`), and a build inside `npm pack --json` would print into the JSON that script reads.
 *
 * Checks every file `package.json` points at (`main`, `module`, `types`, `bin`, `exports`), in the current
 * directory: npm runs lifecycle scripts at the package root.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Every path string in `value` that starts with `./` (the leaves of `exports`, `bin`, ...). */
function pathsIn(value: unknown): string[] {
  if (typeof value === 'string') return value.startsWith('./') ? [value] : [];
  if (typeof value !== 'object' || value === null) return [];
  return Object.values(value).flatMap(pathsIn);
}

const root = process.cwd();
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Record<string, unknown>;
const wanted = [
  ...new Set(
    pathsIn([manifest['main'], manifest['module'], manifest['types'], manifest['bin'], manifest['exports']]),
  ),
].filter((p) => p !== './package.json');
const missing = wanted.filter((p) => !existsSync(join(root, p)));

if (missing.length > 0) {
  const shown =
    missing.slice(0, 5).join(', ') + (missing.length > 5 ? `, and ${missing.length - 5} more` : '');
  process.stderr.write(
    `npm pack refused: the package would ship without its build (missing ${shown}).\n` +
      'Run `npm run build` first, then pack again.\n',
  );
  process.exit(1);
}
