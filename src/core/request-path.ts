/**
 * The one rule for a path a client sends its credential to: the public API's `request()` checks the caller's path
 * by it, and a path built from a caller's id (`templates.create`'s application id, `media.download`'s media id) puts
 * the id in as one segment by it (`idSegment`, through `pathSegment`).
 */

import { invalidArgument, requireText } from './errors.js';

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

/**
 * The id argument `name` of `call` as one segment of its path, or the argument error of every client's rule (a
 * `MessageValidationError`): rule `<name>.required` when it is missing, empty or not a string (`requireText`), rule
 * `<name>.format` when the path cannot carry it as one segment (`pathSegment`). `give` says what to pass.
 *
 * @example
 * const segment = idSegment('media.download', 'mediaId', mediaId, 'the image.id, audio.id, ... of an incoming message');
 * // '..' throws: Invalid media.download argument: mediaId: is "..", which a URL would resolve ...
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
        : 'holds a lone surrogate (text no URL can carry)'
    }: give ${give}`,
    `${name}.format`,
  );
}
