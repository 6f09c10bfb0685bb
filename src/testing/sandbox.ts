import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { messageEnvelope, templateStatusEnvelope } from '../webhooks/fixtures.js';
import type { WebhookEnvelope } from '../webhooks/schemas.js';
import { type DeliveryAttempt, deliverWebhook, GATEWAY_RETRY_DELAYS_MS } from './deliver.js';
import {
  GatewaySimulator,
  type GatewaySimulatorOptions,
  type SentMessage,
  type UpstreamFailure,
} from './gateway-simulator.js';
import { MAX_UPLOAD_BYTES } from './inbox/replies.js';
import { type Inbox, startInbox } from './inbox/server.js';
import { type RegisteredTemplate, TemplateRegistry } from './template-registry.js';

export type { DeliveryAttempt } from './deliver.js';

/**
 * The largest request body the sandbox reads, in bytes. A gateway request is small (media travel by link,
 * `text.body` is at most 4,096 characters); the largest legal request is the inbox page's file upload: a file of
 * up to 16 MB (the spec's audio and video limit) in base64, inside its JSON. A larger body is refused with 413
 * (the spec names no answer or error code for it) after it has been read to its end and dropped, so the client
 * sees the answer and the sandbox keeps serving.
 */
export const SANDBOX_MAX_BODY_BYTES = Math.ceil(MAX_UPLOAD_BYTES / 3) * 4 + 64 * 1024;

export interface SandboxOptions extends GatewaySimulatorOptions {
  /** Port to listen on; 0 (default) picks a free one. */
  port?: number;
  /** Default `127.0.0.1`: the sandbox is for this machine only. */
  host?: string;
  /** Your webhook endpoint. Without it, events are counted in `undelivered` and go nowhere. */
  webhookUrl?: string;
  /** Sent as `Authorization: Bearer <webhookSecret>`, as the gateway does. */
  webhookSecret?: string;
  /** After a send: when the sent, delivered and read events fire, in ms. Default `[100, 250, 450]`. */
  statusDelaysMs?: readonly [number, number, number];
  /** The gateway's delivery schedule: attempt 1 at once, 2 after 1 s, 3 after 2 s more. */
  retryDelaysMs?: readonly number[];
  /** How long the gateway waits for your 200. Default 5,000 ms, as documented. */
  ackTimeoutMs?: number;
  /** Called after every delivery attempt. */
  onDelivery?: (attempt: DeliveryAttempt) => void;
  /** Called after every `POST /v1/wa/message`, accepted or refused. */
  onSend?: (send: SandboxSend) => void;
  /**
   * Serve the web inbox and template preview at the sandbox's address (`/` and `/templates`). Default
   * `false` here; the `wa-gateway sandbox` command turns it on.
   */
  inbox?: boolean;
  /** Secret keys the public API's template create accepts. Default `['sk_org_sandbox']`. */
  secretKeys?: readonly string[];
  /** How long a created template stays `PENDING` before it is `APPROVED`, in ms. Default 500. */
  templateApprovalMs?: number;
}

/** One answered send: `accepted` when it went through, `error` (the gateway's code and description) when not. */
export interface SandboxSend {
  status: number;
  accepted?: SentMessage;
  error?: { code: string; description: string };
}

/** Faults the sandbox injects into what it delivers next: what the inbox's controls set. */
export interface SandboxFaults {
  /** The next accepted send is reported `sent` then `failed` with this upstream error, instead of delivered. */
  nextFailure: UpstreamFailure | null;
  /** `reversed` delivers each send's status events last first. */
  statusOrder: 'in-order' | 'reversed';
  /** Deliver every status event twice, as the gateway may. */
  duplicateStatuses: boolean;
}

