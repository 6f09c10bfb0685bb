/**
 * Schemas on a hot path, compiled by zod (`z.compile`, documented at zod.dev/compile) once they are hot.
 *
 * Classic zod, the flavour of its users (sends, the platform): the compiler comes from the same zod copy as the
 * schemas it reads, the application's, never the copy bundled into the portable entries. Those (webhooks,
 * templates) do not use it: the compiler would add about 12 KB gzipped to bundles whose size bars leave less, and
 * their speed bars hold on zod's own parser.
 */
import { z } from 'zod';

/** Per schema: how many times it was checked, until it is hot; then its compiled clone. */
const tiers = new WeakMap<z.ZodType, number | z.ZodType>();

/**
 * Checks a schema takes on zod's own parser before it is compiled. Compiling the outbound message union takes
 * about 4 ms more than its first parse (docs/benchmarks.md), which a process that sends a handful of messages
 * (a function's cold start) should not pay; a process that sends thousands pays it once.
 */
export const HOT_AFTER = 16;

/**
 * The schema to parse `schema`'s input with now: `schema` itself for its first `HOT_AFTER` checks, then its
 * compiled clone (`compiled`). Either answers the same; a count, not a clock, decides, so it is deterministic.
 *
 * @example
 * const result = hot(detailResponseSchema).safeParse(body);
 */
export function hot<S extends z.ZodType>(schema: S): S {
  const tier = tiers.get(schema);
  if (typeof tier === 'object') return tier as S;
  const uses = (tier ?? 0) + 1;
  if (uses <= HOT_AFTER) {
    tiers.set(schema, uses);
    return schema;
  }
  const fast = compiled(schema);
  tiers.set(schema, fast);
  return fast;
}

/**
 * `schema` with zod's compiled fast path (`z.compile`, documented at zod.dev/compile): the same schema, results and
 * issues, faster. zod runs its own parser on any input the fast path does not accept, so the issues are always
 * the runtime's. Where code generation is not allowed (Workers, a CSP) or the application turned it off
 * (`z.config({ jitless: true })`), it is the schema itself. Not cached: `hot` keeps the one clone per schema.
 */
export function compiled<S extends z.ZodType>(schema: S): S {
  return z.config().jitless ? schema : z.compile(schema);
}
