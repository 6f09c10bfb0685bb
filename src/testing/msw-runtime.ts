import { createRequire } from 'node:module';
import type * as Msw from 'msw';
import { MissingDependencyError } from '../core/errors.js';

/**
 * msw, loaded on first use of an msw handler factory, so that `wa-gateway-sdk/testing` imports without msw (an
 * optional peer): the sandbox, fixtures and signer need nothing but Node.
 *
 * Synchronous on purpose (the factories return handlers, as they always have), hence `require`. msw declares a
 * `module-sync` export, so on Node ≥ 20.19 this resolves to the same ES module copy an `import 'msw'` gets, and
 * the handlers belong to the caller's msw.
 */
let loaded: typeof Msw | undefined;

export function loadMsw(feature: string): typeof Msw {
  if (loaded) return loaded;
  // CJS build: this module's own file; ESM build: its URL (tsup does not shim import.meta in CJS).
  const from = typeof __filename === 'string' ? __filename : import.meta.url;
  try {
    loaded = createRequire(from)('msw') as typeof Msw;
  } catch (error) {
    if (isMissing(error)) throw new MissingDependencyError('msw', feature, error);
    throw error;
  }
  return loaded;
}

function isMissing(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  const message = error instanceof Error ? error.message : '';
  // Only msw itself missing; a missing dependency *of* msw is a broken install and is passed on as is.
  return (code === 'MODULE_NOT_FOUND' || code === 'ERR_MODULE_NOT_FOUND') && /['"]msw['"]/.test(message);
}
