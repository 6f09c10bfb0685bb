/** The sandbox's HTTP side: its routes, how it reads a body (bounded) and how it answers. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { callObserver } from '../../core/observer.js';
import { decodedSegment, malformedPath } from '../path-segment.js';
import { shownUrl } from '../shown-url.js';
import { parseObject } from './inbox/feed.js';
import { refuseCrossSite, refuseForeignHost } from './inbox/http.js';
import { MAX_UPLOAD_BYTES } from './inbox/replies.js';
import type { Inbox } from './inbox/server.js';
import { prepareInjection } from './inject.js';
import { answerPlatform, isPlatformPath, type PlatformMount } from './platform-mount.js';
import type { SandboxRuntime } from './runtime.js';

/**
 * The largest request body the sandbox reads, in bytes. A gateway request is small (media travel by link,
 * `text.body` is at most 4,096 characters); the largest legal request is the inbox page's file upload: a file of
 * up to 16 MB (the spec's audio and video limit) in base64, inside its JSON. A larger body is refused with 413
 * (the spec names no answer or error code for it) after it has been read to its end and dropped, so the client
 * sees the answer and the sandbox keeps serving.
 */
export const SANDBOX_MAX_BODY_BYTES = Math.ceil(MAX_UPLOAD_BYTES / 3) * 4 + 64 * 1024;

export function route(
  sandbox: SandboxRuntime,
  inbox: Inbox | undefined,
  req: IncomingMessage,
  res: ServerResponse,
  body: string,
  platform?: PlatformMount,
): void {
  const { simulator, templates, options } = sandbox;
  const url = new URL(req.url ?? '/', 'http://sandbox');
  if (platform && isPlatformPath(url.pathname)) {
    // Reachable from a browser like the inbox (a login is a POST with the default password): same checks.
    const refused = refuseCrossSite(req, options.host ?? '127.0.0.1');
    if (refused) send(res, refused[0], { error: refused[1] });
    else
      void answerPlatform(platform, req, res, body).catch(() => {
        if (!res.headersSent) res.writeHead(500).end();
        else res.destroy();
      });
    return;
  }
  const authorization = req.headers.authorization ?? null;
  const gatewayRoute =
    url.pathname === '/v1/wa/message' ||
    url.pathname.startsWith('/v1/wa/media/') ||
    /^\/api\/v1\/wa\/[^/]+\/templates$/.test(url.pathname);
  const foreign = gatewayRoute ? refuseForeignHost(req, options.host ?? '127.0.0.1') : undefined;
  if (foreign) {
    send(res, foreign[0], { error: foreign[1] });
    return;
  }
  if (req.method === 'POST' && url.pathname === '/v1/wa/message') {
    const answer = simulator.send({
      authorization,
      contentType: req.headers['content-type'] ?? null,
      query: url.searchParams,
      body,
    });
    send(res, answer.status, answer.body, answer.headers);
    sandbox.emit({
      type: 'send',
      status: answer.status,
      body: answer.body,
      request: body,
      ...(answer.accepted ? { accepted: answer.accepted } : {}),
    });
    if (answer.accepted) sandbox.scheduleStatuses(answer.accepted);
    const error = (answer.body as { errors?: { code?: string; description?: string } }).errors;
    callObserver(options.onSend, [
      {
        status: answer.status,
        ...(answer.accepted ? { accepted: answer.accepted } : {}),
        ...(error ? { error: { code: String(error.code), description: String(error.description) } } : {}),
      },
    ]);
    return;
  }
  const template = /^\/api\/v1\/wa\/([^/]+)\/templates$/.exec(url.pathname);
  if (req.method === 'POST' && template) {
    const appId = decodedSegment(template[1]!);
    if (appId === undefined) {
      send(res, 400, malformedPath.template);
      return;
    }
    const answer = templates.create({ authorization, appId, body });
    send(res, answer.status, answer.body);
    sandbox.createTemplate(answer);
    return;
  }
  if (inbox?.handle(req, res, url, body)) return;
  const media = /^\/v1\/wa\/media\/([^/]+)$/.exec(url.pathname);
  if (req.method === 'GET' && media) {
    const mediaId = decodedSegment(media[1]!);
    if (mediaId === undefined) {
      send(res, 400, malformedPath.media);
      return;
    }
    const answer = simulator.media({
      authorization,
      mediaId,
      phoneNumberId: url.searchParams.get('phone_number_id'),
    });
    send(res, answer.status, answer.body, answer.headers);
    return;
  }
  if (url.pathname.startsWith('/__sandbox/')) {
    // Browser-reachable like the inbox, and it delivers authenticated webhooks: the inbox's checks apply.
    const refused = refuseCrossSite(req, sandbox.options.host ?? '127.0.0.1');
    if (refused) {
      send(res, refused[0], { error: refused[1] });
      return;
    }
  }
  if (req.method === 'POST' && url.pathname === '/__sandbox/inject') {
    answerInject(sandbox, url, body, res);
    return;
  }
  send(res, 404, {
    isSuccess: false,
    errors: { code: 'NOT_FOUND', group: 'NOT_FOUND', description: 'No such sandbox route.' },
  });
}

