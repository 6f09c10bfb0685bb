/**
 * The `{{n}}` variables of a template text, found with a linear scan. Dependency-free: the send check (which the
 * conversations entry loads) counts variables with it without loading the rule table's helpers.
 */

/** How something between double braces fails to be a `{{n}}` variable. */
export type MalformedKind = 'named' | 'spaces' | 'zero' | 'invalid';

/** Something between double braces that is not a `{{n}}` variable. */
export interface MalformedVariable {
  readonly kind: MalformedKind;
  /** As written, braces included, cut to 24 units (`{{name}}`, `{{ 1 }}`). */
  readonly token: string;
  /** What to write instead, where one can tell (`{{1}}` for `{{ 1 }}` and `{{01}}`). */
  readonly instead: string | undefined;
}

/** Variables found in a text. `distinct` is capped so a hostile 10 MB text cannot blow up memory. */
export interface VariableScan {
  /** Distinct variable numbers, ascending: only well-formed ones (`{{1}}`, `{{12}}`). */
  readonly distinct: readonly number[];
  /** Total occurrences of well-formed variables. */
  readonly occurrences: number;
  /** Double braces around anything else, in text order, distinct tokens only, at most 20. */
  readonly malformed: readonly MalformedVariable[];
}

const MAX_DISTINCT_VARIABLES = 10_000;
const MAX_MALFORMED = 20;
/** The longest inside of double braces read as an attempted variable (`{{customer_first_name}}`). */
const MAX_INSIDE = 64;

const isDigit = (c: number) => c >= 48 && c <= 57;

/** What the inside of `{{...}}` is: a variable number, or how it is malformed. */
function classify(inside: string): { n: number } | { kind: MalformedKind; instead: string | undefined } {
  if (/^[1-9][0-9]*$/.test(inside)) return { n: Number(inside) };
  const trimmed = inside.trim();
  if (/^[0-9]+$/.test(trimmed)) {
    const n = Number(trimmed);
    if (trimmed !== inside && n > 0 && !trimmed.startsWith('0'))
      return { kind: 'spaces', instead: `{{${n}}}` };
    return { kind: 'zero', instead: n > 0 ? `{{${n}}}` : undefined };
  }
  if (/^[\p{L}_][\p{L}\p{N}_.-]*$/u.test(trimmed)) return { kind: 'named', instead: undefined };
  return { kind: 'invalid', instead: undefined };
}

/**
 * Finds `{{n}}` variables with a linear scan (no regex backtracking on hostile input), and what else stands
 * between double braces (`{{name}}`, `{{ 1 }}`, `{{0}}`, `{{}}`): the spec writes variables `{{1}}`, `{{2}}`.
 *
 * @example
 * scanVariables('Hi {{1}}, {{2}} and {{1}}').distinct; // [1, 2] (occurrences: 3)
 * scanVariables('Hi {{name}}').malformed[0]?.kind; // 'named'
 */
export function scanVariables(s: string): VariableScan {
  const seen = new Set<number>();
  const malformed: MalformedVariable[] = [];
  const tokens = new Set<string>();
  let occurrences = 0;
  let i = s.indexOf('{{');
  while (i !== -1) {
    let j = i + 2;
    while (j < s.length && isDigit(s.charCodeAt(j))) j++;
    if (j > i + 2 && s.startsWith('}}', j) && s.charCodeAt(i + 2) !== 48) {
      occurrences++;
      if (seen.size < MAX_DISTINCT_VARIABLES) seen.add(Number(s.slice(i + 2, j)));
      i = s.indexOf('{{', j + 2);
      continue;
    }
    // Not a variable: the inside up to the closing braces, unless another '{{' or a line break comes first.
    const close = s.indexOf('}}', i + 2);
    const inside = close === -1 ? undefined : s.slice(i + 2, Math.min(close, i + 2 + MAX_INSIDE + 1));
    if (
      inside !== undefined &&
      inside.length <= MAX_INSIDE &&
      !inside.includes('{{') &&
      !/[\n\r]/.test(inside)
    ) {
      const c = classify(inside);
      const token = `{{${inside}}}`;
      if ('kind' in c && malformed.length < MAX_MALFORMED && !tokens.has(token)) {
        tokens.add(token);
        malformed.push({
          kind: c.kind,
          token: token.length > 24 ? `${token.slice(0, 23)}…` : token,
          instead: c.instead,
        });
      }
      i = s.indexOf('{{', close + 2);
    } else {
      i = s.indexOf('{{', i + 1);
    }
  }
  return { distinct: [...seen].sort((a, b) => a - b), occurrences, malformed };
}

/**
 * Whether the text, trimmed, starts with a `{{n}}` variable.
 *
 * @example
 * startsWithVariable('  {{1}} is ready'); // true
 */
export function startsWithVariable(s: string): boolean {
  const i = s.search(/\S/);
  if (i === -1 || !s.startsWith('{{', i)) return false;
  let j = i + 2;
  while (j < s.length && isDigit(s.charCodeAt(j))) j++;
  return j > i + 2 && s.startsWith('}}', j);
}

/**
 * Whether the text, trimmed, ends with a `{{n}}` variable.
 *
 * @example
 * endsWithVariable('Ready: {{12}} \n'); // true
 */
export function endsWithVariable(s: string): boolean {
  const t = s.trimEnd();
  if (!t.endsWith('}}')) return false;
  let j = t.length - 2;
  while (j > 0 && isDigit(t.charCodeAt(j - 1))) j--;
  return j < t.length - 2 && j >= 2 && t.startsWith('{{', j - 2);
}
