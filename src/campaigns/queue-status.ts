/**
 * Where a campaign of a durable campaign queue stands (`CampaignQueue.status` in `wa-gateway-sdk/redis`): here, below
 * the Redis folder, so that what reads it (the sandbox's inbox) does not load Redis.
 */
import type { CampaignTracker } from './tracker.js';

/** Why a campaign is paused or was cancelled, as `status()` reports it. */
export interface CampaignHold {
  /** The gateway's code (`BILL_001`, `AUTH_001`...), or `PAUSED` / `CANCELLED` when a person did it. */
  code: string;
  /** The gateway's description, or what the person said. */
  description: string;
  /** When, ISO 8601. */
  at: string;
  /** Who: a refusal the gateway answered, or a person (`pause`, `cancel`). */
  by: 'gateway' | 'person';
}

/**
 * Why a running campaign's sends wait for now, with nothing for a person to do: `rate_limit`, the gateway's
 * `RATE_001` holds every worker until `until` (its `retry_after`); `replicas`, fewer Redis replicas than
 * `work({ replicas })` asks held a message's mark in time (one down or lagging), so messages go back to the queue
 * and are tried again about every second, and `until` moves on while that lasts.
 */
export interface CampaignWait {
  reason: 'rate_limit' | 'replicas';
  /** When the wait ends, or is looked at again, ISO 8601 (Redis's clock). */
  until: string;
}

/**
 * A running campaign's wait from its stored deadlines (ms on Redis's clock, 0 when never set) and Redis's `now`:
 * the one that ends later, or `undefined` when both have passed.
 */
export function waitingOf(heldUntil: number, replicasUntil: number, now: number): CampaignWait | undefined {
  const until = Math.max(heldUntil, replicasUntil);
  if (!(until > now)) return undefined;
  return {
    reason: heldUntil >= replicasUntil ? 'rate_limit' : 'replicas',
    until: new Date(until).toISOString(),
  };
}

/** Where a campaign stands: `status(id)`. */
export interface CampaignQueueStatus {
  campaign: string;
  /**
   * `scheduled` (its start is ahead), `running`, `paused` (see `hold`), `cancelled`, or `finished` (nothing
   * queued or in flight; messages in doubt may remain).
   */
  state: 'scheduled' | 'running' | 'paused' | 'cancelled' | 'finished';
  /** Why it is paused or was cancelled. */
  hold: CampaignHold | undefined;
  /** Why a running campaign's sends wait for now (the later of the two when both), or `undefined`. */
  waiting: CampaignWait | undefined;
  /** When it starts or started, ISO 8601. */
  startAt: string | null;
  /** Messages enqueued. */
  total: number;
  /** Not sent yet (waiting, or back in the queue after a refusal that sent nothing). */
  queued: number;
  /** Allowed out: the request may be under way. */
  inFlight: number;
  /** Accepted by the gateway (a wamid), `resolved` of them from a status while in doubt. */
  accepted: number;
  resolved: number;
  /** Certainly not sent, for good: refused (`GW_001`, invalid...), `suppressed` or `cancelled`. */
  notSent: number;
  suppressed: number;
  cancelled: number;
  /** Maybe sent: a worker died or the request was cut in flight, and no status has said yet. Never resent by itself. */
  inDoubt: number;
  /** Dropped by a person while in doubt (counted in `notSent` no more: they may have been sent). */
  dropped: number;
}

/** What reads a campaign queue without driving it: its report's tracker and each campaign's status. */
export interface CampaignQueueView {
  readonly tracker: CampaignTracker;
  status(campaign: string): Promise<CampaignQueueStatus | undefined>;
}
