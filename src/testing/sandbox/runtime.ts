/** The sandbox's moving parts: the simulator, the schedule of status events, and webhook delivery. */
import { setMaxListeners } from 'node:events';
import { ConfigurationError } from '../../core/errors.js';
import { callObserver } from '../../core/observer.js';
import { Slots } from '../../core/slots.js';
import type { WebhookEnvelope } from '../../webhooks/schemas.js';
import type { TemplateStatusEventName } from '../../webhooks/template-status.js';
import { type DeliveryAttempt, deliverWebhook, GATEWAY_RETRY_DELAYS_MS } from '../deliver.js';
import { GatewaySimulator, type SentMessage } from '../gateway-simulator.js';
import { TemplateRegistry } from '../template-registry.js';
import { templateStatusEnvelope } from '../webhook-fixtures.js';
import { type Injection, prepareInjection } from './inject.js';
import type { SandboxEvent, SandboxFaults, SandboxOptions } from './types.js';

/** @internal What `startSandbox` runs; its members back the `Sandbox` it returns. */
export class SandboxRuntime {
  readonly templates: TemplateRegistry;
  readonly simulator: GatewaySimulator;
  readonly faults: SandboxFaults = {
    nextFailure: null,
    statusOrder: 'in-order',
    duplicateStatuses: false,
    failRecipients: new Map(),
  };
  readonly listeners = new Set<(event: SandboxEvent) => void>();
  readonly retryDelaysMs: readonly number[];
  readonly deliveries: DeliveryAttempt[] = [];
  readonly pending = new Set<Promise<unknown>>();
  readonly timers = new Set<ReturnType<typeof setTimeout>>();
  readonly closing = new AbortController();
  readonly unconfigured: { eventId: number; label: string }[] = [];
  readonly #statusDelaysMs: readonly number[];
  readonly #connections: Slots;
  #eventCounter = 0;
  /** Status events due while held (`holdStatuses`), in the order they fell due; `undefined` when not holding. */
  #held: (() => void)[] | undefined;

  constructor(readonly options: SandboxOptions) {
    // Every delivery in flight listens on it: a burst of a bulk send's statuses is hundreds, not a leak.
    setMaxListeners(0, this.closing.signal);
    this.templates = new TemplateRegistry(options.secretKeys ? { secretKeys: options.secretKeys } : {});
    this.simulator = new GatewaySimulator({
      ...options,
      templateRegistry: options.templateRegistry ?? this.templates,
    });
    this.retryDelaysMs = options.retryDelaysMs ?? GATEWAY_RETRY_DELAYS_MS;
    this.#statusDelaysMs = options.statusDelaysMs ?? [100, 250, 450];
    const inFlight = options.maxDeliveriesInFlight ?? 64;
    if (inFlight !== Number.POSITIVE_INFINITY && (!Number.isInteger(inFlight) || inFlight < 1)) {
      throw new ConfigurationError(
        `startSandbox: \`maxDeliveriesInFlight\` must be a whole number of 1 or more (or Infinity: no bound); got ${String(inFlight)}.`,
      );
    }
    this.#connections = new Slots(inFlight);
  }

