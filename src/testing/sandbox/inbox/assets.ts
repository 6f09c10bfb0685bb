import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ConfigurationError } from '../../../core/errors.js';

/** A file the inbox serves under `/inbox/`. */
export interface Asset {
  contentType: string;
  body: string;
}

/** The page files `npm run build` writes to `dist/inbox/`, beside the bundle that serves them. */
export const INBOX_ASSET_FILES: Readonly<Record<string, string>> = {
  'inbox.js': 'text/javascript; charset=utf-8',
  'preview.js': 'text/javascript; charset=utf-8',
  'inbox.css': 'text/css; charset=utf-8',
};

/**
 * The page's script and style. From the package they are read from `dist/inbox/` (built once by
 * `npm run build`); run from source (tests, `npm run demo`), they are bundled on first use with esbuild, a dev
 * dependency, through a path the package build never follows.
 */
export function loadInboxAssets(): Promise<Map<string, Asset>> {
  loading ??= load();
  // A failed load is not kept: the next sandbox tries again.
  loading.catch(() => {
    loading = undefined;
  });
  return loading;
}

let loading: Promise<Map<string, Asset>> | undefined;

async function load(): Promise<Map<string, Asset>> {
  const here = dirname(fileURLToPath(import.meta.url));
  const built = join(here, 'inbox');
  if (existsSync(join(built, 'inbox.js'))) {
    return new Map(
      Object.entries(INBOX_ASSET_FILES).map(([name, contentType]) => [
        name,
        { contentType, body: readFileSync(join(built, name), 'utf8') },
      ]),
    );
  }
  const bundler = join(here, 'bundle.ts');
  if (!existsSync(bundler))
    throw new ConfigurationError(
      `The inbox page files are missing from ${built}: the package was built without them.`,
    );
  const { bundleInboxAssets } = (await import(pathToFileURL(bundler).href)) as typeof import('./bundle.js');
  const files = await bundleInboxAssets();
  return new Map(
    Object.entries(INBOX_ASSET_FILES).map(([name, contentType]) => [
      name,
      { contentType, body: files[name] ?? '' },
    ]),
  );
}
