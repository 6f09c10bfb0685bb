/**
 * The one rule for a path the public API client sends its secret key to: `request()` checks the caller's path by
 * it, and `templates.create` the path it builds from an application id.
 */

/**
 * What the URL parser would resolve above the base URL, taking the secret key with it: a `.` or `..` segment, also
 * percent-encoded (`%2e`, any case) or delimited by `\` (read as `/`), or a tab or line break (dropped by the parser,
 * which would join `.\t.` into `..`).
 */
const CLIMBS_OUT = /[\t\n\r]|(?:^|[/\\])(?:\.|%2e){1,2}(?=[/\\]|$)/i;

/**
 * Whether `path` reaches the operation it names below the base URL, as written: it starts with one `/`, has no
 * `.` or `..` segment (nor a disguised one), and no query or fragment.
 *
 * @example
 * isBelowBase('/wa/app_123/templates'); // true
 * isBelowBase('/wa/../templates'); // false: the request would go to /templates
 */
export function isBelowBase(path: unknown): path is string {
  return (
    typeof path === 'string' &&
    path.startsWith('/') &&
    !path.startsWith('//') &&
    !/[?#]/.test(path) &&
    !CLIMBS_OUT.test(path)
  );
}
