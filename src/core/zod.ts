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
  type catch as miniCatch,
  looseObject as miniLooseObject,
  object as miniObject,
  strictObject as miniStrictObject,
  never,
  unknown,
  ZodMiniCatch,
  type ZodMiniObject,
  ZodMiniType,
} from 'zod/mini';
import { $constructor, $ZodObjectJIT, type $ZodType, type output } from 'zod/v4/core';
import en from 'zod/v4/locales/en.js';
import { type IssueLike, type MessageIssue, toIssues } from './issues.js';

config(en());

// Re-exported name by name (`export *`), not as a namespace object: a bundler can then drop what is unused.
// Import it as `import * as z from '../core/zod.js'`, and write types as `z.output<typeof X>`, never `z.infer`: the
// declaration bundler flattens `z.infer` to a bare `infer`, a keyword, which no consumer's tsc can parse.
// `npm run check:package` compiles a consumer of every entry to hold this.
export * from 'zod/mini';

/**
 * zod/mini's objects parse without classic zod's compiled fast path (to stay small), which made every parse
 * measurably slower (docs/benchmarks.md). This object type is mini's with the compiled path back; where code generation is not
 * allowed (Workers) zod falls back to the plain one by itself.
 */
const ZodMiniObjectJIT = $constructor<ZodMiniObject>('ZodMiniObject', (inst, def) => {
  $ZodObjectJIT.init(inst, def);
  ZodMiniType.init(inst, def);
});

/**
 * An object constructor like zod/mini's `mini`, on `ZodMiniObjectJIT`; `catchall` decides loose, strict or strip.
 * With params (an error or a description), mini itself builds the definition, so their normalisation is zod's
 * own; without (every schema of the SDK's), the definition is written here and no second instance is built.
 * Not through zod's `util.normalizeParams`: `util` is a namespace object, and importing it kept all of zod's util
 * module (13.6 KB) in the webhooks bundle.
 */
const objectWith =
  <M extends (shape: never, params?: never) => { _zod: { def: unknown } }>(
    mini: M,
    catchall: () => ZodMiniType | undefined,
  ) =>
  (shape: unknown, params?: unknown) => {
    if (params !== undefined)
      return new ZodMiniObjectJIT(mini(shape as never, params as never)._zod.def as never);
    const rest = catchall();
    return new ZodMiniObjectJIT({ type: 'object', shape, ...(rest ? { catchall: rest } : {}) } as never);
  };

/** zod/mini's object constructors with the compiled parse path (see `ZodMiniObjectJIT`); same types. */
export const looseObject = objectWith(miniLooseObject, unknown) as unknown as typeof miniLooseObject;
export const strictObject = objectWith(miniStrictObject, never) as unknown as typeof miniStrictObject;
export const object = objectWith(miniObject, () => undefined) as unknown as typeof miniObject;

/**
 * zod/mini's `catch`, the same schema built here: mini's own reads `core.util.constantCatch`, and that one reference
 * kept all of zod's util module (about 9 KB minified) in the webhooks bundle.
 */
const catchWith = ((inner: ZodMiniType, value: unknown) =>
  new ZodMiniCatch({
    type: 'catch',
    innerType: inner,
    catchValue: typeof value === 'function' ? (value as () => unknown) : () => value,
  } as never)) as unknown as typeof miniCatch;

// The flavour-free issue helpers live in `issues.ts` (no zod import: the portable entries use them without
// loading zod); re-exported here, where the Node-only folders have always taken them from.
export { describeIssues, type IssueLike, toIssue, toIssues } from './issues.js';

/**
 * Runs a schema (classic zod or zod/mini) without ever throwing: a getter that throws or a Proxy becomes an
 * `unreadable` issue about `what`. `mapIssues` turns zod's issues into the SDK's (default `toIssues`).
 */
export function safeCheck<S extends $ZodType>(
  schema: S,
  input: unknown,
  options: { what?: string; mapIssues?: (issues: readonly IssueLike[]) => MessageIssue[] } = {},
): { ok: true; data: output<S> } | { ok: false; issues: MessageIssue[] } {
  const checkable = schema as unknown as {
    safeParse(
      input: unknown,
    ): { success: true; data: output<S> } | { success: false; error: { issues: IssueLike[] } };
  };
  try {
    const result = checkable.safeParse(input);
    return result.success
      ? { ok: true, data: result.data }
      : { ok: false, issues: (options.mapIssues ?? toIssues)(result.error.issues) };
  } catch {
    // `result.error` is read inside the try (zod 4 builds messages lazily, which may run the input's getters); the
    // thrown error is not read at all (its message could be anything, even a throwing getter itself).
    const what = options.what ?? 'input';
    return {
      ok: false,
      issues: [
        {
          path: [],
          message: `the ${what} could not be read (a getter or proxy threw)`,
          code: 'unreadable',
          rule: 'unreadable',
        },
      ],
    };
  }
}
export { catchWith as catch };
