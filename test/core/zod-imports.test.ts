/**
 * The zod flavour rule (CONTRIBUTING.md, "Which zod"): the portable folders (`core/`, `webhooks/`, `templates/`)
 * build their schemas with zod/mini through `core/zod.js` and never import classic zod, and nothing a portable entry
 * imports does; the Node-only folders build theirs with classic `zod` and take only the flavour-free helpers
 * (`safeCheck`, `toIssues`, `describeIssues`, ...) from `core/zod.js`.
 *
 * And a source rule the build cannot enforce: modules that import the SDK's zod (`core/zod.js`, zod/mini re-exported
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

/** The folders whose modules a portable entry (`wa-gateway-sdk/webhooks`, `wa-gateway-sdk/templates`) may reach. */
const PORTABLE = ['core', 'webhooks', 'templates'];
/** The only module that imports zod/mini and zod's core package directly: every other one goes through it. */
const SDK_ZOD = 'core/zod.ts';

/**
 * Exceptions to the folder rule, each with its reason. Keep this short: a new entry needs the same kind of reason.
 */
const EXCEPTIONS: Record<string, string> = {
  // The web inbox's preview page bundles the templates entry (zod/mini) for the browser; it only turns zod's
  // compiled parsers off under the page's content security policy, a setting zod keeps in the core both share.
  'testing/sandbox/inbox/client/preview.ts': 'config({ jitless: true }) for the page, not a schema',
  // Compiles the Node-only resources' classic schemas (sends, the platform) with the zod copy that built them; no
  // portable entry imports it (the rule below on what a portable entry reaches, and the size bench, hold that).
  'core/compiled.ts': 'z.compile of the classic schemas of gateway/ and platform/, not a schema',
};

interface ZodImport {
  specifier: string;
  /** `import type`: erased, so it costs no bundle and loads no zod. */
  typeOnly: boolean;
  /** The names imported, or `*` for a namespace import. */
  names: string[];
}

const importsOf = (text: string): ZodImport[] =>
  [...text.matchAll(/import\s+(type\s+)?([^;]*?)\s+from\s+'([^']+)'/g)].map((m) => ({
    specifier: m[3]!,
    typeOnly: m[1] !== undefined,
    names: m[2]!.includes('* as')
      ? ['*']
      : (m[2]!.match(/\{([^}]*)\}/)?.[1] ?? '')
          .split(',')
          .map(
            (n) =>
              n
                .trim()
                .replace(/^type\s+/, '')
                .split(/\s+as\s+/)[0]!,
          )
          .filter(Boolean),
  }));

const isClassic = (s: string) => s === 'zod';
const isZodPackage = (s: string) => s === 'zod' || s.startsWith('zod/');
const isSdkZod = (s: string) => /(^|\/)core\/zod\.js$/.test(s) || s === './zod.js';

describe('one zod flavour per folder', () => {
  const all = sources(src).map((f) => ({
    file: relative(src, f).replaceAll('\\', '/'),
    text: readFileSync(f, 'utf8'),
  }));
  const folder = (file: string) => file.split('/')[0]!;

  it('portable folders use zod/mini through core/zod.js, never classic zod or zod/mini directly', () => {
    const offenders = all
      .filter(({ file }) => PORTABLE.includes(folder(file)) && file !== SDK_ZOD && !(file in EXCEPTIONS))
      .flatMap(({ file, text }) =>
        importsOf(text)
          .filter((i) => isZodPackage(i.specifier))
          .map((i) => `${file}: ${i.specifier}`),
      );
    expect(offenders).toEqual([]);
  });

  it('Node-only folders build schemas with classic zod, taking only helpers from core/zod.js', () => {
    const offenders = all
      .filter(({ file }) => !PORTABLE.includes(folder(file)) && file.includes('/') && !(file in EXCEPTIONS))
      .flatMap(({ file, text }) =>
        importsOf(text)
          .filter(
            (i) =>
              (isZodPackage(i.specifier) && !isClassic(i.specifier)) ||
              (isSdkZod(i.specifier) && !i.typeOnly && i.names.includes('*')),
          )
          .map((i) => `${file}: ${i.specifier} (${i.names.join(', ')})`),
      );
    expect(offenders).toEqual([]);
  });

  it('nothing a portable entry imports at run time imports classic zod', () => {
    const byPath = new Map(all.map((f) => [f.file, f.text]));
    const seen = new Set<string>();
    const classic: string[] = [];
    const visit = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      const text = byPath.get(file);
      if (text === undefined) throw new Error(`${file} is imported but not found`);
      // Every runtime import, `export ... from` included (re-exports load the module too).
      const runtime = [...text.matchAll(/^(?:import|export)\s+(?!type\s)[^;]*?from\s+'([^']+)'/gm)].map(
        (m) => m[1]!,
      );
      for (const specifier of runtime) {
        if (isClassic(specifier)) classic.push(file);
        if (specifier.startsWith('.')) {
          const target = join(file, '..', specifier).replaceAll('\\', '/').replace(/\.js$/, '.ts');
          visit(target);
        }
      }
    };
    visit('webhooks/index.ts');
    visit('templates/index.ts');
    expect(seen.size).toBeGreaterThan(20);
    expect(classic).toEqual([]);
  });

  it('every exception names a file that exists and breaks the rule (a stale one is removed)', () => {
    for (const file of Object.keys(EXCEPTIONS)) {
      const text = all.find((f) => f.file === file)?.text;
      expect(text, file).toBeDefined();
      expect(
        importsOf(text!).some((i) => isZodPackage(i.specifier)),
        file,
      ).toBe(true);
    }
  });
});
