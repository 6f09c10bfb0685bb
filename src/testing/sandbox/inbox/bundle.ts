/**
 * Build-time only (never imported by the package): bundles the inbox page's script and style with esbuild.
 * `npm run build` writes the result to dist/inbox/; run from source, the inbox calls this on first use.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const client = join(dirname(fileURLToPath(import.meta.url)), 'client');

/**
 * `import { z } from 'zod'` (in the template rules) keeps zod's whole namespace, with `z.locales`: every
 * language's error messages, 260 KB the page never uses (validateTemplate writes its own messages; zod's
 * English default stays). The namespace of locales becomes an empty module.
 */
const noZodLocales: import('esbuild').Plugin = {
  name: 'no-zod-locales',
  setup(build) {
    build.onResolve({ filter: /locales\/index\.js$/ }, (args) =>
      args.importer.includes(`${'node_modules'}/zod/`)
        ? { path: 'zod-locales', namespace: 'empty' }
        : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'empty' }, () => ({ contents: 'export {}', loader: 'js' }));
  },
};

/** Bundles `inbox.js`, `preview.js` (with `validateTemplate`) and `inbox.css`, minified, for current browsers. */
export async function bundleInboxAssets(): Promise<Record<string, string>> {
  const { build } = await import('esbuild');
  const result = await build({
    entryPoints: { inbox: join(client, 'inbox.ts'), preview: join(client, 'preview.ts') },
    bundle: true,
    minify: true,
    format: 'esm',
    target: ['chrome120', 'firefox120', 'safari17'],
    write: false,
    outdir: '/',
    legalComments: 'none',
    logLevel: 'silent',
    plugins: [noZodLocales],
  });
  const files: Record<string, string> = {};
  for (const file of result.outputFiles) files[file.path.slice(1)] = file.text;
  const css = await build({
    entryPoints: [join(client, 'inbox.css')],
    bundle: true,
    minify: true,
    write: false,
    logLevel: 'silent',
  });
  files['inbox.css'] = css.outputFiles[0]!.text;
  return files;
}
