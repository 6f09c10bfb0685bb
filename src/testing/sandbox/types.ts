/**
 * What `startSandbox` takes (`SandboxOptions` and its parts) and what it returns (the `Sandbox` handle and the
 * events it reports): the contract the sandbox's server, its runtime and its web inbox share.
 */

import type { CampaignQueueView } from '../../campaigns/queue-status.js';
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
import type { PlatformSimulator } from '../platform/simulator.js';
import type { PlatformHandlersOptions } from '../platform/state.js';
import type { RegisteredTemplate, TemplateRegistry } from '../template-registry.js';

export interface SandboxOptions extends GatewaySimulatorOptions {
  /** Port to listen on; 0 (default) picks a free one. */
  port?: number | undefined;
  /** Default `127.0.0.1`: the sandbox is for this machine only. */
  host?: string | undefined;
  /** Your webhook endpoint. Without it, events are counted in `undelivered` and go nowhere. */
  webhookUrl?: string | undefined;
  /** Sent as `Authorization: Bearer <webhookSecret>`, as the gateway does. */
  webhookSecret?: string | undefined;
  /** After a send: when the sent, delivered and read events fire, in ms. Default `[100, 250, 450]`. */
  statusDelaysMs?: readonly [number, number, number] | undefined;
  /** The gateway's delivery schedule: attempt 1 at once, 2 after 1 s, 3 after 2 s more. */
  retryDelaysMs?: readonly number[] | undefined;
  /** How long the gateway waits for your 200. Default 5,000 ms, as documented. */
  ackTimeoutMs?: number | undefined;
  /**
   * Webhook deliveries in flight at once (each attempt holds one while it waits for your answer); the others wait
   * their turn in the sandbox. Default 64: a burst of a bulk send's statuses does not open thousands of
   * connections to your endpoint at once. `Infinity`: no bound.
   */
  maxDeliveriesInFlight?: number | undefined;
  /** Called after every delivery attempt. */
  onDelivery?: ((attempt: DeliveryAttempt) => void) | undefined;
  /** Called after every `POST /v1/wa/message`, accepted or refused. */
  onSend?: ((send: SandboxSend) => void) | undefined;
  /**
   * Serve the web inbox and template preview at the sandbox's address (`/` and `/templates`). Default
   * `false` here; the `wa-gateway sandbox` command turns it on.
   */
  inbox?: boolean | undefined;
  /** Secret keys the public API's template create accepts. Default `['sk_org_sandbox']`. */
  secretKeys?: readonly string[] | undefined;
  /**
   * How long a created template stays `PENDING` before its plan's outcome (`APPROVED` by default), in ms.
   * Default 500. Choose another outcome per template with `sandbox.templates.plan(name, plan)`.
   */
  templateApprovalMs?: number | undefined;
  /**
   * The conversation platform, served at `${url}/platform` (`platformUrl`) and `${url}/platform-stream`
   * (`streamUrl`) by the same `PlatformSimulator` as `createPlatformHandlers`; these are its options (users,
   * seeded conversations and messages...). Default: served, one user `agent@example.com` / `secret-password`.
   * `false` serves no platform.
   */
  platform?: false | Omit<PlatformHandlersOptions, 'platformUrl' | 'streamUrl' | 'catchAll'> | undefined;
  /**
   * The inbox draws each campaign of this tracker as a funnel chart that updates live (see docs/campaigns.md); given
   * a `CampaignQueue` (`wa-gateway-sdk/redis`), each campaign's queue too: its state and why it is paused, queued,
   * in flight, in doubt (docs/campaigns-at-scale.md).
   */
  campaigns?: CampaignTracker | CampaignQueueView | undefined;
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
  /**
   * Holds every status event from now on, as for a recipient whose phone is offline, until the function it returns
   * is called: the held events are then delivered (and shown) in the order they fell due, and its promise resolves
   * once the sandbox is idle. What a test needs to see the app, or the inbox, before and after a status arrives
   * without racing the timers.
   *
   * @example
   * const release = sandbox.holdStatuses();
   * const { messageId } = await gw.messages.send(message);
   * await sandbox.idle(); // sent, delivered and read are due, and held
   * await release(); // now delivered
   */
  holdStatuses(): () => Promise<void>;
  /** Delivers any envelope to the webhook with the gateway's retry schedule. */
  deliver(envelope: WebhookEnvelope, label?: string): Promise<DeliveryAttempt[]>;
  /** Resolves when every scheduled event has been delivered, lost or dropped. */
  idle(): Promise<void>;
  close(): Promise<void>;
}
