/**
 * Bar: the `templates` and `webhooks` bundles import no `node:` module and stay within their gzip budgets; the
 * `durable-objects` entry, bundled and minified for workerd from `dist/`, within its budget and without `node:`.
 * Reads the built `dist/` (run `npm run build` first).
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { BUDGETS_GZIP_BYTES, bundleFor, measureEntry, WORKER_BUDGETS_BYTES } from './bundle-size.js';
import { report, round } from './lib.js';

const dist = fileURLToPath(new URL('../dist', import.meta.url));
if (!existsSync(`${dist}/webhooks.js`)) throw new Error('dist/ is missing: run `npm run build` first.');
for (const [entry, budget] of Object.entries(BUDGETS_GZIP_BYTES)) {
  const r = measureEntry(dist, entry);
  report({
    bench: 'size',
    metric: `${entry} entry, gzipped (${r.files.length} files; imports ${r.externals.join(', ') || 'nothing'})`,
    value: round(r.gzipBytes / 1024, 1),
    unit: ' KB',
    bar: `<= ${budget / 1024} KB, no node:`,
    limit: budget / 1024,
    pass: r.gzipBytes <= budget && r.nodeImports.length === 0,
    detail: { rawKB: round(r.rawBytes / 1024, 1), nodeImports: r.nodeImports.join(',') || 'none' },
  });
}
for (const [entry, budget] of Object.entries(WORKER_BUDGETS_BYTES)) {
  const bundle = await bundleFor(`${dist}/${entry}.js`, 'workerd', { minify: true });
  report({
    bench: 'size',
    metric: `${entry} entry + dependencies, bundled and minified for workerd (KB)`,
    value: round(bundle.bytes / 1024, 1),
    unit: ' KB',
    bar: `<= ${budget / 1024} KB, no node:`,
    limit: budget / 1024,
    pass: bundle.bytes <= budget && bundle.nodeImports.length === 0,
    detail: {
      gzipKB: round(bundle.gzipBytes / 1024, 1),
      nodeImports: bundle.nodeImports.join(',') || 'none',
    },
  });
}
