/**
 * The delivery's body, read whole under `maxBodyBytes` before anything parses it: from a Fetch `Request`
 * (`createWebhookHandler`) or from a Node request (`createNodeWebhookHandler`), which a body parser may have read
 * first. It never waits on a stream that was already consumed, and says why when there is no body to have.
 */
import { bytesOf, concat } from './bytes.js';

/** @internal The body as it was read, or why it could not be. */
export type BodyResult =
  | { kind: 'bytes'; bytes: Uint8Array }
  | { kind: 'text'; text: string }
  | { kind: 'parsed'; value: object }
  | { kind: 'too_large' }
  | { kind: 'unavailable'; reason: string };

/** Both readers' answer when the request stream errors (one object: the Worker bundle is held to a size). */
const STREAM_FAILED: BodyResult = { kind: 'unavailable', reason: 'the request stream failed' };

/** @internal Where a delivery's body is read from: what each adapter hands over. */
export type BodySource = { kind: 'fetch'; request: Request } | { kind: 'node'; request: NodeRequestBody };

/** @internal The body of `source`, whole, or `too_large` past `maxBytes`, or why it is unavailable. */
export function readBody(source: BodySource, maxBytes: number): Promise<BodyResult> {
  return source.kind === 'fetch'
    ? readFetchBody(source.request, maxBytes)
    : readNodeBody(source.request, maxBytes);
}

/** The parts of `http.IncomingMessage` (or an Express `Request`) a body is read from. */
export interface NodeRequestBody {
  headers: Readonly<Record<string, string | readonly string[] | undefined>>;
  /** Set by a body parser that ran before the handler (`express.json()`, `express.raw()`, `express.text()`). */
  body?: unknown;
  /** `true` once the body stream was read to its end (by a body parser, typically). */
  readableEnded?: boolean;
  on?(event: 'data' | 'end' | 'error' | 'close', listener: (arg: unknown) => void): unknown;
  removeListener?(event: 'data' | 'end' | 'error' | 'close', listener: (arg: unknown) => void): unknown;
  resume?(): unknown;
  [Symbol.asyncIterator]?(): AsyncIterator<unknown>;
}

async function readFetchBody(request: Request, maxBytes: number): Promise<BodyResult> {
  const declared = request.headers.get('content-length');
  if (declared !== null && Number(declared) > maxBytes) return { kind: 'too_large' };
  if (request.bodyUsed) {
    return {
      kind: 'unavailable',
      reason:
        'the Request body was already read: pass the Request (or `request.clone()`) to the handler first',
    };
  }
  if (request.body === null) return { kind: 'bytes', bytes: new Uint8Array(0) };
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      return { kind: 'too_large' };
    }
    chunks.push(value);
  }
  return { kind: 'bytes', bytes: concat(chunks, total) };
}

const encoder = new TextEncoder();

function chunkBytes(chunk: unknown): Uint8Array {
  return bytesOf(chunk) ?? new Uint8Array(0);
}

function readWithEvents(
  req: NodeRequestBody & Required<Pick<NodeRequestBody, 'on'>>,
  maxBytes: number,
): Promise<BodyResult> {
  return new Promise((resolve) => {
    const chunks: Uint8Array[] = [];
    let total = 0;
    let settled = false;
    const finish = (result: BodyResult): void => {
      if (settled) return;
      settled = true;
      req.removeListener?.('data', onData);
      req.removeListener?.('end', onEnd);
      req.removeListener?.('error', onError);
      req.removeListener?.('close', onClose);
      resolve(result);
    };
    const onData = (chunk: unknown): void => {
      const bytes = chunkBytes(chunk);
      total += bytes.byteLength;
      // Stop collecting at the cap; the rest of the stream is left to Node to discard.
      if (total > maxBytes) finish({ kind: 'too_large' });
      else chunks.push(bytes);
    };
    const onEnd = (): void => finish({ kind: 'bytes', bytes: concat(chunks, total) });
    const onError = (): void => finish(STREAM_FAILED);
    const onClose = (): void =>
      finish({ kind: 'unavailable', reason: 'the connection closed before the body was complete' });
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
    // A stream paused by earlier middleware would otherwise never emit 'end'.
    req.resume?.();
  });
}

async function readWithIterator(iterable: AsyncIterable<unknown>, maxBytes: number): Promise<BodyResult> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for await (const chunk of iterable) {
      const bytes = chunkBytes(chunk);
      total += bytes.byteLength;
      if (total > maxBytes) return { kind: 'too_large' };
      chunks.push(bytes);
    }
  } catch {
    return STREAM_FAILED;
  }
  return { kind: 'bytes', bytes: concat(chunks, total) };
}

function readStream(req: NodeRequestBody, maxBytes: number): Promise<BodyResult> | null {
  if (typeof req.on === 'function') {
    return readWithEvents(req as NodeRequestBody & Required<Pick<NodeRequestBody, 'on'>>, maxBytes);
  }
  const iterator = req[Symbol.asyncIterator];
  if (typeof iterator === 'function') {
    return readWithIterator({ [Symbol.asyncIterator]: () => iterator.call(req) }, maxBytes);
  }
  return null;
}

/** The body, from a body parser's `req.body` when one ran, else from the stream. */
async function readNodeBody(req: NodeRequestBody, maxBytes: number): Promise<BodyResult> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) return { kind: 'too_large' };
  const consumed = req.readableEnded === true;
  const preParsed = req.body;
  if (preParsed !== undefined && preParsed !== null) {
    if (typeof preParsed === 'string') {
      return encoder.encode(preParsed).byteLength > maxBytes
        ? { kind: 'too_large' }
        : { kind: 'text', text: preParsed };
    }
    if (
      preParsed instanceof Uint8Array ||
      ArrayBuffer.isView(preParsed) ||
      preParsed instanceof ArrayBuffer
    ) {
      const bytes = chunkBytes(preParsed);
      return bytes.byteLength > maxBytes ? { kind: 'too_large' } : { kind: 'bytes', bytes };
    }
    if (typeof preParsed === 'object') {
      if (consumed) return { kind: 'parsed', value: preParsed };
      // An unread stream beside a `req.body` object: some parsers set `{}` before deciding the content type is
      // not theirs. The stream holds the real body; an empty stream means the object is all there is.
      const streamed = await readStream(req, maxBytes);
      if (streamed === null) return { kind: 'parsed', value: preParsed };
      if (streamed.kind === 'bytes' && streamed.bytes.byteLength === 0)
        return { kind: 'parsed', value: preParsed };
      return streamed;
    }
  }
  if (consumed) {
    return {
      kind: 'unavailable',
      reason:
        'the request stream was already read and req.body is not set (mount the handler before the middleware ' +
        'that reads the body, or set req.body to the raw bytes)',
    };
  }
  return (
    (await readStream(req, maxBytes)) ?? {
      kind: 'unavailable',
      reason: 'the request has no readable body stream',
    }
  );
}
