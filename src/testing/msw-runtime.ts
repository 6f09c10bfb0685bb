import type * as Msw from 'msw';
import { loadOptionalPeer } from '../core/optional-peer.js';

/**
 * msw, loaded on first use of an msw handler factory, so that `wa-gateway-sdk/testing` imports without msw (an
 * optional peer): the sandbox, fixtures and signer need nothing but Node. msw declares a `module-sync` export, so
 * on Node ≥ 20.19 this resolves to the same ES module copy an `import 'msw'` gets, and the handlers belong to the
 * caller's msw.
 */
export function loadMsw(feature: string): typeof Msw {
  return loadOptionalPeer<typeof Msw>('msw', feature);
}
