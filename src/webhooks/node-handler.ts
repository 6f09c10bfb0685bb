/**
 * `createNodeWebhookHandler`: the adapter for node:http, Express and anything that hands over Node-style
 * `(req, res)`: the request's parts to the handler (`request-handler.ts`), its answer to `res`. The request and
 * response are typed structurally so this file imports nothing from Node: the webhooks entry stays free of `node:`
 * modules and runs unchanged on other runtimes. It never throws out of `(req, res)`, and always answers.
 */
import { resolveOptions, type WebhookHandlerOptions } from './handler-options.js';
import type { NodeRequestBody } from './read-body.js';
import { createRequestHandler, type HandlerAnswer } from './request-handler.js';

/**
 * The parts of `http.IncomingMessage` (or an Express `Request`) the handler uses. A body parser may have run first:
 * a `req.body` that is a Buffer or a string is used as the raw body, a parsed object as the envelope (the Bearer
 * check needs only the header).
 */
export interface NodeWebhookRequest extends NodeRequestBody {
  method?: string | undefined;
}

/** The parts of `http.ServerResponse` (or an Express `Response`) the handler uses. */
export interface NodeWebhookResponse {
  statusCode: number;
  setHeader(name: string, value: string): unknown;
  end(body?: string): unknown;
  headersSent?: boolean;
  writableEnded?: boolean;
}

function header(req: NodeWebhookRequest, name: string): string | undefined {
  const value = req.headers[name];
  if (typeof value === 'string') return value;
  // Repeated headers are ambiguous: refuse to choose.
  if (Array.isArray(value) && value.length === 1 && typeof value[0] === 'string') return value[0];
  return undefined;
}

function send(res: NodeWebhookResponse, result: HandlerAnswer): void {
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

const INTERNAL_ERROR: HandlerAnswer = {
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
  const handler = createRequestHandler(resolveOptions(options, 'createNodeWebhookHandler'));
  return async (req, res) => {
    let result: HandlerAnswer;
    try {
      result = await handler({
        method: typeof req.method === 'string' ? req.method : '',
        authorization: header(req, 'authorization'),
        signature: header(req, 'x-hub-signature-256'),
        body: { kind: 'node', request: req },
      });
    } catch {
      result = INTERNAL_ERROR;
    }
    send(res, result);
  };
}
