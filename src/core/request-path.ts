/**
 * The one rule for a URL a client sends its credential to: the public API's `request()` checks the caller's path
 * by it, a path built from a caller's id (`templates.create`'s application id, `media.download`'s media id) puts
 * the id in as one segment by it (`idSegment`, through `pathSegment`), and every request's query is checked by it
 * (`checkQuery`).
 */

import { invalidArgument, requireText } from './errors.js';
import type { QueryParams } from './transport-request.js';

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
const NO_URL_CARRIES = 'a lone surrogate (text no URL can carry)';

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

/**
 * The id argument `name` of `call` as one segment of its path, or the argument error of every client's rule (a
 * `MessageValidationError`): rule `<name>.required` when it is missing, empty or not a string (`requireText`), rule
 * `<name>.format` when the path cannot carry it as one segment (`pathSegment`). `give` says what to pass.
 *
 * @example
 * const segment = idSegment('media.download', 'mediaId', mediaId, 'the image.id, audio.id, ... of an incoming message');
 * // '..' throws: Invalid media.download argument: mediaId: is "..", which a URL resolves as a path step ...
 */
export function idSegment(call: string, name: string, value: unknown, give: string): string {
  const id = requireText(call, name, value, give);
  const segment = pathSegment(id);
  if (segment !== undefined) return segment;
  throw invalidArgument(
    call,
    [name],
    `${
      id === '.' || id === '..'
        ? `is "${id}", which a URL resolves as a path step (the request, with its credential, would go to another endpoint)`
        : `holds ${NO_URL_CARRIES}`
    }: give ${give}`,
    `${name}.format`,
  );
}

/**
 * Refuses a query no URL carries as written, before any request: a key or value with a lone surrogate, which
 * `URLSearchParams` turns into U+FFFD (the request would ask for what was not written). The argument error of
 * every client's rule, path `['query', key]` (and the index of an array's item), rule `query.format`.
 *
 * @example
 * checkQuery('GET /reports/feedbacks/', { channel: 'a\ud800' }); // throws: query.channel holds a lone surrogate
 */
export function checkQuery(call: string, query: QueryParams): void {
  const refuse = (path: (string | number)[], what: string) =>
    invalidArgument(call, ['query', ...path], `${what} ${NO_URL_CARRIES}`, 'query.format');
  for (const [key, value] of Object.entries(query)) {
    if (LONE_SURROGATE.test(key)) throw refuse([key], 'is a key with');
    if (typeof value === 'string' && LONE_SURROGATE.test(value)) throw refuse([key], 'holds');
    if (!Array.isArray(value)) continue;
    for (const [i, item] of (value as readonly unknown[]).entries()) {
      if (typeof item === 'string' && LONE_SURROGATE.test(item)) throw refuse([key, i], 'holds');
    }
  }
}
