import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { messageEnvelope } from '../webhooks/fixtures.js';
import type { WebhookEnvelope } from '../webhooks/schemas.js';
import { type DeliveryAttempt, deliverWebhook, GATEWAY_RETRY_DELAYS_MS } from './deliver.js';
import { GatewaySimulator, type GatewaySimulatorOptions, type SentMessage } from './gateway-simulator.js';

export type { DeliveryAttempt } from './deliver.js';

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
}

/** One answered send: `accepted` when it went through, `error` (the gateway's code and description) when not. */
export interface SandboxSend {
  status: number;
  accepted?: SentMessage;
  error?: { code: string; description: string };
}

export interface Sandbox {
  /** Base URL for `new GatewayClient({ baseUrl })`. */
  url: string;
  simulator: GatewaySimulator;
  /** Every delivery attempt so far, in order. */
  deliveries: DeliveryAttempt[];
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
  const simulator = new GatewaySimulator(options);
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
    if (!options.webhookUrl) {
      unconfigured.push({ eventId, label });
      return [];
    }
    return deliverWebhook(JSON.stringify(envelope), {
      url: options.webhookUrl,
      ...(options.webhookSecret ? { secret: options.webhookSecret } : {}),
      retryDelaysMs: options.retryDelaysMs ?? GATEWAY_RETRY_DELAYS_MS,
      ackTimeoutMs: options.ackTimeoutMs ?? 5000,
      eventId,
      label,
      signal: closing.signal,
      onAttempt: (attempt) => {
        deliveries.push(attempt);
        options.onDelivery?.(attempt);
      },
    });
  }

  function scheduleStatuses(message: SentMessage): void {
    const [sent, delivered, read] = simulator.statusEventsFor(message);
    if (!sent || !delivered || !read) return;
    later(sentDelay, () => void track(deliver(sent, 'status:sent')));
    later(deliveredDelay, () => {
      simulator.chargeDelivery();
      void track(deliver(delivered, 'status:delivered'));
    });
    later(readDelay, () => void track(deliver(read, 'status:read')));
  }

  const server = createServer((req, res) => {
    readBody(req)
      .then((body) => route(req, res, body))
      .catch(() => {
        if (!res.headersSent) res.writeHead(500).end();
      });
  });

  function route(req: IncomingMessage, res: ServerResponse, body: string): void {
    const url = new URL(req.url ?? '/', 'http://sandbox');
    const authorization = req.headers.authorization ?? null;
    if (req.method === 'POST' && url.pathname === '/v1/wa/message') {
      const answer = simulator.send({ authorization, query: url.searchParams, body });
      send(res, answer.status, answer.body, answer.headers);
      if (answer.accepted) scheduleStatuses(answer.accepted);
      const error = (answer.body as { errors?: { code?: string; description?: string } }).errors;
      options.onSend?.({
        status: answer.status,
        ...(answer.accepted ? { accepted: answer.accepted } : {}),
        ...(error ? { error: { code: String(error.code), description: String(error.description) } } : {}),
      });
      return;
    }
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
    return track(deliver(envelope));
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host ?? '127.0.0.1';

  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
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
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
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

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
