/**
 * Text measures shared by the platform's message items and the template rules. Zod-free: the portable entries
 * (templates) import it too.
 */

/**
 * Length in Unicode code points: an emoji is one character, a lone surrogate is one too. This is what the
 * platform (a Python service, whose `len()` counts code points) and Meta's template limits count. Linear, no
 * allocation.
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
