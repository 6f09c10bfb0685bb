/**
 * The file name of a `Content-Disposition` header (RFC 6266), as `media.download` reports it: `filename*` (an RFC
 * 8187 extended value: a charset, an optional language, percent-encoded bytes) before `filename` (a token or a
 * quoted string), and never anything a caller could take for a path.
 */

/** The longest header read: a file name has no use for more. */
const MAX_HEADER_LENGTH = 2048;

/**
 * A parameter's raw text is kept only when it is visible ASCII (spaces and tabs allowed): fetch hands a header's
 * bytes over as Latin-1, so a raw UTF-8 name arrives re-decoded (`naÃ¯ve.pdf`), and the RFC 8187 form, which is
 * ASCII, is the one to read. See core/headers.ts.
 */
const VISIBLE_ASCII = /^[\t\x20-\x7e]*$/;

/** RFC 8187 `ext-value`: charset `'` [language] `'` value-chars. The language is read and dropped. */
const EXT_VALUE = /^([A-Za-z0-9!#$%&+^_`{}~-]+)'(?:[A-Za-z0-9-]*)'(.*)$/;

/**
 * Well-formed value-chars: every `%` starts an escape of two hex digits; other characters are taken as they are,
 * any visible ASCII but `"`, `'`, `;` and `\` (more than RFC 8187's attr-char, as browsers accept).
 */
const VALUE_CHARS = /^(?:%[0-9A-Fa-f]{2}|[\x21\x23\x24\x26\x28-\x3a\x3c-\x5b\x5d-\x7e])*$/;

/**
 * Control characters (C0, DEL, C1) and the invisible marks that reorder or hide text (bidi embeddings, overrides
 * and isolates, the directional marks): RFC 6266 §4.3 asks recipients to strip what causes confusion in names, and
 * `invoice\u202Efdp.exe` displays as `invoiceexe.pdf`.
 */
const CONFUSING = /[\p{Cc}\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu;

/**
 * The file name `header` gives, or `undefined`. Follows RFC 6266: `filename*` wins over `filename` when it can be
 * decoded (charset `UTF-8` or `ISO-8859-1`, any language tag, percent-decoding; a quoted or malformed one is
 * ignored and `filename` used instead); a quoted `filename` is unescaped and never percent-decoded. The result is
 * the name's last path segment (RFC 6266 §4.3: never a `/` or `\`), without control or bidi characters, and
 * never empty, `.` or `..`.
 *
 * @example
 * dispositionFilename(`attachment; filename="EURO rates"; filename*=utf-8''%e2%82%ac%20rates`); // '€ rates'
 */
export function dispositionFilename(header: string | null | undefined): string | undefined {
  if (!header || header.length > MAX_HEADER_LENGTH) return undefined;
  const params = parameters(header);
  const extended = params.get('filename*');
  const decoded = extended?.quoted === false ? extValue(extended.value) : undefined;
  const name = decoded ?? params.get('filename')?.value;
  return name === undefined ? undefined : safeName(name);
}

interface Parameter {
  value: string;
  /** Given as a quoted string (an `ext-value` may not be). */
  quoted: boolean;
}

/**
 * The header's parameters by lower-cased name, the first of each name kept; the disposition type before them is
 * skipped. A `;` inside a quoted string does not end it. A parameter that is not visible ASCII is left out.
 */
function parameters(header: string): Map<string, Parameter> {
  const out = new Map<string, Parameter>();
  let i = header.indexOf(';');
  while (i !== -1 && i < header.length) {
    i++;
    const eq = header.indexOf('=', i);
    const semi = header.indexOf(';', i);
    if (eq === -1 || (semi !== -1 && semi < eq)) {
      i = semi;
      continue;
    }
    const name = header.slice(i, eq).trim().toLowerCase();
    let j = eq + 1;
    while (header[j] === ' ' || header[j] === '\t') j++;
    let value: string;
    let quoted = false;
    if (header[j] === '"') {
      const end = closingQuote(header, j + 1);
      // An unterminated quoted string leaves nothing after it that can be trusted.
      if (end === -1) break;
      value = header.slice(j + 1, end).replace(/\\(.)/g, '$1');
      quoted = true;
      i = header.indexOf(';', end + 1);
    } else {
      const stop = header.indexOf(';', j);
      value = header.slice(j, stop === -1 ? undefined : stop).trim();
      i = stop;
    }
    if (name !== '' && !out.has(name) && VISIBLE_ASCII.test(value)) out.set(name, { value, quoted });
  }
  return out;
}

/** The index of the `"` that closes a quoted string opened before `from`, skipping `\`-escaped characters. */
function closingQuote(text: string, from: number): number {
  for (let k = from; k < text.length; k++) {
    if (text[k] === '\\') k++;
    else if (text[k] === '"') return k;
  }
  return -1;
}

/** An RFC 8187 `ext-value` decoded, or `undefined` when its form, charset or bytes are not ones it can be. */
function extValue(text: string): string | undefined {
  const match = EXT_VALUE.exec(text);
  if (!match || !VALUE_CHARS.test(match[2]!)) return undefined;
  const charset = match[1]!.toLowerCase();
  const bytes = percentDecoded(match[2]!);
  if (charset === 'utf-8') {
    try {
      return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
    } catch {
      return undefined;
    }
  }
  // Byte for character: TextDecoder's 'iso-8859-1' is windows-1252, which reads 0x80-0x9F otherwise.
  if (charset === 'iso-8859-1') return String.fromCharCode(...bytes);
  return undefined;
}

function percentDecoded(text: string): Uint8Array {
  const bytes: number[] = [];
  for (let k = 0; k < text.length; k++) {
    if (text[k] === '%') {
      bytes.push(Number.parseInt(text.slice(k + 1, k + 3), 16));
      k += 2;
    } else bytes.push(text.charCodeAt(k));
  }
  return Uint8Array.from(bytes);
}

/** The last path segment of `name`, without confusing characters; `undefined` when nothing usable is left. */
function safeName(name: string): string | undefined {
  const last = name.split(/[/\\]/).pop() ?? '';
  const clean = last.replace(CONFUSING, '').trim();
  return clean === '' || clean === '.' || clean === '..' ? undefined : clean;
}
