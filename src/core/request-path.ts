/**
 * The one rule for a path a client sends its credential to: the public API's `request()` checks the caller's path
 * by it, and a path built from a caller's id (`templates.create`'s application id, `media.download`'s media id) puts
 * the id in as one segment by it (`pathSegment`).
 */

/**
 * What the URL parser would resolve above the base URL, taking the secret key with it: a `.` or `..` segment, also
 * percent-encoded (`%2e`, any case) or delimited by `\` (read as `/`), or a tab or line break (dropped by the parser,
 * which would join `.\t.` into `..`).
 */
const CLIMBS_OUT = /[\t\n\r]|(?:^|[/\\])(?:\.|%2e){1,2}(?=[/\\]|$)/i;

/**
 * A lone surrogate: text no URL can carry. `encodeURIComponent` throws a bare `URIError` on it, and the URL parser
 * turns it into U+FFFD, so a request would go to a path that was not written.
 */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * Whether `path` reaches the operation it names below the base URL, as written: it starts with one `/`, has no
 * `.` or `..` segment (nor a disguised one), no query or fragment, and no lone surrogate.
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
    !CLIMBS_OUT.test(path) &&
    !LONE_SURROGATE.test(path)
  );
}

/**
 * `value` encoded as one segment of a path below the base URL, or `undefined` when it cannot be one: `.` or `..`
 * (the URL parser would resolve it, taking the request and its credential to another endpoint), or text with a lone
 * surrogate.
 *
 * @example
 * pathSegment('a/b?c'); // 'a%2Fb%3Fc'
 * pathSegment('..'); // undefined
 * pathSegment('\ud800'); // undefined
 */
export function pathSegment(value: string): string | undefined {
  if (LONE_SURROGATE.test(value)) return undefined;
  const segment = encodeURIComponent(value);
  return segment !== '' && isBelowBase(`/${segment}`) ? segment : undefined;
}
