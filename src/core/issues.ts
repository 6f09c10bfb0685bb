/**
 * The SDK's reading of zod issues, for classic zod and zod/mini alike, and for the generated checkers' issues
 * (`checker-runtime.ts`), which have zod's shape. Imports nothing, so the portable entries report issues without
 * loading zod.
 */
/**
 * An issue as the SDK reports it (`MessageIssue` in errors.ts, the same shape, written out here so that this
 * module imports zod only).
 */
export type MessageIssue = { path: (string | number)[]; message: string; code: string; rule: string };

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
      // zod's own message, or the SDK's for a field left out (`stringOr`, gateway/text-schema.ts): "<what> is
      // required", before any ':' or ';' (so "must be a string; it is required" stays a type issue).
      return /received undefined$|^[^:;,]*\bis required\b/.test(issue.message)
        ? `${field}.required`
        : `${field}.type`;
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
