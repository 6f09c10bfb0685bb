/**
 * The webhooks entry runs on Node, Bun, Deno and Workers: it may import only zod, its own files and the
 * dependency-free core modules (errors, zod/mini set-up, the logger, tracing, which loads @opentelemetry/api
 * lazily), and neither it nor those core modules may touch Node globals.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const dir = join(root, 'src/webhooks');

function sourceFiles(path: string): string[] {
  return readdirSync(path, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? sourceFiles(join(path, d.name)) : d.name.endsWith('.ts') ? [join(path, d.name)] : [],
  );
}

/** Source without comments and string contents of comments, so TSDoc examples do not count as code. */
function code(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
}

function specifiers(text: string): string[] {
  const out: string[] = [];
  const patterns = [
    /\b(?:import|export)\s+(?:type\s+)?(?:[\w*{}\s,$]+?\s+from\s+)?['"]([^'"]+)['"]/g,
    /\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
    /\brequire\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
  ];
  for (const pattern of patterns) for (const m of text.matchAll(pattern)) out.push(m[1]!);
  return out;
}

/** Core modules the webhooks entry may use: none imports a Node built-in or an HTTP client. */
const PORTABLE_CORE = [
  'errors.js',
  'zod.js',
  'issues.js',
  'checker-runtime.js',
  'logger.js',
  'tracing.js',
  'plain-data.js',
  'observer.js',
  'abort.js',
  'secret-advice.js',
  'duration.js',
  'lease.js',
  'memory-leases.js',
];

/** Whether a file in `from` (a folder inside src/webhooks) may import `specifier`. */
function allowed(specifier: string, from: string = dir): boolean {
  if (specifier === 'zod') return true;
  if (!specifier.startsWith('.')) return false;
  const target = resolve(from, specifier);
  if (PORTABLE_CORE.some((f) => target === join(root, 'src/core', f))) return true;
  return target.startsWith(dir + sep);
}

/** Node globals the code uses. A property key (`process?:` in a type literal) is not a use of the global. */
function nodeGlobals(text: string): string[] {
  // Words inside '...' and "..." strings are prose (an error message may say "every process"), not a use; a
  // template literal is kept, since its `${...}` is code.
  const prose = /'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"/g;
  text = text.replace(prose, "''");
  return ['Buffer', 'process', 'require', '__dirname', 'setImmediate'].filter((name) =>
    new RegExp(`(?<![\\w.'"])${name}\\b(?![?:'"])`).test(text),
  );
}

describe('src/webhooks imports', () => {
  const files = sourceFiles(dir);

  it('finds the webhook sources', () => {
    expect(files.map((f) => relative(dir, f)).sort()).toEqual(
      expect.arrayContaining(['index.ts', 'handler-options.ts', 'node-handler.ts', 'parse.ts', 'verify.ts']),
    );
  });

  it('imports only zod, relative files and the portable core modules', () => {
    const offending: string[] = [];
    const seen = new Set<string>();
    for (const file of files) {
      for (const s of specifiers(code(readFileSync(file, 'utf8')))) {
        seen.add(s);
        if (!allowed(s, dirname(file))) offending.push(`${relative(root, file)}: ${s}`);
      }
    }
    expect(offending).toEqual([]);
    // The scan does see the imports that exist (multi-line and type-only ones included).
    expect([...seen]).toEqual(
      expect.arrayContaining(['../core/zod.js', '../core/errors.js', './schemas.js', './handler-options.js']),
    );
  });

  it('the scanner catches what it must', () => {
    expect(specifiers("import { x } from 'node:http';").filter((s) => !allowed(s))).toEqual(['node:http']);
    expect(
      specifiers("import type { Y } from '../gateway/client.js';").filter((s) => !allowed(s)),
    ).toHaveLength(1);
    expect(specifiers("const m = await import('node:crypto');").filter((s) => !allowed(s))).toHaveLength(1);
    expect(nodeGlobals("const m = 'across every client and process';")).toEqual([]);
    // biome-ignore lint/suspicious/noTemplateCurlyInString: source text for the scanner, not a template
    expect(nodeGlobals('const m = `${process.env.X}`;')).toEqual(['process']);
    expect(specifiers("export * from 'ky';").filter((s) => !allowed(s))).toHaveLength(1);
    expect(specifiers("import './side-effect.js';")).toEqual(['./side-effect.js']);
    expect(nodeGlobals('const e = process.env.X;')).toEqual(['process']);
    expect(nodeGlobals('const p = (globalThis as { process?: unknown }).process;')).toEqual([]);
  });

  it('uses no Node globals (Buffer, process, require, __dirname), nor do the core modules it imports', () => {
    const offending: string[] = [];
    const core = PORTABLE_CORE.map((f) => join(root, 'src/core', f.replace(/\.js$/, '.ts')));
    for (const file of [...files, ...core]) {
      const text = code(readFileSync(file, 'utf8'));
      for (const name of nodeGlobals(text)) offending.push(`${relative(root, file)}: ${name}`);
    }
    expect(offending).toEqual([]);
  });

  it('bundles for a neutral platform without any node: import', async () => {
    const result = await build({
      entryPoints: [join(dir, 'index.ts')],
      bundle: true,
      write: false,
      format: 'esm',
      platform: 'neutral',
      external: ['zod'],
      logLevel: 'silent',
    });
    const output = result.outputFiles.map((f) => f.text).join('\n');
    expect(output).not.toMatch(/from\s*['"]node:/);
    expect(output).not.toMatch(/\brequire\(/);
    expect(output).toContain('createNodeWebhookHandler');
  });
});
