import type { IncomingMessage, ServerResponse } from 'node:http';
import type { z } from 'zod';
import type { WebhookEnvelope } from '../../../webhooks/schemas.js';
import type { TemplateLifecyclePlan } from '../../template-registry.js';
import type { Sandbox } from '../types.js';
import { loadInboxAssets } from './assets.js';
import type { CampaignSource } from './campaigns.js';
import { type InboxFeed, parseJson, startFeed } from './feed.js';
import { answer, PAGES, refuseCrossSite, SECURITY_HEADERS, serveAsset } from './http.js';
import {
  ControlsRequestSchema,
  RedeliverRequestSchema,
  ReplyRequestSchema,
  SubmitTemplateRequestSchema,
  TemplateStatusRequestSchema,
} from './protocol.js';
import { INLINE_IMAGE, MAX_UPLOAD_BYTES, reply, type Uploads } from './replies.js';

/** The web inbox mounted on a sandbox: `handle` answers its routes and leaves the rest to the sandbox. */
export interface Inbox {
  handle(req: IncomingMessage, res: ServerResponse, url: URL, body: string): boolean;
  close(): void;
}

/**
 * Mounts the web inbox on a sandbox: it watches everything the sandbox does, keeps conversations and the
 * webhook log, streams changes to open pages as server-sent events, and turns the page's buttons into
 * incoming webhooks and faults.
 */
export function startInbox(
  sandbox: Sandbox,
  options: { host: string; port: number; webhookUrl?: string; campaigns?: CampaignSource },
): Inbox {
  // Not awaited: run from source the page is bundled on first use, and the gateway must not wait for it.
  const assets = loadInboxAssets();
  assets.catch(() => {});
  const feed = startFeed(sandbox, options.webhookUrl, options.campaigns);
  const uploads: Uploads = new Map();

  return {
    handle(req, res, url, body) {
      const path = url.pathname;
      const ours = path in PAGES || path.startsWith('/inbox/') || path === '/favicon.ico';
      if (!ours) return false;
      if (path === '/favicon.ico') {
        res.writeHead(204, SECURITY_HEADERS).end();
        return true;
      }
      const refused = refuseCrossSite(req, options.host);
      if (refused) {
        answer(res, refused[0], { error: refused[1] });
        return true;
      }
      if (req.method === 'GET') {
        const html = PAGES[path];
        if (html !== undefined) {
          res.writeHead(200, { ...SECURITY_HEADERS, 'content-type': 'text/html; charset=utf-8' }).end(html);
        } else if (path === '/inbox/events') {
          feed.stream(req, res);
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
      const parsed = parseJson(body);
      if (parsed === undefined) answer(res, 400, { error: 'body is not JSON' });
      else answer(res, ...post({ sandbox, feed, uploads }, path, parsed));
      return true;
    },
    close() {
      feed.close();
    },
  };
}

/** What the inbox's routes act on. */
interface InboxContext {
  sandbox: Sandbox;
  feed: InboxFeed;
  uploads: Uploads;
}

function setControls({ sandbox, feed }: InboxContext, request: z.infer<typeof ControlsRequestSchema>): void {
  const { faults, simulator } = sandbox;
  if (request.nextFailure !== undefined) faults.nextFailure = request.nextFailure;
  if (request.statusOrder) faults.statusOrder = request.statusOrder;
  if (request.duplicateStatuses !== undefined) faults.duplicateStatuses = request.duplicateStatuses;
  if (request.balance !== undefined) simulator.balance = request.balance ?? Number.POSITIVE_INFINITY;
  if (request.ratePerSecond !== undefined) simulator.options.ratePerSecond = request.ratePerSecond;
  if (request.window) {
    if (request.window.open) simulator.openWindow(request.window.peer);
    else simulator.closedWindows.add(request.window.peer);
  }
  feed.broadcast({ kind: 'controls', controls: feed.controls() });
}

/** The page's actions: status and body of the answer. */
function post(context: InboxContext, path: string, body: unknown): [number, unknown] {
  const { sandbox, feed, uploads } = context;
  if (path === '/inbox/api/reply') {
    const request = ReplyRequestSchema.safeParse(body);
    if (!request.success) return [400, { error: issueText(request.error) }];
    const r = request.data;
    if (r.kind === 'media' && Buffer.byteLength(r.data, 'base64') > MAX_UPLOAD_BYTES)
      return [413, { error: 'the file is larger than 16 MB' }];
    return [202, { id: reply(sandbox, uploads, r) }];
  }
  if (path === '/inbox/api/controls') {
    const request = ControlsRequestSchema.safeParse(body);
    if (!request.success) return [400, { error: issueText(request.error) }];
    setControls(context, request.data);
    return [200, feed.controls()];
  }
  if (path === '/inbox/api/redeliver') {
    const request = RedeliverRequestSchema.safeParse(body);
    const entry = request.success ? feed.log.get(request.data.eventId) : undefined;
    if (!entry) return [404, { error: 'no such event' }];
    void sandbox.deliver(JSON.parse(entry.body) as WebhookEnvelope, entry.label);
    return [202, { redelivering: entry.eventId }];
  }
  if (path === '/inbox/api/templates') {
    const request = SubmitTemplateRequestSchema.safeParse(body);
    if (!request.success) return [400, { error: issueText(request.error) }];
    const { appId, template, plan } = request.data;
    if (plan) planTemplate(sandbox, template, plan);
    const result = sandbox.submitTemplate(appId, template);
    return [result.status, result.body];
  }
  if (path === '/inbox/api/template-status') {
    const request = TemplateStatusRequestSchema.safeParse(body);
    if (!request.success) return [400, { error: issueText(request.error) }];
    const { sourceId, status, reason } = request.data;
    if (!sandbox.templates.templates.some((t) => t.sourceId === sourceId))
      return [404, { error: 'no such template' }];
    void sandbox.setTemplateStatus(sourceId, status, reason ?? null);
    return [202, { sourceId, status }];
  }
  return [404, { error: 'no such inbox route' }];
}

/** The plan chosen on the template page, for the name and language of the JSON about to be submitted. */
function planTemplate(sandbox: Sandbox, json: string, plan: TemplateLifecyclePlan): void {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    return; // the submit answers the parse error
  }
  const { name, language } = (parsed ?? {}) as { name?: unknown; language?: unknown };
  if (typeof name === 'string' && typeof language === 'string') sandbox.templates.plan(name, plan, language);
}

function issueText(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; ');
}
