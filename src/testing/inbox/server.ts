import { createHash, randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { z } from 'zod';
import {
  audioMessage,
  buttonReplyMessage,
  documentMessage,
  fixtureId,
  imageMessage,
  listReplyMessage,
  locationMessage,
  reactionMessage,
  textMessage,
} from '../../webhooks/fixtures.js';
import type { WebhookEnvelope } from '../../webhooks/schemas.js';
import type { Sandbox, SandboxEvent } from '../sandbox.js';
import type { RegisteredTemplate } from '../template-registry.js';
import { type Asset, loadInboxAssets } from './assets.js';
import {
  ControlsRequestSchema,
  type InboxControls,
  type InboxMessage,
  type InboxTemplate,
  type LogEvent,
  RedeliverRequestSchema,
  type ReplyRequest,
  ReplyRequestSchema,
  type StreamEvent,
  SubmitTemplateRequestSchema,
} from './protocol.js';

/** The web inbox mounted on a sandbox: `handle` answers its routes and leaves the rest to the sandbox. */
export interface Inbox {
  handle(req: IncomingMessage, res: ServerResponse, url: URL, body: string): boolean;
  close(): void;
}

/**
 * Nothing the page shows is trusted: message texts, links and file names come from the app under test and
 * from whoever posts to the sandbox. The page builds its DOM with textContent only, and this policy makes
 * that a rule the browser enforces: no inline script, no eval, no string-to-HTML sink (Trusted Types), no
 * request anywhere but here.
 */
export const INBOX_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "require-trusted-types-for 'script'",
  "trusted-types 'none'",
].join('; ');

const SECURITY_HEADERS = {
  'content-security-policy': INBOX_CSP,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cache-control': 'no-store',
};

const page = (title: string, script: string) =>
  `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<link rel="stylesheet" href="/inbox/inbox.css">
<script type="module" src="/inbox/${script}"></script>
</head>
<body>
<noscript>The sandbox inbox needs JavaScript.</noscript>
</body>
</html>
`;

const PAGES: Readonly<Record<string, string>> = {
  '/': page('Sandbox inbox · wa-gateway', 'inbox.js'),
  '/templates': page('Template preview · wa-gateway', 'preview.js'),
};

const RANK: Readonly<Record<string, number>> = { sent: 1, delivered: 2, read: 3, failed: 4 };
/** Media the page may show inline: the types the spec allows for images, served as exactly that type. */
const INLINE_IMAGE = new Set(['image/jpeg', 'image/png']);
const MAX_UPLOAD_BYTES = 16 * 1024 * 1024;

/**
 * Mounts the web inbox on a sandbox: it watches everything the sandbox does, keeps conversations and the
 * webhook log, streams changes to open pages as server-sent events, and turns the page's buttons into
 * incoming webhooks and faults.
 */
