/**
 * A body's bytes from the forms a caller or a framework hands over, and from the chunks a stream gives. Portable
 * (no `node:`): the webhooks entry uses them on Workers and in browsers.
 */

const encoder = new TextEncoder();

/**
 * The bytes of `body` given as text (UTF-8), a `Uint8Array`, an `ArrayBuffer` or another view (a Node `Buffer`,
 * a `DataView`); `undefined` for anything else. Views share their memory: nothing is copied. An `ArrayBuffer` is
 * recognised by its tag too, since `instanceof` fails across realms (vm contexts, some Worker runtimes).
 */
export function bytesOf(body: unknown): Uint8Array | undefined {
  if (body instanceof Uint8Array) return body;
  if (typeof body === 'string') return encoder.encode(body);
  if (ArrayBuffer.isView(body)) return new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
  if (body instanceof ArrayBuffer || Object.prototype.toString.call(body) === '[object ArrayBuffer]')
    return new Uint8Array(body as ArrayBuffer);
  return undefined;
}

/** The chunks of a body read in pieces, as one array (the one chunk itself when there is one). */
export function concat(chunks: readonly Uint8Array[], total: number): Uint8Array {
  if (chunks.length === 1) return chunks[0]!;
  const out = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}
