/**
 * The one definition of "an http(s) URL" for values the SDK sends on (media links, document URLs, header
 * media): written out as `http://` or `https://` followed by a host, with no whitespace anywhere, and readable
 * by the WHATWG URL parser with a non-empty host. Both halves matter: the parser alone accepts `http:/x.com`
 * and `http:\\x.com` (it repairs them; the servers receive the text as written), the pattern alone accepts a
 * port of 99999 or a host with `|` or `^`. Zod-free, so the portable entries can use it.
 */

const WRITTEN_OUT = /^https?:\/\/[^\s/$.?#]/i;

/**
 * Whether `value` is an http(s) URL as defined above.
 *
 * @example
 * isHttpUrl('https://files.example.com/invoice.pdf'); // true
 * isHttpUrl('http:/files.example.com'); // false: one slash
 */
export function isHttpUrl(value: string): boolean {
  if (!WRITTEN_OUT.test(value) || /\s/.test(value)) return false;
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}