  /** Calls `listener` with everything the sandbox does from now on; returns the unsubscribe function. */
  observe(listener: (event: SandboxEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  emit(event: SandboxEvent): void {
    for (const listener of this.listeners) listener(event);
  }

  track<T>(p: Promise<T>): Promise<T> {
    this.pending.add(p);
    void p.finally(() => this.pending.delete(p)).catch(() => {});
    return p;
  }

  later(ms: number, run: () => void): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      run();
    }, ms);
    this.timers.add(timer);
  }

  async deliver(envelope: WebhookEnvelope, label = labelOf(envelope)): Promise<DeliveryAttempt[]> {
    const eventId = ++this.#eventCounter;
    const body = JSON.stringify(envelope);
    this.emit({ type: 'event', eventId, label, body, delivered: Boolean(this.options.webhookUrl) });
    if (!this.options.webhookUrl) {
      this.unconfigured.push({ eventId, label });
      return [];
    }
    return deliverWebhook(body, {
      url: this.options.webhookUrl,
      ...(this.options.webhookSecret ? { secret: this.options.webhookSecret } : {}),
      retryDelaysMs: this.retryDelaysMs,
      ackTimeoutMs: this.options.ackTimeoutMs ?? 5000,
      eventId,
      label,
      wamid: wamidOf(envelope),
      signal: this.closing.signal,
      connection: () => this.#connections.take(),
      onAttempt: (attempt) => {
        this.deliveries.push(attempt);
        callObserver(this.options.onDelivery, [attempt]);
        this.emit({ type: 'attempt', attempt });
      },
    });
  }

  scheduleStatuses(message: SentMessage): void {
    const [sent, delivered, read] = this.simulator.statusEventsFor(message);
    if (!sent || !delivered || !read) return;
    const failure = this.faults.failRecipients.get(message.to) ?? this.faults.nextFailure;
    if (failure === this.faults.nextFailure) this.faults.nextFailure = null;
    const plan: [string, WebhookEnvelope][] = failure
      ? [
          ['sent', sent],
          ['failed', this.simulator.failedEventFor(message, failure)],
        ]
      : [
          ['sent', sent],
          ['delivered', delivered],
          ['read', read],
        ];
    if (this.faults.statusOrder === 'reversed') plan.reverse();
    const times = this.#statusDelaysMs;
    const copies = this.faults.duplicateStatuses ? 2 : 1;
    plan.forEach(([status, envelope], i) => {
      const fire = () => {
        if (status === 'delivered') this.simulator.chargeDelivery();
        this.emit({ type: 'status', wamid: message.wamid, status, envelope });
        for (let n = 0; n < copies; n++) void this.track(this.deliver(envelope, `status:${status}`));
      };
      this.later(times[i]!, () => (this.#held ? this.#held.push(fire) : fire()));
    });
  }

  /** Holds status events as they fall due, until the returned function releases them (see `Sandbox`). */
  holdStatuses(): () => Promise<void> {
    this.#held ??= [];
    return () => {
      const held = this.#held ?? [];
      this.#held = undefined;
      for (const fire of held) fire();
      return this.idle();
    };
  }

  createTemplate(answer: ReturnType<TemplateRegistry['create']>): void {
    const created = answer.created;
    if (!created) return;
    this.emit({ type: 'template', template: created });
    const plan = this.templates.planFor(created) ?? { outcome: 'APPROVED' };
    if (plan.outcome === 'PENDING') return;
    this.later(plan.pendingMs ?? this.options.templateApprovalMs ?? 500, () => {
      if (created.status !== 'PENDING') return; // moved by code meanwhile: the plan no longer applies
      const reason = plan.outcome === 'REJECTED' ? (plan.reason ?? 'INVALID_FORMAT') : null;
      const decided = this.setTemplateStatus(
        created.sourceId,
        plan.outcome as 'APPROVED' | 'REJECTED',
        reason,
      );
      // The pause counts from the approval's delivery: its webhook never overtakes the approval's.
      if (plan.outcome === 'APPROVED' && plan.pauseAfterMs !== undefined)
        void this.track(
          decided.then(() =>
            this.later(plan.pauseAfterMs!, () => {
              if (created.status === 'APPROVED') void this.setTemplateStatus(created.sourceId, 'PAUSED');
            }),
          ),
        );
    });
  }

  /**
   * Moves a template to `status` and delivers its `message_template_status_update` webhook; resolves with the
   * delivery attempts (none when no such template).
   */
  setTemplateStatus(
    sourceId: string,
    status: TemplateStatusEventName,
    reason: string | null = null,
  ): Promise<DeliveryAttempt[]> {
    const template = this.templates.setStatus(sourceId, status, reason);
    if (!template) return Promise.resolve([]);
    this.emit({ type: 'template', template });
    const update = templateStatusEnvelope({
      event: status,
      message_template_id: Number(template.sourceId),
      message_template_name: template.name,
      message_template_language: template.language,
      reason: template.reason,
    });
    return this.track(this.deliver(update, `template:${status}`));
  }

  /**
   * Delivers a customer's message (or a whole envelope), its `id` and `timestamp` filled in when missing; rejects
   * with `ConfigurationError` naming every problem when no delivery could carry it.
   */
  injectMessage(message: Record<string, unknown> | WebhookEnvelope): Promise<DeliveryAttempt[]> {
    const injection = prepareInjection(message, this.simulator.metadata());
    if (!injection.ok) {
      return Promise.reject(
        new ConfigurationError(
          `injectMessage: not a message the gateway could deliver: ${injection.problems.join('; ')}. To deliver any envelope as it is, use sandbox.deliver(envelope).`,
        ),
      );
    }
    return this.inject(injection);
  }

  /** Delivers a prepared injection: each message shows in the inbox and reopens its sender's window. */
  inject(injection: Extract<Injection, { ok: true }>): Promise<DeliveryAttempt[]> {
    for (const m of injection.messages) {
      // A customer's message opens the 24-hour service window again.
      if (typeof m['from'] === 'string') this.simulator.openWindow(m['from']);
      this.emit({ type: 'incoming', message: m });
    }
    return this.track(this.deliver(injection.envelope));
  }

  /** Resolves when every scheduled event has been delivered, lost or dropped. */
  async idle(): Promise<void> {
    // Events schedule further events (a send schedules three), so wait until nothing is left.
    while (this.pending.size > 0 || this.timers.size > 0) {
      if (this.pending.size > 0) await Promise.allSettled([...this.pending]);
      else await new Promise((r) => setTimeout(r, 10));
    }
  }

  /** Stops timers and deliveries in flight. */
  async stop(): Promise<void> {
    this.closing.abort();
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    await Promise.allSettled([...this.pending]);
  }
}

/**
 * The message an envelope is about: its first status's `id` (the wamid of the message the app sent) or its first
 * message's `id`, as `labelOf` names the first; `undefined` for template and account events.
 */
function wamidOf(envelope: WebhookEnvelope): string | undefined {
  const value = envelope.entry[0]?.changes[0]?.value as
    | { messages?: { id?: unknown }[]; statuses?: { id?: unknown }[] }
    | undefined;
  const id = (value?.messages?.[0] || value?.statuses?.[0])?.id;
  return typeof id === 'string' ? id : undefined;
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
