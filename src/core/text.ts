/**
 * Text measures shared by the platform's message items and the template rules. Zod-free: the portable entries
 * (templates) import it too.
 */

/**
 * Length in Unicode code points: an emoji is one character, a lone surrogate is one too, a combining mark is one
 * of its own (`'e\u0301'` is 2). The one unit of every character limit of both specs, in every checker of the SDK
 * (outbound messages, their fast path, platform items, template rules) and in every message that names a length.
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