/** What the sandbox did, as it happens: what the web inbox draws. */
export type SandboxEvent =
  | { type: 'send'; status: number; body: unknown; request: string; accepted?: SentMessage }
  | { type: 'status'; wamid: string; status: string; envelope: WebhookEnvelope }
  | { type: 'incoming'; message: Record<string, unknown> }
  | { type: 'event'; eventId: number; label: string; body: string; delivered: boolean }
  | { type: 'attempt'; attempt: DeliveryAttempt }
  | { type: 'template'; template: RegisteredTemplate };

export interface Sandbox {
  /** Base URL for `new GatewayClient({ baseUrl })`. */
  url: string;
  simulator: GatewaySimulator;
  /** Every delivery attempt so far, in order. */
  deliveries: DeliveryAttempt[];
  /** The address of the web inbox, when `inbox` is on. */
  inboxUrl?: string;
  /** Templates created through `PublicApiClient.templates.create` against `${url}/api/v1`. */
  templates: TemplateRegistry;
  /** Faults applied to what is delivered next; change them at any time. */
  faults: SandboxFaults;
  /** The webhook delivery schedule in use (ms before each attempt). */
  retryDelaysMs: readonly number[];
  /** Calls `listener` with everything the sandbox does from now on; returns the unsubscribe function. */
  observe(listener: (event: SandboxEvent) => void): () => void;
  /** A template create that skips the secret key check, as the inbox's preview page submits it. */
  submitTemplate(appId: string, body: string): ReturnType<TemplateRegistry['submit']>;
  /** Events produced while no `webhookUrl` was set. */
  undelivered: { eventId: number; label: string }[];
  /** Delivers an incoming message (a fixture message object or a whole envelope) to the webhook. */
  injectMessage(message: Record<string, unknown> | WebhookEnvelope): Promise<DeliveryAttempt[]>;
  /** Delivers any envelope to the webhook with the gateway's retry schedule. */
  deliver(envelope: WebhookEnvelope, label?: string): Promise<DeliveryAttempt[]>;
  /** Resolves when every scheduled event has been delivered, lost or dropped. */
  idle(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A local gateway on a real socket: the send and media endpoints with the gateway's order of checks and
 * error codes, and webhook delivery of sent → delivered (billable, deducting the fee) → read status events to
 * your endpoint with the gateway's delivery rules (attempts at once, +1 s, +2 s on connection errors and
 * 5xx; a 4xx is final). `is_fake` sends produce no status events, as on the real gateway.
 *
 * @example
 * const sandbox = await startSandbox({ webhookUrl: 'http://127.0.0.1:3000/webhooks', webhookSecret: secret });
 * const gw = new GatewayClient({ apiKey: 'sk_test_sandbox', baseUrl: sandbox.url });
 * await gw.messages.send({ to: '998901234567', type: 'text', text: { body: 'Hi' } });
 * await sandbox.idle(); // sent, delivered and read have reached your webhook
 * await sandbox.close();
 */
export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const templates = new TemplateRegistry(options.secretKeys ? { secretKeys: options.secretKeys } : {});
  const simulator = new GatewaySimulator({ templateRegistry: templates, ...options });
  const faults: SandboxFaults = { nextFailure: null, statusOrder: 'in-order', duplicateStatuses: false };
  const listeners = new Set<(event: SandboxEvent) => void>();
  const emit = (event: SandboxEvent) => {
    for (const listener of listeners) listener(event);
  };
  const retryDelaysMs = options.retryDelaysMs ?? GATEWAY_RETRY_DELAYS_MS;
  const deliveries: DeliveryAttempt[] = [];
  const pending = new Set<Promise<unknown>>();
  const timers = new Set<ReturnType<typeof setTimeout>>();
  const closing = new AbortController();
  const [sentDelay, deliveredDelay, readDelay] = options.statusDelaysMs ?? [100, 250, 450];
  const unconfigured: { eventId: number; label: string }[] = [];
  let eventCounter = 0;

