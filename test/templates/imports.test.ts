import { readdirSync, readFileSync } from 'node:fs';
import { posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const dir = fileURLToPath(new URL('../../src/templates/', import.meta.url));
const files = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));

/** Every module specifier in the code (comments, such as TSDoc examples, are skipped). */
function specifiers(source: string): string[] {
  const code = source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '');
  const found: string[] = [];
  const patterns = [
    /\b(?:import|export)\s+(?:type\s+)?[^'"`;]*?\bfrom\s*['"]([^'"]+)['"]/g,
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
    expect(source).not.toMatch(/\bprocess\.|\bBuffer\.|\brequire\(/);
  });

  it('reaches outside src/templates only for the dependency-free core errors, plain-data, text and type modules and zod/mini setup', () => {
    for (const file of files) {
      // Resolved from the file's own folder, so `rules/x.ts` importing `../schema.js` stays inside.
      const outside = specifiers(readFileSync(`${dir}${file}`, 'utf8'))
        .map((s) => posix.join(posix.dirname(file), s))
        .filter((s) => s.startsWith('../'));
      for (const spec of outside) {
        expect([
          '../core/errors.js',
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