/**
 * `POST /__sandbox/inject`: a customer's message (or a whole envelope), its `id` and `timestamp` filled in when
 * missing; `400` naming every problem when no delivery could carry it. `202` at once with the ids; with `?wait`,
 * `200` once the delivery is over, with its attempts and the replies the app sent the customer meanwhile (what
 * `wa-gateway say` prints).
 */
function answerInject(sandbox: SandboxRuntime, url: URL, body: string, res: ServerResponse): void {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    send(res, 400, { error: 'body is not JSON' });
    return;
  }
  const injection = prepareInjection(parsed, sandbox.simulator.metadata());
  if (!injection.ok) {
    const error = `not a message the gateway could deliver: ${injection.problems.join('; ')}`;
    send(res, 400, { error, problems: injection.problems });
    return;
  }
  const ids = injection.messages.map((m) => m['id']);
  if (!url.searchParams.has('wait')) {
    void sandbox.inject(injection);
    send(res, 202, { accepted: true, ids });
    return;
  }
  const senders = new Set(injection.messages.map((m) => m['from']));
  const replies: InjectReply[] = [];
  const stop = sandbox.observe((event) => {
    if (event.type !== 'send') return;
    const request = parseObject(event.request);
    if (!senders.has(request['to'])) return;
    const error = (event.body as { errors?: { code?: unknown; description?: unknown } } | null)?.errors;
    replies.push({
      status: event.status,
      message: request,
      ...(event.accepted ? { wamid: event.accepted.wamid } : {}),
      ...(error ? { error: `${String(error.code)}: ${String(error.description)}` } : {}),
    });
  });
  sandbox.inject(injection).then(
    (attempts) => {
      stop();
      // Shown, not given: `wa-gateway say` prints it, and a receiver may take a token in the query.
      const { webhookUrl } = sandbox.options;
      send(res, 200, { ids, attempts, replies, webhookUrl: webhookUrl ? shownUrl(webhookUrl) : null });
    },
    () => {
      stop();
      if (!res.headersSent) send(res, 500, { error: 'the delivery failed' });
    },
  );
}

/** A send the app made to the customer while their message was being delivered. */
export interface InjectReply {
  status: number;
  /** The request body the app sent. */
  message: Record<string, unknown>;
  /** The wamid, when the sandbox accepted it. */
  wamid?: string;
  /** The gateway's code and description, when it refused it. */
  error?: string;
}

export function send(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  if (body instanceof Uint8Array) {
    res.writeHead(status, headers).end(body);
    return;
  }
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
}

export class BodyTooLarge extends Error {}

/** The body as text, or `BodyTooLarge` once it is over the limit: the rest is read and dropped, never kept. */
export function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= SANDBOX_MAX_BODY_BYTES) chunks.push(c);
      else chunks.length = 0;
    });
    req.on('end', () =>
      size > SANDBOX_MAX_BODY_BYTES
        ? reject(new BodyTooLarge())
        : resolve(Buffer.concat(chunks).toString('utf8')),
    );
    req.on('error', reject);
  });
}
