import { printable } from './printable.js';

/**
 * One CSV field (RFC 4180): quoted when it holds a comma, a quote or a line break. Other control characters (an
 * escape sequence in a recipient or a gateway's description) are written as their `\uXXXX` code, as `printable`
 * does: the CSV often goes to a terminal first, and no spreadsheet needs them. A text a spreadsheet would run
 * as a formula (it starts with `=`, `+`, `-`, `@`, a tab or a carriage return) gets a leading `'`, since fields
 * such as a failure's description come from outside (OWASP's CSV injection). A number or a phone number
 * (`+15551234567`, `-3`) is left as it is, so a list of recipients can be fed back to a campaign.
 *
 * @example
 * csvField('=HYPERLINK("http://x")'); // "'=HYPERLINK(""http://x"")"
 */
export function csvField(value: string | number | boolean | undefined): string {
  let text = value === undefined ? '' : printable(String(value), '\t\r\n');
  if (/^[=+\-@\t\r]/.test(text) && !/^[+-]?\d[\d ().-]*$/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}
