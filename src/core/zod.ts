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

config(en());

// Re-exported name by name (`export *`), not as a namespace object: a bundler can then drop what is unused.
// Import it as `import * as z from '../core/zod.js'`, and write types as `z.output<typeof X>`, never `z.infer`: the
// declaration bundler flattens `z.infer` to a bare `infer`, a keyword, which no consumer's tsc can parse.
// `npm run check:package` compiles a consumer of every entry to hold this.
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

export { catchWith as catch };

/**
 * An issue as the SDK reports it (`MessageIssue` in errors.ts, the same shape, written out here so that this
 * module imports zod only).
 */
type MessageIssue = { path: (string | number)[]; message: string; code: string; rule: string };

/** A zod issue as the SDK reads it: classic zod's and zod/mini's alike. */
export interface IssueLike {
  readonly path: readonly PropertyKey[];
  readonly code: string;
  readonly message: string;
  readonly params?: Readonly<Record<string, unknown>> | undefined;
  /** A `too_small` issue's bound. */
  readonly minimum?: unknown;
}

/**
 * One zod issue as the SDK's: symbol keys as strings, an SDK rule (`unique`, ...) in place of `custom`, and the
 * SDK's rule id in `rule`: the one the check named (`params.rule`), else one derived from the field and the kind
 * of problem, in the template rules' vocabulary (`<field>.required`, `<field>.type`, `<field>.enum`,
 * `<field>.max_length`, `<field>.min_length`, `<field>.invalid`).
 */
export function toIssue(raw: IssueLike): MessageIssue {
  const issue = standingFor(raw);
  const named = issue.params?.['rule'];
  const path = issue.path.map((p) => (typeof p === 'symbol' ? String(p) : p));
  return {
    path,
    message: issue.message,
    code: issue.code === 'custom' && typeof named === 'string' ? named : issue.code,
    // A bare kind a check named (`unique`, `required`) is qualified with its field, as derived ids are.
    rule:
      typeof named !== 'string'
        ? derivedRule(issue, path)
        : named.includes('.')
          ? named
          : `${fieldOf(path)}.${named}`,
  };
}

/**
 * A predicate's issue (`.refine`, always `custom`) that names the zod issue it stands for in `params.code` (and its
 * bound in `params.minimum`), read as that issue: a length counted in code points is `too_small`/`too_big` like
 * zod's own (`gateway/text-schema.ts`).
 */
function standingFor(issue: IssueLike): IssueLike {
  const code = issue.code === 'custom' ? issue.params?.['code'] : undefined;
  if (typeof code !== 'string') return issue;
  return { path: issue.path, code, message: issue.message, minimum: issue.params?.['minimum'] };
}

/** The field of a rule id: the path without list indices (`interactive.action.buttons.reply.title`). */
const fieldOf = (path: readonly (string | number)[]) =>
  path.filter((p) => typeof p === 'string').join('.') || 'message';

/** The rule id of a zod issue whose check named none: the field (list indices left out) and the kind. */
function derivedRule(issue: IssueLike, path: readonly (string | number)[]): string {
  const field = fieldOf(path);
  switch (issue.code) {
    case 'invalid_type':
      return /received undefined$/.test(issue.message) ? `${field}.required` : `${field}.type`;
    case 'invalid_value':
    case 'invalid_union':
      return `${field}.enum`;
    case 'too_big':
      return `${field}.max_length`;
    case 'too_small':
      return issue.minimum === 1 || issue.minimum === 1n ? `${field}.required` : `${field}.min_length`;
    case 'unrecognized_keys':
      return 'unknown_field';
    default:
      return `${field}.invalid`;
  }
}

/** zod's issues as the SDK's (`toIssue`). */
export function toIssues(issues: readonly IssueLike[]): MessageIssue[] {
  return issues.map(toIssue);
}

/** `'a.b: message; (root): message'`, at most `max` issues: paths and expectations, never the input's values. */
export function describeIssues(issues: readonly MessageIssue[], max = issues.length): string {
  return issues
    .slice(0, max)
    .map((i) => `${i.path.length > 0 ? i.path.join('.') : '(root)'}: ${i.message}`)
    .join('; ');
}

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
