import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { CampaignTracker } from '../../campaigns/tracker.js';
import type { WebhookEnvelope } from '../../webhooks/schemas.js';
import type { TemplateStatusEventName } from '../../webhooks/template-status.js';
import type { DeliveryAttempt } from '../deliver.js';
import type {
  GatewaySimulator,
  GatewaySimulatorOptions,
  SentMessage,
  UpstreamFailure,
} from '../gateway-simulator.js';
import { PlatformSimulator } from '../platform/simulator.js';
import type { PlatformHandlersOptions } from '../platform/state.js';
import type { RegisteredTemplate, TemplateRegistry } from '../template-registry.js';
import { type Inbox, startInbox } from './inbox/server.js';
import { PLATFORM_PATH, type PlatformMount, STREAM_PATH } from './platform-mount.js';
import { BodyTooLarge, readBody, route, SANDBOX_MAX_BODY_BYTES, send } from './routes.js';
import { SandboxRuntime } from './runtime.js';

export type { DeliveryAttempt } from '../deliver.js';

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
  /**
   * How long a created template stays `PENDING` before its plan's outcome (`APPROVED` by default), in ms.
   * Default 500. Choose another outcome per template with `sandbox.templates.plan(name, plan)`.
   */
  templateApprovalMs?: number;
  /**
   * The conversation platform, served at `${url}/platform` (`platformUrl`) and `${url}/platform-stream`
   * (`streamUrl`) by the same `PlatformSimulator` as `createPlatformHandlers`; these are its options (users,
   * seeded conversations and messages...). Default: served, one user `agent@example.com` / `secret-password`.
   * `false` serves no platform.
   */
  platform?: false | Omit<PlatformHandlersOptions, 'platformUrl' | 'streamUrl' | 'catchAll'>;
  /** The inbox draws each campaign of this tracker as a funnel chart that updates live (see docs/campaigns.md). */
  campaigns?: CampaignTracker;
}

/** The platform a sandbox serves: what to give `PlatformClient`, and the simulator behind it. */
export interface SandboxPlatform {
  /** `platformUrl` for `PlatformClient`. */
  platformUrl: string;
  /** `streamUrl` for `PlatformClient`. */
  streamUrl: string;
  /** Its state (what was sent, archived, assigned...) and `failNext` faults. */
  simulator: PlatformSimulator;
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
  /**
   * Recipients whose accepted sends are reported `sent` then `failed` with this upstream error, every time
   * (unlike `nextFailure`, which fails one send): a test of a bulk send knows exactly which fail.
   */
  failRecipients: Map<string, UpstreamFailure>;
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
  /** The conversation platform served beside the gateway; absent with `platform: false`. */
  platform?: SandboxPlatform;
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
  /**
   * Moves a created template to `status` (`APPROVED`, `REJECTED` with `reason`, `PAUSED`...) now and delivers its
   * `message_template_status_update` webhook; resolves when the delivery is over. What tests drive the
   * lifecycle with, instead of waiting on `templateApprovalMs`.
   */
  setTemplateStatus(
    sourceId: string,
    status: TemplateStatusEventName,
    reason?: string | null,
  ): Promise<DeliveryAttempt[]>;
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
  const runtime = new SandboxRuntime(options);
  const { templates, simulator, faults, retryDelaysMs, listeners } = runtime;
  let inbox: Inbox | undefined;
  let platform: PlatformMount | undefined;
  const server = createServer((req, res) => {
    readBody(req)
      .then((body) => route(runtime, inbox, req, res, body, platform))
      .catch((error: unknown) => {
        if (res.headersSent) return;
        if (error instanceof BodyTooLarge)
          send(res, 413, { error: `the request body is larger than ${SANDBOX_MAX_BODY_BYTES} bytes` });
        else res.writeHead(500).end();
      });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host ?? '127.0.0.1';
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  const served =
    options.platform === false
      ? undefined
      : {
          platformUrl: `${url}${PLATFORM_PATH}`,
          streamUrl: `${url}${STREAM_PATH}`,
          simulator: new PlatformSimulator({
            ...options.platform,
            platformUrl: `${url}${PLATFORM_PATH}`,
            streamUrl: `${url}${STREAM_PATH}`,
          }),
        };
  if (served) platform = { simulator: served.simulator, base: url };

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
      runtime.createTemplate(answer);
      return answer;
    },
    setTemplateStatus: (sourceId, status, reason) =>
      runtime.setTemplateStatus(sourceId, status, reason ?? null),
    simulator,
    ...(served ? { platform: served } : {}),
    deliveries: runtime.deliveries,
    undelivered: runtime.unconfigured,
    injectMessage: (message) => runtime.injectMessage(message),
    deliver: (envelope, label) => runtime.track(runtime.deliver(envelope, label)),
    idle: () => runtime.idle(),
    async close() {
      await runtime.stop();
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
      ...(options.campaigns ? { campaigns: options.campaigns } : {}),
    });
    sandbox.inboxUrl = `${url}/`;
  }
  return sandbox;
}
