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
  type object as miniObject,
  type strictObject as miniStrictObject,
  never,
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

/** An object constructor like zod/mini's, on `ZodMiniObjectJIT`; `catchall` decides loose, strict or strip. */
const objectWith = (catchall: () => ZodMiniType | undefined) => (shape: unknown, params?: unknown) => {
  const rest = catchall();
  return new ZodMiniObjectJIT({
    type: 'object',
    shape,
    ...(rest ? { catchall: rest } : {}),
    ...(util.normalizeParams(params as never) as object),
  } as never) as never;
};

/** zod/mini's object constructors with the compiled parse path (see `ZodMiniObjectJIT`); same types. */
export const looseObject: typeof miniLooseObject = objectWith(unknown);
export const strictObject: typeof miniStrictObject = objectWith(never);
export const object: typeof miniObject = objectWith(() => undefined);
