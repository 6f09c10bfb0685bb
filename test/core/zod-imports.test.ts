/**
 * A source rule the build cannot enforce: modules that import the SDK's zod (`core/zod.js`, zod/mini re-exported
 * name by name) write schema types as `z.output<...>`, never `z.infer<...>`. The declaration bundler turns
 * `z.infer` into a bare `infer`, a keyword, and every TypeScript consumer's `tsc` then fails to parse the package's
 * declarations (`npm run check:package` catches that after a build; this catches it in the source).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const src = fileURLToPath(new URL('../../src', import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? sources(join(dir, d.name)) : d.name.endsWith('.ts') ? [join(dir, d.name)] : [],
  );
}

/** `import * as z from '../core/zod.js'` (or `import type`): `z` is then the SDK's zod/mini, not classic zod's `z`. */
const usesSdkZod = (text: string) => /import\s+(?:type\s+)?\*\s+as\s+z\s+from\s+'[^']*\/zod\.js'/.test(text);

describe('modules on the SDK zod', () => {
  const files = sources(src).filter((f) => usesSdkZod(readFileSync(f, 'utf8')));

  it('are found (the rule below checks something)', () => {
    expect(files.length).toBeGreaterThan(10);
  });

  it('write schema types as z.output, never z.infer', () => {
    const offenders = files
      .filter((f) => /\bz\.infer\s*</.test(readFileSync(f, 'utf8')))
      .map((f) => relative(src, f));
    expect(offenders).toEqual([]);
  });
});