  const track = <T>(p: Promise<T>): Promise<T> => {
    pending.add(p);
    void p.finally(() => pending.delete(p)).catch(() => {});
    return p;
  };
  const later = (ms: number, run: () => void) => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      run();
    }, ms);
    timers.add(timer);
  };

  async function deliver(envelope: WebhookEnvelope, label = labelOf(envelope)): Promise<DeliveryAttempt[]> {
    const eventId = ++eventCounter;
    const body = JSON.stringify(envelope);
    emit({ type: 'event', eventId, label, body, delivered: Boolean(options.webhookUrl) });
    if (!options.webhookUrl) {
      unconfigured.push({ eventId, label });
      return [];
    }
    return deliverWebhook(body, {
      url: options.webhookUrl,
      ...(options.webhookSecret ? { secret: options.webhookSecret } : {}),
      retryDelaysMs,
      ackTimeoutMs: options.ackTimeoutMs ?? 5000,
      eventId,
      label,
      signal: closing.signal,
      onAttempt: (attempt) => {
        deliveries.push(attempt);
        options.onDelivery?.(attempt);
        emit({ type: 'attempt', attempt });
      },
    });
  }

  function scheduleStatuses(message: SentMessage): void {
    const [sent, delivered, read] = simulator.statusEventsFor(message);
    if (!sent || !delivered || !read) return;
    const failure = faults.nextFailure;
    faults.nextFailure = null;
    const plan: [string, WebhookEnvelope][] = failure
      ? [
          ['sent', sent],
          ['failed', simulator.failedEventFor(message, failure)],
        ]
      : [
          ['sent', sent],
          ['delivered', delivered],
          ['read', read],
        ];
    if (faults.statusOrder === 'reversed') plan.reverse();
    const times = [sentDelay, deliveredDelay, readDelay];
    const copies = faults.duplicateStatuses ? 2 : 1;
    plan.forEach(([status, envelope], i) => {
      later(times[i]!, () => {
        if (status === 'delivered') simulator.chargeDelivery();
        emit({ type: 'status', wamid: message.wamid, status, envelope });
        for (let n = 0; n < copies; n++) void track(deliver(envelope, `status:${status}`));
      });
    });
  }

  function createTemplate(answer: ReturnType<TemplateRegistry['create']>): void {
    const created = answer.created;
    if (!created) return;
    emit({ type: 'template', template: created });
    later(options.templateApprovalMs ?? 500, () => {
      const approved = templates.approve(created.sourceId);
      if (!approved) return;
      emit({ type: 'template', template: approved });
      const update = templateStatusEnvelope({
        event: 'APPROVED',
        message_template_id: Number(approved.sourceId),
        message_template_name: approved.name,
        message_template_language: approved.language,
        reason: null,
      });
      void track(deliver(update, 'template:APPROVED'));
    });
  }

  let inbox: Inbox | undefined;
  const server = createServer((req, res) => {
    readBody(req)
      .then((body) => route(req, res, body))
      .catch((error: unknown) => {
        if (res.headersSent) return;
        if (error instanceof BodyTooLarge)
          send(res, 413, { error: `the request body is larger than ${SANDBOX_MAX_BODY_BYTES} bytes` });
        else res.writeHead(500).end();
      });
  });

  function route(req: IncomingMessage, res: ServerResponse, body: string): void {
    const url = new URL(req.url ?? '/', 'http://sandbox');
    const authorization = req.headers.authorization ?? null;
    if (req.method === 'POST' && url.pathname === '/v1/wa/message') {
      const answer = simulator.send({ authorization, query: url.searchParams, body });
      send(res, answer.status, answer.body, answer.headers);
      emit({
        type: 'send',
        status: answer.status,
        body: answer.body,
        request: body,
        ...(answer.accepted ? { accepted: answer.accepted } : {}),
      });
      if (answer.accepted) scheduleStatuses(answer.accepted);
      const error = (answer.body as { errors?: { code?: string; description?: string } }).errors;
      options.onSend?.({
        status: answer.status,
        ...(answer.accepted ? { accepted: answer.accepted } : {}),
        ...(error ? { error: { code: String(error.code), description: String(error.description) } } : {}),
      });
      return;
    }
    const template = /^\/api\/v1\/wa\/([^/]+)\/templates$/.exec(url.pathname);
    if (req.method === 'POST' && template) {
      const answer = templates.create({ authorization, appId: decodeURIComponent(template[1]!), body });
      send(res, answer.status, answer.body);
      createTemplate(answer);
      return;
    }
    if (inbox?.handle(req, res, url, body)) return;
    const media = /^\/v1\/wa\/media\/([^/]+)$/.exec(url.pathname);
    if (req.method === 'GET' && media) {
      const answer = simulator.media({
        authorization,
        mediaId: decodeURIComponent(media[1]!),
        phoneNumberId: url.searchParams.get('phone_number_id'),
      });
      send(res, answer.status, answer.body, answer.headers);
      return;
    }
    if (req.method === 'POST' && url.pathname === '/__sandbox/inject') {
      let parsed: unknown;
      try {
        parsed = JSON.parse(body);
      } catch {
        send(res, 400, { error: 'body is not JSON' });
        return;
      }
      void track(injectMessage(parsed as Record<string, unknown>));
      send(res, 202, { accepted: true });
      return;
    }
    send(res, 404, {
      isSuccess: false,
      errors: { code: 'NOT_FOUND', group: 'NOT_FOUND', description: 'No such sandbox route.' },
    });
  }

  function injectMessage(message: Record<string, unknown> | WebhookEnvelope): Promise<DeliveryAttempt[]> {
    const envelope = 'entry' in message ? (message as WebhookEnvelope) : messageEnvelope(message);
    for (const e of envelope.entry ?? [])
      for (const c of e.changes ?? []) {
        const messages = (c.value as { messages?: unknown }).messages;
        if (!Array.isArray(messages)) continue;
        for (const m of messages as Record<string, unknown>[]) {
          // A customer's message opens the 24-hour service window again.
          if (typeof m['from'] === 'string') simulator.closedWindows.delete(m['from']);
          emit({ type: 'incoming', message: m });
        }
      }
    return track(deliver(envelope));
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host ?? '127.0.0.1';
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;

  const sandbox: Sandbox = {
    url,
    templates,
    faults,
    retryDelaysMs,
    observe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    submitTemplate(appId, body) {
      const answer = templates.submit(appId, body);
      createTemplate(answer);
      return answer;
    },
    simulator,
    deliveries,
    undelivered: unconfigured,
    injectMessage,
    deliver: (envelope, label) => track(deliver(envelope, label)),
    async idle() {
      // Events schedule further events (a send schedules three), so wait until nothing is left.
      while (pending.size > 0 || timers.size > 0) {
        if (pending.size > 0) await Promise.allSettled([...pending]);
        else await new Promise((r) => setTimeout(r, 10));
      }
    },
    async close() {
      closing.abort();
      for (const t of timers) clearTimeout(t);
      timers.clear();
      await Promise.allSettled([...pending]);
      inbox?.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  if (options.inbox) {
    inbox = startInbox(sandbox, {
      host,
      port,
      ...(options.webhookUrl ? { webhookUrl: options.webhookUrl } : {}),
    });
    sandbox.inboxUrl = `${url}/`;
  }
  return sandbox;
}

function labelOf(envelope: WebhookEnvelope): string {
  const change = envelope.entry[0]?.changes[0];
  const value = change?.value as
    | { messages?: { type?: string }[]; statuses?: { status?: string }[] }
    | undefined;
  if (value?.messages?.[0]) return `message:${value.messages[0].type ?? 'unknown'}`;
  if (value?.statuses?.[0]) return `status:${value.statuses[0].status ?? 'unknown'}`;
  return change?.field ?? 'event';
}

function send(
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

class BodyTooLarge extends Error {}

/** The body as text, or `BodyTooLarge` once it is over the limit: the rest is read and dropped, never kept. */
function readBody(req: IncomingMessage): Promise<string> {
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
