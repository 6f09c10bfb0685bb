/**
 * The rules over strings the SDK sends on, each written once: how long a text is (code points) and what an
 * http(s) URL is. Shared by the gateway's messages, the platform's message items and the template rules.
 * Zod-free: the portable entries (templates) import it too.
 */

/**
 * Length in Unicode code points: an emoji is one character, a lone surrogate is one too, a combining mark is one
 * of its own (`'e\u0301'` is 2). The one unit of every character limit of both specs, in every checker of the SDK
 * (outbound messages, platform items, template rules) and in every message that names a length.
 *
 * Why code points (the specs say "characters" without a unit):
 * - the platform is a Python service, and Python's `len()` counts code points;
 * - the gateway forwards to WhatsApp (Meta), whose reference says a reply button title is "Maximum length of 20
 *   characters" with "Emojis are supported" (WhatsApp-Nodejs-SDK, ButtonObject); connectors that truncate to
 *   Meta's limits cut by code points: nyaruka/courier#1126 ("rune-safe" truncation to 20 / 24 / 72), PHP
 *   integrations by `mb_strlen`. None counts UTF-16 code units (an emoji as 2) or graphemes (a flag as 1).
 * - Of the candidate units, code points never refuse what the upstream takes by UTF-16 counting, and a text that
 *   passes by code points is never cut mid-character by the upstream.
 *
 * Linear, no allocation.
 *
 * @example
 * charCount('héllo 😀'); // 7 ('héllo 😀'.length is 8)
 */
export function charCount(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length - 1; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n--;
        i++;
      }
    }
  }
  return n;
}

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
