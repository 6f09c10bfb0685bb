/**
 * The zod the portable entries (webhooks, templates) build their schemas with: `zod/mini`, which tree-shakes to
 * the few KB those schemas use (classic zod bundles to ~440 KB minified), with English issue messages.
 *
 * zod/mini ships no messages: without a locale every issue reads "Invalid input". Classic zod installs this same
 * English locale when it is imported; the built package bundles its own copy of zod/mini (tsup.config.ts), so
 * this configures only that copy.
 */
import {
  config,
  type looseObject as miniLooseObject,
  unknown,
  type ZodMiniObject,
  ZodMiniType,
} from 'zod/mini';
import { $constructor, $ZodObjectJIT, util } from 'zod/v4/core';
import en from 'zod/v4/locales/en.js';

config(en());

// Re-exported name by name (`export *`), not as a namespace object: a bundler can then drop what is unused.
// Import it as `import * as z from '../core/zod.js'`.
export * from 'zod/mini';

/**
 * zod/mini's objects parse without classic zod's compiled fast path (to stay small), which made every webhook
 * parse ~1.4× slower. This object type is mini's with the compiled path back; where code generation is not
 * allowed (Workers) zod falls back to the plain one by itself.
 */
const ZodMiniObjectJIT = $constructor<ZodMiniObject>('ZodMiniObject', (inst, def) => {
  $ZodObjectJIT.init(inst, def);
  ZodMiniType.init(inst, def);
});

/** `z.looseObject` with the compiled parse path (see `ZodMiniObjectJIT`); same types as zod/mini's. */
export const looseObject: typeof miniLooseObject = (shape, params) =>
  new ZodMiniObjectJIT({
    type: 'object',
    shape,
    catchall: unknown(),
    ...util.normalizeParams(params),
  } as never) as never;
