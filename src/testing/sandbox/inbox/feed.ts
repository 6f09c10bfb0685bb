/**
 * What the inbox knows (conversations, the webhook log, the controls) and the open pages it streams each change
 * to as server-sent events.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { WebhookEnvelope } from '../../../webhooks/schemas.js';
import type { RegisteredTemplate } from '../../template-registry.js';
import { fixtureId } from '../../webhook-fixtures.js';
import type { Sandbox, SandboxEvent } from '../types.js';
import { type CampaignSource, watchCampaigns } from './campaigns.js';
import { SECURITY_HEADERS } from './http.js';
import type { InboxControls, InboxMessage, InboxTemplate, LogEvent, StreamEvent } from './protocol.js';

/** What a sandbox event changes in the inbox. */
interface FeedCore {
  sandbox: Sandbox;
  messages: Map<string, InboxMessage>;
  log: Map<number, LogEvent>;
  upsert(message: InboxMessage): void;
  broadcast(event: StreamEvent): void;
  /** Tells open pages the controls changed (a send moves the balance and the rate window). */
  controlsChanged(): void;
  /** Numbers a refused send. */
  nextRefused(): number;
}

/** The inbox's state and its event stream. */
export interface InboxFeed {
  messages: Map<string, InboxMessage>;
  log: Map<number, LogEvent>;
  broadcast(event: StreamEvent): void;
  controls(): InboxControls;
  /** Opens a page's event stream: a snapshot, then every change. */
  stream(req: IncomingMessage, res: ServerResponse): void;
  close(): void;
}

const RANK: Readonly<Record<string, number>> = { sent: 1, delivered: 2, read: 3, failed: 4 };

/** Watches everything the sandbox does and keeps what the inbox page shows. */
export function startFeed(
  sandbox: Sandbox,
  webhookUrl: string | undefined,
  campaigns?: CampaignSource,
): InboxFeed {
  const messages = new Map<string, InboxMessage>();
  const log = new Map<number, LogEvent>();
  const clients = new Set<ServerResponse>();
  let refused = 0;

  const broadcast = (event: StreamEvent) => {
    const frame = `data: ${JSON.stringify(event)}\n\n`;
    for (const client of clients) client.write(frame);
  };
  const controls = (): InboxControls => controlsOf(sandbox, webhookUrl);
  const core: FeedCore = {
    sandbox,
    messages,
    log,
    upsert: (message) => {
      messages.set(message.id, message);
      broadcast({ kind: 'message', message });
    },
    broadcast,
    controlsChanged: () => broadcast({ kind: 'controls', controls: controls() }),
    nextRefused: () => ++refused,
  };
  const unsubscribe = sandbox.observe((event) => onEvent(core, event));
  const funnels = campaigns ? watchCampaigns(campaigns, sandbox, broadcast) : undefined;

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
    const latest = funnels?.latest();
    if (latest) res.write(`data: ${JSON.stringify({ kind: 'campaigns', campaigns: latest })}\n\n`);
    clients.add(res);
    req.on('close', () => clients.delete(res));
  }

  return {
    messages,
    log,
    broadcast,
    controls,
    stream,
    close() {
      unsubscribe();
      funnels?.close();
      for (const client of clients) client.end();
      clients.clear();
    },
  };
}

function controlsOf(sandbox: Sandbox, webhookUrl: string | undefined): InboxControls {
  return {
    nextFailure: sandbox.faults.nextFailure
      ? { code: sandbox.faults.nextFailure.code, title: sandbox.faults.nextFailure.title }
      : null,
    statusOrder: sandbox.faults.statusOrder,
    duplicateStatuses: sandbox.faults.duplicateStatuses,
    balance: Number.isFinite(sandbox.simulator.balance) ? sandbox.simulator.balance : null,
    ratePerSecond: sandbox.simulator.options.ratePerSecond,
    // With `serviceWindow: 'enforced'`, a recipient the app wrote to whose window is not open shows as closed too.
    closedWindows: [
      ...new Set([
        ...sandbox.simulator.closedWindows,
        ...sandbox.simulator.sent.map((s) => s.to).filter((to) => !sandbox.simulator.windowOpen(to)),
      ]),
    ],
    retryDelaysMs: sandbox.retryDelaysMs,
    webhookUrl: webhookUrl ?? null,
  };
}

function onEvent(feed: FeedCore, event: SandboxEvent): void {
  switch (event.type) {
    case 'send': {
      feed.upsert(sentMessage(event, event.accepted ? 0 : feed.nextRefused()));
      // A send moves the balance and the rate window: keep the controls honest.
      feed.controlsChanged();
      break;
    }
    case 'status': {
      const m = feed.messages.get(event.wamid);
      if (!m) break;
      m.statusArrivals.push(event.status);
      if ((RANK[event.status] ?? 0) > (RANK[m.status ?? ''] ?? 0)) m.status = event.status;
      if (event.status === 'failed') m.error = upstreamError(event.envelope);
      feed.upsert(m);
      if (event.status === 'delivered') feed.controlsChanged();
      break;
    }
    case 'incoming': {
      const m = event.message;
      const id = typeof m['id'] === 'string' ? m['id'] : fixtureId('wamid.IN');
      feed.upsert({
        id,
        direction: 'in',
        peer: String(m['from']),
        at: Date.now(),
        payload: m,
        statusArrivals: [],
      });
      feed.controlsChanged();
      break;
    }
    default:
      onLogEvent(feed, event);
  }
}

function onLogEvent(feed: FeedCore, event: SandboxEvent): void {
  switch (event.type) {
    case 'event': {
      const entry: LogEvent = {
        eventId: event.eventId,
        label: event.label,
        body: event.body,
        at: Date.now(),
        delivered: event.delivered,
        attempts: [],
      };
      feed.log.set(entry.eventId, entry);
      feed.broadcast({ kind: 'log', event: entry });
      break;
    }
    case 'attempt': {
      const entry = feed.log.get(event.attempt.eventId);
      if (!entry) break;
      entry.attempts.push(event.attempt);
      feed.broadcast({ kind: 'log', event: entry });
      break;
    }
    case 'template':
      feed.broadcast({ kind: 'template', template: toInboxTemplate(event.template) });
      break;
  }
}

/** The conversation entry for a send: the accepted message, or the request the gateway refused. */
function sentMessage(event: Extract<SandboxEvent, { type: 'send' }>, refusedCount: number): InboxMessage {
  if (event.accepted) {
    const m = event.accepted;
    return {
      id: m.wamid,
      direction: 'out',
      peer: m.to,
      at: m.acceptedAt,
      payload: m.body,
      ...(m.isFake ? { status: 'fake' } : {}),
      statusArrivals: [],
    };
  } else {
    const payload = parseObject(event.request);
    const errors = (event.body as { errors?: { code?: unknown; description?: unknown } }).errors;
    return {
      id: `refused-${refusedCount}`,
      direction: 'out',
      peer: typeof payload['to'] === 'string' ? payload['to'] : '(no recipient)',
      at: Date.now(),
      payload,
      status: 'refused',
      statusArrivals: [],
      error: `${event.status} ${String(errors?.code)}: ${String(errors?.description)}`,
    };
  }
}

function toInboxTemplate(t: RegisteredTemplate): InboxTemplate {
  return {
    sourceId: t.sourceId,
    name: t.name,
    language: t.language,
    category: t.category,
    status: t.status,
    reason: t.reason,
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

export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

/** The JSON object `text` holds, or `{}` for anything else. */
export function parseObject(text: string): Record<string, unknown> {
  const value = parseJson(text);
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}
