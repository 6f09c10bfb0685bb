/**
 * What a browser form or a Worker pays for the portable entries: each entry's file plus every chunk it imports,
 * minified by tsup's output as shipped, gzipped. Also whether any of those files imports a Node built-in.
 * Shared by bench/size.bench.ts (figures) and scripts/check-package.ts (CI gate).
 */
import { readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';

/**
 * Gzipped bytes allowed per portable entry (ESM), with room for growth but not for a stray dependency. Since issue
 * 35 the entries load no zod (generated checkers) and are one self-contained file each: 19 KB (templates), 25.4 KB
 * (webhooks) and 7.8 KB (conversations) when the budgets were set, so zod/mini coming back (about 12 KB gzipped)
 * fails them, and classic zod (~100 KB) all the more. The conversations entry then took issue 36's window refusals
 * (9.5 KB) and its typed template replies, `ctx.replyTemplate(definition, values)`: the components builder and the
 * send check, the same code `sendTemplate` runs (12.3 KB); its budget moved from 12 to 14 KB with them, still well
 * under zod/mini's return. Then the bounds of the router's in-memory stores (anyone can message a business number,
 * so they must not grow with the senders: `MemoryLeases` under the window store, a bounded session store; 14.5 KB):
 * 16 KB, still under zod/mini's return. Then `createRouter`'s checks of every option and the one rule for what a
 * session may hold (an outside audit's findings: bad options failed every event later, with plain TypeErrors), about
 * 1.1 KB: 17 KB, still under zod/mini's return. Then the refusal of a near-miss key in `createRouter`'s options
 * (`session_ttl_ms`, `onerror`: the options' "did you mean", `core/option-keys.ts`), 630 bytes, and the router's
 * warning for a lock whose release failed in place of failing a handled event (an outside audit's finding), about
 * 200: 17,527 bytes, over 17 KB; the budget moved to 18 KB, still well under zod/mini's return (about 29 KB with
 * it). What a Worker pays, bundled and minified, is the cold-start bench's figure.
 */
export const BUDGETS_GZIP_BYTES: Readonly<Record<string, number>> = {
  templates: 24 * 1024,
  webhooks: 30 * 1024,
  conversations: 18 * 1024,
};

/**
 * Bytes allowed per Workers-only entry bundled and minified for workerd (esbuild with the workerd conditions, from
 * the built `dist/` file, as wrangler builds a Worker that imports the package): what a Worker ships. The
 * durable-objects entry was 23.9 KB (7.9 KB gzipped) when it was added: the stores, the object and the status
 * tracker's rules, no zod. Its `dist/` files share chunks with the other entries (the template catalogue's, which
 * imports the template rules and zod/mini), so their gzipped sum says little about a Worker and has no budget.
 */
export const WORKER_BUDGETS_BYTES: Readonly<Record<string, number>> = {
  'durable-objects': 32 * 1024,
};

const NODE_BUILTINS = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]));

export interface BundleReport {
  entry: string;
  files: string[];
  rawBytes: number;
  gzipBytes: number;
  /** Bare imports other than relative chunks, e.g. `zod`. */
  externals: string[];
  /** Node built-ins imported anywhere in the entry's graph (must be empty for portable entries). */
  nodeImports: string[];
}

const IMPORT =
  /(?:^|[\s;])(?:import|export)\s*(?:[^'"]*?\sfrom\s*)?['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

/** Every module specifier a built file imports (static, re-export or dynamic import). */
export function importSpecifiers(source: string): string[] {
  return [...source.matchAll(IMPORT)].map((m) => m[1] ?? m[2]!);
}

/** The Node built-ins among the given specifiers (`fs`, `node:fs`, ...): what a portable bundle must not import. */
export function nodeBuiltinsIn(specifiers: Iterable<string>): string[] {
  return [...new Set([...specifiers].filter((s) => NODE_BUILTINS.has(s) || s.startsWith('node:')))].sort();
}

export function measureEntry(distDir: string, entry: string): BundleReport {
  const seen = new Set<string>();
  const externals = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const source = readFileSync(file, 'utf8');
    for (const spec of importSpecifiers(source)) {
      if (spec.startsWith('.')) visit(join(dirname(file), spec));
      else externals.add(spec);
    }
  };
  visit(join(distDir, `${entry}.js`));
  const files = [...seen];
  const all = files.map((f) => readFileSync(f)).reduce((a, b) => Buffer.concat([a, b]), Buffer.alloc(0));
  return {
    entry,
    files: files.map((f) => f.slice(distDir.length + 1)),
    rawBytes: all.byteLength,
    gzipBytes: gzipSync(all).byteLength,
    externals: [...externals].sort(),
    nodeImports: nodeBuiltinsIn(externals),
  };
}

/** How each runtime's own bundler resolves packages: its platform and export conditions. */
export const RUNTIME_TARGETS = {
  // wrangler: the `workerd` and `worker` conditions, then browser fields.
  workerd: { platform: 'browser', conditions: ['workerd', 'worker', 'browser'] },
  bun: { platform: 'neutral', conditions: ['bun'] },
  deno: { platform: 'neutral', conditions: ['deno'] },
  browser: { platform: 'browser', conditions: ['browser'] },
} as const satisfies Record<string, { platform: 'browser' | 'neutral'; conditions: string[] }>;
export type RuntimeTarget = keyof typeof RUNTIME_TARGETS;

export interface TargetBundle {
  target: RuntimeTarget;
  code: string;
  bytes: number;
  gzipBytes: number;
  /** Node built-ins the bundle still imports (kept external so they show up here instead of failing the build). */
  nodeImports: string[];
  /** Every file bundled, relative to the working directory (`src/...`, `node_modules/zod/...`). */
  inputs: string[];
}

/**
 * Bundles `entry` and everything it imports into one ESM file the way `target`'s tooling would (esbuild with the
 * target's platform and conditions). Node built-ins are left as imports, then reported in `nodeImports`.
 */
export async function bundleFor(
  entry: string,
  target: RuntimeTarget,
  { minify = false }: { minify?: boolean } = {},
): Promise<TargetBundle> {
  const { build } = await import('esbuild');
  const { platform, conditions } = RUNTIME_TARGETS[target];
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    format: 'esm',
    target: 'es2022',
    platform,
    conditions: [...conditions],
    mainFields: ['module', 'main'],
    external: [...NODE_BUILTINS],
    minify,
    metafile: true,
    logLevel: 'silent',
  });
  const code = result.outputFiles[0]!.text;
  const imported = Object.values(result.metafile.outputs).flatMap((o) => o.imports.map((i) => i.path));
  return {
    target,
    code,
    bytes: Buffer.byteLength(code),
    gzipBytes: gzipSync(code).byteLength,
    nodeImports: nodeBuiltinsIn(imported),
    inputs: Object.keys(result.metafile.inputs),
  };
}
