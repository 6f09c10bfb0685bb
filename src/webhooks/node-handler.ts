/**
 * `createNodeWebhookHandler`: the webhook handler for node:http, Express and anything that hands over Node-style
 * `(req, res)`. The request and response are typed structurally so this file imports nothing from Node: the
 * webhooks entry stays free of `node:` modules and runs unchanged on other runtimes.
 *
 * It reads the raw body itself, and copes with a body parser that ran first: a `req.body` that is a Buffer or a
 * string is used as the raw body; a parsed object is used as the envelope (the Bearer check needs only the
 * header). It never waits on a stream that was already consumed, never throws out of `(req, res)`, and always
 * answers.
 */

import { bytesOf } from './decode-body.js';
import { resolveOptions, type WebhookHandlerOptions } from './handler-options.js';
import {
  type BodyResult,
  type CoreRequest,
  type CoreResponse,
  concat,
  createWebhookCore,
} from './request-handler.js';

/** The parts of `http.IncomingMessage` (or an Express `Request`) the handler uses. */
export interface NodeWebhookRequest {
  method?: string | undefined;
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

/** The parts of `http.ServerResponse` (or an Express `Response`) the handler uses. */
export interface NodeWebhookResponse {
  statusCode: number;
  setHeader(name: string, value: string): unknown;
  end(body?: string): unknown;
  headersSent?: boolean;
  writableEnded?: boolean;
}

const encoder = new TextEncoder();

function chunkBytes(chunk: unknown): Uint8Array {
  return bytesOf(chunk) ?? new Uint8Array(0);
}

function readWithEvents(
  req: NodeWebhookRequest & Required<Pick<NodeWebhookRequest, 'on'>>,
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
    const onError = (): void => finish({ kind: 'unavailable', reason: 'the request stream failed' });
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
    return { kind: 'unavailable', reason: 'the request stream failed' };
  }
  return { kind: 'bytes', bytes: concat(chunks, total) };
}

function readStream(req: NodeWebhookRequest, maxBytes: number): Promise<BodyResult> | null {
  if (typeof req.on === 'function') {
    return readWithEvents(req as NodeWebhookRequest & Required<Pick<NodeWebhookRequest, 'on'>>, maxBytes);
  }
  const iterator = req[Symbol.asyncIterator];
  if (typeof iterator === 'function') {
    return readWithIterator({ [Symbol.asyncIterator]: () => iterator.call(req) }, maxBytes);
  }
  return null;
}

/** The body, from a body parser's `req.body` when one ran, else from the stream. */
async function readNodeBody(req: NodeWebhookRequest, maxBytes: number): Promise<BodyResult> {
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

function header(req: NodeWebhookRequest, name: string): string | undefined {
  const value = req.headers[name];
  if (typeof value === 'string') return value;
  // Repeated headers are ambiguous: refuse to choose.
  if (Array.isArray(value) && value.length === 1 && typeof value[0] === 'string') return value[0];
  return undefined;
}

function send(res: NodeWebhookResponse, result: CoreResponse): void {
  try {
    if (res.headersSent === true || res.writableEnded === true) {
      if (res.writableEnded !== true) res.end();
      return;
    }
    res.statusCode = result.status;
    for (const [name, value] of Object.entries(result.headers)) res.setHeader(name, value);
    res.end(result.body);
  } catch {
    // The client went away or the response object is broken: nothing left to tell anyone.
  }
}

const INTERNAL_ERROR: CoreResponse = {
  status: 500,
  body: '{"ok":false,"error":"internal_error"}',
  headers: { 'content-type': 'application/json', 'cache-control': 'no-store' },
};

/**
 * Creates a webhook handler for node:http, Express (4 and 5) and other `(req, res)` servers, with the same options
 * and status codes as `createWebhookHandler`. Mount it on its own route; it works with or without a global
 * `express.json()` (only `upstreamAppSecret` needs the raw bytes: mount before any body parser for that). It always
 * answers and never calls `next`; the returned promise never rejects.
 *
 * Throws `ConfigurationError` at creation for a missing or malformed secret, a missing `onEvent`, or a deadline
 * not below 5 seconds.
 *
 * @example
 * app.post('/webhooks/whatsapp', createNodeWebhookHandler({
 *   secret: process.env.WEBHOOK_SECRET!,
 *   onEvent: async (event) => { if (event.kind === 'status') tracker.update(event); },
 * }));
 */
export function createNodeWebhookHandler(
  options: WebhookHandlerOptions,
): (req: NodeWebhookRequest, res: NodeWebhookResponse, next?: (error?: unknown) => void) => Promise<void> {
  const core = createWebhookCore(resolveOptions(options, 'createNodeWebhookHandler'));
  return async (req, res) => {
    let result: CoreResponse;
    try {
      const request: CoreRequest = {
        method: typeof req.method === 'string' ? req.method : '',
        header: (name) => header(req, name),
        readBody: (maxBytes) => readNodeBody(req, maxBytes),
      };
      result = await core(request);
    } catch {
      result = INTERNAL_ERROR;
    }
    send(res, result);
  };
}
