/**
 * Text from Redis or a server, made safe for a terminal: a control character (an escape sequence that would move
 * the cursor, recolour or retitle the terminal, a carriage return that hides what came before) is shown as its
 * `\uXXXX` code instead of being sent to the terminal. `keep` names the control characters let through: a CSV
 * field's line breaks, an error message's `\n`.
 *
 * @example
 * io.stdout(`paused: ${printable(hold.description)}\n`);
 */
export function printable(text: string, keep = ''): string {
  return text.replace(/\p{Cc}/gu, (c) =>
    keep.includes(c) ? c : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
