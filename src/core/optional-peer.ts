import { createRequire } from 'node:module';
import { MissingDependencyError } from './errors.js';

/**
 * Optional peer dependencies (msw for `wa-gateway-sdk/testing`, bullmq and ioredis for `wa-gateway-sdk/redis`),
 * loaded on first use of the feature that needs them, so that importing an entry never fails because one is not
 * installed: only using the feature does, with `MissingDependencyError`.
 *
 * Synchronous on purpose (the factories return handlers and workers, as they always have), hence `require`. On
 * Node ≥ 20.19 a package that declares a `module-sync` export (msw) resolves to the same ES module copy an
 * `import` of it gets, so what it builds belongs to the caller's copy.
 */
const loaded = new Map<string, unknown>();

/**
 * The peers only tests use, installed with `--save-dev`. bullmq and ioredis run in production: a `--save-dev`
 * install of them is missing from a production install (`npm ci --omit=dev`) and fails there.
 */
const DEV_ONLY: ReadonlySet<string> = new Set(['msw']);

/** @internal Loads `packageName` (cached per package); throws `MissingDependencyError` when it is not installed. */
export function loadOptionalPeer<T>(packageName: string, feature: string): T {
  if (loaded.has(packageName)) return loaded.get(packageName) as T;
  // CJS build: this module's own file; ESM build: its URL (tsup does not shim import.meta in CJS).
  const from = typeof __filename === 'string' ? __filename : import.meta.url;
  let module: T;
  try {
    module = createRequire(from)(packageName) as T;
  } catch (error) {
    if (isMissing(error, packageName)) {
      throw new MissingDependencyError(packageName, feature, error, DEV_ONLY.has(packageName));
    }
    throw error;
  }
  loaded.set(packageName, module);
  return module;
}

function isMissing(error: unknown, packageName: string): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : '';
  // Only the package itself missing; a missing dependency *of* it is a broken install and is passed on as is.
  const quoted = new RegExp(`['"]${packageName.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}['"]`);
  return (code === 'MODULE_NOT_FOUND' || code === 'ERR_MODULE_NOT_FOUND') && quoted.test(message);
}
