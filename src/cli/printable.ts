/**
 * Text from Redis or a server, made safe for a terminal: a control character (an escape sequence that would move
 * the cursor, recolour or retitle the terminal, a carriage return that hides what came before) is shown as its
 * `\uXXXX` code instead of being sent to the terminal.
 *
 * @example
 * io.stdout(`paused: ${printable(hold.description)}\n`);
 */
export function printable(text: string): string {
  return text.replace(/\p{Cc}/gu, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
