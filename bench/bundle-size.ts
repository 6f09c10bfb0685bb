/**
 * What a browser form or a Worker pays for the portable entries: each entry's file plus every chunk it imports,
 * minified by tsup's output as shipped, gzipped. Also whether any of those files imports a Node built-in.
 * Shared by bench/size.bench.ts (figures) and scripts/check-package.ts (CI gate).
 */
import { readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';

/** Gzipped bytes allowed per portable entry (ESM), with room for growth but not for a stray dependency. */
export const BUDGETS_GZIP_BYTES: Readonly<Record<string, number>> = {
  templates: 24 * 1024,
  webhooks: 24 * 1024,
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

export function measureEntry(distDir: string, entry: string): BundleReport {
  const seen = new Set<string>();
  const externals = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const source = readFileSync(file, 'utf8');
    for (const m of source.matchAll(IMPORT)) {
      const spec = m[1] ?? m[2]!;
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
    nodeImports: [...externals].filter((e) => NODE_BUILTINS.has(e)).sort(),
  };
}
