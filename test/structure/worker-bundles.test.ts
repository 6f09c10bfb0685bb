/**
 * What a Worker ships, held in `npm test` rather than only in CI's package check (which needs `dist/`): one value
 * import across areas can move tens of KB into an entry. Twice so far a template rule imported as a value into the
 * gateway put the template rules and zod/mini into the chunks the Durable Objects entry shares with the main entry
 * (60 KB against its 32 KB budget). So the entries that share chunks are built here as `npm run build` builds them
 * (tsup, the project's own config, JavaScript only), then bundled as wrangler bundles a Worker (esbuild, the
 * workerd conditions, minified); the self-contained portable entries are bundled from `src/` the same way.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { build, type Options } from 'tsup';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleFor, WORKER_BUDGETS_BYTES } from '../../bench/bundle-size.js';
import config from '../../tsup.config.js';

/** The entries that load no zod: they check with generated code (docs/benchmarks.md, issue 35). */
const ZOD_FREE = {
  webhooks: 'src/webhooks/index.ts',
  templates: 'src/templates/index.ts',
  conversations: 'src/conversations/index.ts',
} as const;

const zodFiles = (inputs: readonly string[]) => inputs.filter((file) => /node_modules\/zod\//.test(file));

describe('the portable entries a Worker bundles', () => {
  for (const [entry, file] of Object.entries(ZOD_FREE)) {
    it(`${entry}: no zod, no Node built-in`, async () => {
      const bundle = await bundleFor(file, 'workerd', { minify: true });
      expect(zodFiles(bundle.inputs)).toEqual([]);
      expect(bundle.nodeImports).toEqual([]);
    });
  }
});

describe('the Workers-only entries, built with shared chunks as shipped', () => {
  let out = '';
  beforeAll(async () => {
    // Inside the project, so that the bundler finds node_modules from the built files.
    await mkdir('node_modules/.cache', { recursive: true });
    out = await mkdtemp(join('node_modules/.cache', 'worker-bundles-'));
    const shared = (config as Options[])[0]!;
    await build({
      ...shared,
      format: ['esm'],
      dts: false,
      sourcemap: false,
      outDir: out,
      silent: true,
      config: false,
    });
  }, 120_000);
  afterAll(() => rm(out, { recursive: true, force: true }));

  for (const [entry, budget] of Object.entries(WORKER_BUDGETS_BYTES)) {
    it(`${entry}: within its budget of ${budget} bytes, no zod, no Node built-in`, async () => {
      const bundle = await bundleFor(join(out, `${entry}.js`), 'workerd', { minify: true });
      expect(bundle.bytes).toBeLessThanOrEqual(budget);
      expect(zodFiles(bundle.inputs)).toEqual([]);
      expect(bundle.nodeImports).toEqual([]);
    });
  }
});