export function startInbox(
  sandbox: Sandbox,
  options: { host: string; port: number; webhookUrl?: string },
): Inbox {
  // Not awaited: run from source the page is bundled on first use, and the gateway must not wait for it.
  const assets = loadInboxAssets();
  assets.catch(() => {});
  const messages = new Map<string, InboxMessage>();
  const log = new Map<number, LogEvent>();
  const uploads = new Map<string, { contentType: string; bytes: Buffer }>();
  const clients = new Set<ServerResponse>();
  let refused = 0;

  const broadcast = (event: StreamEvent) => {
    const frame = `data: ${JSON.stringify(event)}\n\n`;
    for (const client of clients) client.write(frame);
  };
  const upsert = (message: InboxMessage) => {
    messages.set(message.id, message);
    broadcast({ kind: 'message', message });
  };

  const controls = (): InboxControls => ({
    nextFailure: sandbox.faults.nextFailure
      ? { code: sandbox.faults.nextFailure.code, title: sandbox.faults.nextFailure.title }
      : null,
    statusOrder: sandbox.faults.statusOrder,
    duplicateStatuses: sandbox.faults.duplicateStatuses,
    balance: Number.isFinite(sandbox.simulator.balance) ? sandbox.simulator.balance : null,
    ratePerSecond: sandbox.simulator.options.ratePerSecond,
    closedWindows: [...sandbox.simulator.closedWindows],
    retryDelaysMs: sandbox.retryDelaysMs,
    webhookUrl: options.webhookUrl ?? null,
  });

  const onEvent = (event: SandboxEvent) => {
    switch (event.type) {
      case 'send': {
        if (event.accepted) {
          const m = event.accepted;
          upsert({
            id: m.wamid,
            direction: 'out',
            peer: m.to,
            at: m.acceptedAt,
            payload: m.body,
            ...(m.isFake ? { status: 'fake' } : {}),
            statusArrivals: [],
          });
        } else {
          const payload = parseObject(event.request);
          const errors = (event.body as { errors?: { code?: unknown; description?: unknown } }).errors;
          upsert({
            id: `refused-${++refused}`,
            direction: 'out',
            peer: typeof payload['to'] === 'string' ? payload['to'] : '(no recipient)',
            at: Date.now(),
            payload,
            status: 'refused',
            statusArrivals: [],
            error: `${event.status} ${String(errors?.code)}: ${String(errors?.description)}`,
          });
        }
        // A send moves the balance and the rate window: keep the controls honest.
        broadcast({ kind: 'controls', controls: controls() });
        break;
      }
      case 'status': {
        const m = messages.get(event.wamid);
        if (!m) break;
        m.statusArrivals.push(event.status);
        if ((RANK[event.status] ?? 0) > (RANK[m.status ?? ''] ?? 0)) m.status = event.status;
        if (event.status === 'failed') m.error = upstreamError(event.envelope);
        upsert(m);
        if (event.status === 'delivered') broadcast({ kind: 'controls', controls: controls() });
        break;
      }
      case 'incoming': {
        const m = event.message;
        const id = typeof m['id'] === 'string' ? m['id'] : fixtureId('wamid.IN');
        upsert({
          id,
          direction: 'in',
          peer: String(m['from']),
          at: Date.now(),
          payload: m,
          statusArrivals: [],
        });
        broadcast({ kind: 'controls', controls: controls() });
        break;
      }
      case 'event': {
        const entry: LogEvent = {
          eventId: event.eventId,
          label: event.label,
          body: event.body,
          at: Date.now(),
          delivered: event.delivered,
          attempts: [],
        };
        log.set(entry.eventId, entry);
        broadcast({ kind: 'log', event: entry });
        break;
      }
      case 'attempt': {
        const entry = log.get(event.attempt.eventId);
        if (!entry) break;
        entry.attempts.push(event.attempt);
        broadcast({ kind: 'log', event: entry });
        break;
      }
      case 'template':
        broadcast({ kind: 'template', template: toInboxTemplate(event.template) });
        break;
    }
  };
  const unsubscribe = sandbox.observe(onEvent);

  const allowedHost = (header: string | undefined) => {
    if (!header) return false;
    const hostname = header.replace(/:\d+$/, '').replace(/^\[|\]$/g, '');
    return (
      hostname === 'localhost' ||
      hostname === '::1' ||
      /^127\.\d+\.\d+\.\d+$/.test(hostname) ||
      hostname === options.host
    );
  };

  function answer(res: ServerResponse, status: number, body: unknown): void {
    res
      .writeHead(status, { ...SECURITY_HEADERS, 'content-type': 'application/json' })
      .end(JSON.stringify(body));
  }

  function serveAsset(res: ServerResponse, asset: Asset): void {
    res.writeHead(200, { ...SECURITY_HEADERS, 'content-type': asset.contentType }).end(asset.body);
  }

  function stream(req: IncomingMessage, res: ServerResponse): void {
    res.writeHead(200, { ...SECURITY_HEADERS, 'content-type': 'text/event-stream; charset=utf-8' });
    const snapshot: StreamEvent = {
      kind: 'snapshot',
      messages: [...messages.values()],
      log: [...log.values()],
      templates: sandbox.templates.templates.map(toInboxTemplate),
      controls: controls(),
      gatewayUrl: sandbox.url,
    };
    res.write(`data: ${JSON.stringify(snapshot)}\n\n`);
    clients.add(res);
    req.on('close', () => clients.delete(res));
  }

  function reply(request: ReplyRequest): string {
    const id = fixtureId('wamid.SBXIN');
    const base = { from: request.from, id, timestamp: String(Math.floor(Date.now() / 1000)) };
    let message: Record<string, unknown>;
    switch (request.kind) {
      case 'text':
        message = textMessage({ ...base, text: { body: request.text } });
        break;
      case 'button':
        message = buttonReplyMessage({ id: request.id, title: request.title }, base);
        break;
      case 'list':
        message = listReplyMessage(
          {
            id: request.id,
            title: request.title,
            ...(request.description === undefined ? {} : { description: request.description }),
          },
          base,
        );
        if (request.description === undefined)
          delete (message['interactive'] as { list_reply: { description?: string } }).list_reply.description;
        break;
      case 'reaction':
        message = reactionMessage({ message_id: request.messageId, emoji: request.emoji }, base);
        break;
      case 'location': {
        const { latitude, longitude, name, address } = request;
        message = locationMessage({
          ...base,
          location: {
            latitude,
            longitude,
            ...(name ? { name } : {}),
            ...(address ? { address } : {}),
          },
        });
        break;
      }
      case 'media':
        message = mediaMessage(request, base);
        break;
    }
    void sandbox.injectMessage(message);
    return id;
  }

  function mediaMessage(
    request: Extract<ReplyRequest, { kind: 'media' }>,
    base: { from: string; id: string; timestamp: string },
  ): Record<string, unknown> {
    const bytes = Buffer.from(request.data, 'base64');
    const mediaId = `sbxmedia${randomBytes(8).toString('hex')}`;
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    sandbox.simulator.addMedia(mediaId, { contentType: request.mimeType, body: new Uint8Array(bytes) });
    uploads.set(mediaId, { contentType: request.mimeType, bytes });
    const caption = request.caption ? { caption: request.caption } : {};
    if (INLINE_IMAGE.has(request.mimeType))
      return imageMessage({
        ...base,
        image: { id: mediaId, mime_type: request.mimeType, sha256, ...caption },
      });
    if (request.mimeType.startsWith('audio/'))
      return audioMessage({
        ...base,
        audio: { id: mediaId, mime_type: request.mimeType, sha256, voice: false },
      });
    return documentMessage({
      ...base,
      document: { id: mediaId, filename: request.filename, mime_type: request.mimeType, sha256, ...caption },
    });
  }

  function setControls(request: z.infer<typeof ControlsRequestSchema>): void {
    const { faults, simulator } = sandbox;
    if (request.nextFailure !== undefined) faults.nextFailure = request.nextFailure;
    if (request.statusOrder) faults.statusOrder = request.statusOrder;
    if (request.duplicateStatuses !== undefined) faults.duplicateStatuses = request.duplicateStatuses;
    if (request.balance !== undefined) simulator.balance = request.balance ?? Number.POSITIVE_INFINITY;
    if (request.ratePerSecond !== undefined) simulator.options.ratePerSecond = request.ratePerSecond;
    if (request.window) {
      if (request.window.open) simulator.closedWindows.delete(request.window.peer);
      else simulator.closedWindows.add(request.window.peer);
    }
    broadcast({ kind: 'controls', controls: controls() });
  }

  /** The page's actions: status and body of the answer. */
  function post(path: string, body: unknown): [number, unknown] {
    if (path === '/inbox/api/reply') {
      const request = ReplyRequestSchema.safeParse(body);
      if (!request.success) return [400, { error: issueText(request.error) }];
      const r = request.data;
      if (r.kind === 'media' && Buffer.byteLength(r.data, 'base64') > MAX_UPLOAD_BYTES)
        return [413, { error: 'the file is larger than 16 MB' }];
      return [202, { id: reply(r) }];
    }
    if (path === '/inbox/api/controls') {
      const request = ControlsRequestSchema.safeParse(body);
      if (!request.success) return [400, { error: issueText(request.error) }];
      setControls(request.data);
      return [200, controls()];
    }
    if (path === '/inbox/api/redeliver') {
      const request = RedeliverRequestSchema.safeParse(body);
      const entry = request.success ? log.get(request.data.eventId) : undefined;
      if (!entry) return [404, { error: 'no such event' }];
      void sandbox.deliver(JSON.parse(entry.body) as WebhookEnvelope, entry.label);
      return [202, { redelivering: entry.eventId }];
    }
    if (path === '/inbox/api/templates') {
      const request = SubmitTemplateRequestSchema.safeParse(body);
      if (!request.success) return [400, { error: issueText(request.error) }];
      const result = sandbox.submitTemplate(request.data.appId, request.data.template);
      return [result.status, result.body];
    }
    return [404, { error: 'no such inbox route' }];
  }

  return {
    handle(req, res, url, body) {
      const path = url.pathname;
      const ours = path in PAGES || path.startsWith('/inbox/') || path === '/favicon.ico';
      if (!ours) return false;
      if (path === '/favicon.ico') {
        res.writeHead(204, SECURITY_HEADERS).end();
        return true;
      }
      // A page on another site can make this browser send requests here, and a rebinding DNS name can make
      // them same-origin: answer only requests addressed to this machine's own name, from our own pages.
      if (!allowedHost(req.headers.host)) {
        answer(res, 421, { error: 'the inbox answers only at its loopback address' });
        return true;
      }
      if (req.method === 'GET') {
        const html = PAGES[path];
        if (html !== undefined) {
          res.writeHead(200, { ...SECURITY_HEADERS, 'content-type': 'text/html; charset=utf-8' }).end(html);
        } else if (path === '/inbox/events') {
          stream(req, res);
        } else if (path.startsWith('/inbox/media/')) {
          const upload = uploads.get(decodeURIComponent(path.slice('/inbox/media/'.length)));
          if (upload && INLINE_IMAGE.has(upload.contentType)) {
            res.writeHead(200, { ...SECURITY_HEADERS, 'content-type': upload.contentType }).end(upload.bytes);
          } else answer(res, 404, { error: 'no such image' });
        } else {
          assets.then(
            (files) => {
              const asset = files.get(path.slice('/inbox/'.length));
              if (asset) serveAsset(res, asset);
              else answer(res, 404, { error: 'no such file' });
            },
            (error: unknown) => answer(res, 500, { error: (error as Error).message }),
          );
        }
        return true;
      }
      if (req.method !== 'POST') {
        answer(res, 405, { error: 'method not allowed' });
        return true;
      }
      const origin = req.headers.origin;
      if (origin !== undefined && origin !== `http://${req.headers.host}`) {
        answer(res, 403, { error: 'cross-origin requests are refused' });
        return true;
      }
      // A form on another site cannot send application/json without a preflight this server never grants.
      if (!req.headers['content-type']?.startsWith('application/json')) {
        answer(res, 415, { error: 'send application/json' });
        return true;
      }
      const parsed = parseJson(body);
      if (parsed === undefined) answer(res, 400, { error: 'body is not JSON' });
      else answer(res, ...post(path, parsed));
      return true;
    },
    close() {
      unsubscribe();
      for (const client of clients) client.end();
      clients.clear();
    },
  };
}

function toInboxTemplate(t: RegisteredTemplate): InboxTemplate {
  return {
    sourceId: t.sourceId,
    name: t.name,
    language: t.language,
    category: t.category,
    status: t.status,
    request: t.request as unknown as Record<string, unknown>,
  };
}

function upstreamError(envelope: WebhookEnvelope): string | undefined {
  const value = envelope.entry[0]?.changes[0]?.value as
    | { statuses?: { errors?: { code?: number; title?: string }[] }[] }
    | undefined;
  const error = value?.statuses?.[0]?.errors?.[0];
  return error ? `${error.code}: ${error.title}` : undefined;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function parseObject(text: string): Record<string, unknown> {
  const value = parseJson(text);
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

function issueText(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; ');
}
