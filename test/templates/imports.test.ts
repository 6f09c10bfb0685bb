import { readdirSync, readFileSync } from 'node:fs';
import { posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const dir = fileURLToPath(new URL('../../src/templates/', import.meta.url));
const files = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));

/** The code without its comments (TSDoc examples and prose are not code). */
function codeOf(source: string): string {
  return source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '');
}

/**
 * Every module specifier in the code. With `types: false`, `import type` and `export type` are left out:
 * they ship nothing (`catalog.ts` reads the template-status webhook's type).
 */
function specifiers(source: string, { types = true } = {}): string[] {
  const code = codeOf(source);
  const found: string[] = [];
  const patterns = [
    types
      ? /\b(?:import|export)\s+(?:type\s+)?[^'"`;]*?\bfrom\s*['"]([^'"]+)['"]/g
      : /\b(?:import|export)\s+(?!type\s)[^'"`;]*?\bfrom\s*['"]([^'"]+)['"]/g,
    /\bimport\s*['"]([^'"]+)['"]/g,
    /\bimport\s*\(\s*['"`]([^'"`]+)['"`]\s*\)/g,
    /\brequire\s*\(\s*['"`]([^'"`]+)['"`]\s*\)/g,
  ];
  for (const pattern of patterns) for (const m of code.matchAll(pattern)) found.push(m[1]!);
  return found;
}

describe('the templates entry runs in a browser', () => {
  it('has source files to check', () => {
    expect(files).toEqual(
      expect.arrayContaining(['index.ts', 'rules.ts', 'validate.ts', 'schema.ts', 'languages.ts']),
    );
  });

  it.each(files)('%s imports nothing but zod and relative files', (file) => {
    const source = readFileSync(`${dir}${file}`, 'utf8');
    const found = specifiers(source);
    for (const spec of found) {
      const ok =
        spec === 'zod' || ((spec.startsWith('./') || spec.startsWith('../')) && spec.endsWith('.js'));
      expect(ok, `${file} imports ${spec}`).toBe(true);
    }
    expect(codeOf(source)).not.toMatch(/\bprocess\.|\bBuffer\.|\brequire\(/);
  });

  it('reaches outside src/templates only for the dependency-free core errors, given-value, plain-data, text and type modules and zod/mini setup', () => {
    for (const file of files) {
      // Resolved from the file's own folder, so `rules/x.ts` importing `../schema.js` stays inside.
      const outside = specifiers(readFileSync(`${dir}${file}`, 'utf8'), { types: false })
        .map((s) => posix.join(posix.dirname(file), s))
        .filter((s) => s.startsWith('../'));
      for (const spec of outside) {
        expect([
          '../core/errors.js',
          '../core/given-value.js',
          '../core/plain-data.js',
          '../core/text.js',
          '../core/types.js',
          '../core/zod.js',
        ]).toContain(spec);
      }
    }
    const core = (name: string) =>
      readFileSync(fileURLToPath(new URL(`../../src/core/${name}`, import.meta.url)), 'utf8');
    expect(specifiers(core('errors.ts'))).toEqual([]);
    expect(specifiers(core('given-value.ts'))).toEqual([]);
    expect(specifiers(core('plain-data.ts'))).toEqual([]);
    expect(specifiers(core('text.ts'))).toEqual([]);
    expect(specifiers(core('zod.ts')).sort()).toEqual([
      './issues.js',
      './issues.js',
      'zod/mini',
      'zod/mini',
      'zod/v4/core',
      'zod/v4/locales/en.js',
    ]);
  });
});
