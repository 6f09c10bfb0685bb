/**
 * The claim and in-flight logic of the webhook core: an event with a dedupe key runs only once its key is claimed in
 * the store, and a delivery that finds its own event running in this process waits for that outcome.
 */
import { raceSignal } from '../core/abort.js';
import { WaGatewayError } from '../core/errors.js';
import { keepRenewed } from '../core/lease.js';
import { type IdempotencyStore, toClaimResult } from './dedup.js';
import type { WebhookEvent } from './events.js';
import type { WebhookErrorInfo, WebhookEventContext, WebhookHandlerOptions } from './handler-options.js';

/** How one keyed event ended for this delivery. */
export type Outcome = 'ok' | 'duplicate' | 'failed' | 'busy';

/** Reports one failure about one event (logger line and `onError`). */
export type EventFailed = (
  message: string,
  error: unknown,
  stage: WebhookErrorInfo['stage'],
  event: WebhookEvent,
  index: number,
  level?: 'warn' | 'error',
) => void;

export const ON_EVENT_FAILED = 'onEvent failed; answering 500 so the gateway retries the delivery';
/**
 * Added to an `onEvent` failure's log line when no `onError` is set: the line carries only the error's class (its
 * message may hold the application's data), so say where the error itself can be seen.
 */
export const ON_ERROR_HINT =
  '. The error is not logged (it may hold your data): to see it, pass ' +
  '`onError: (error, info) => console.error(info.stage, error)`';
const RENEW_FAILED =
  'The dedupe store failed to renew a claim while onEvent runs; if no renewal succeeds, the claim ends with its lease';
const CLAIM_LOST = 'A claim ran out while onEvent ran; another instance may run the event too';

/** What the claim logic needs from the resolved handler options. */
export interface ClaimDeps {
  onEvent: WebhookHandlerOptions['onEvent'];
  eventFailed: EventFailed;
  claimLeaseMs: number;
  dedupeTtlMs: number;
  onStoreUnavailable: NonNullable<WebhookHandlerOptions['onStoreUnavailable']>;
}

/** One per handler: its in-flight map lives as long as the handler. */
export function createClaims(deps: ClaimDeps) {
  // Per handler: keys whose onEvent is running here, so a retry that finds its own event in progress can wait for
  // the outcome instead of guessing.
  const inflight = new Map<string, Promise<Outcome>>();

  /**
   * The outcome of a keyed event for this delivery, or `aborted` when the deadline passed while it waited.
   * Two rounds at most: an event found running here that then fails is released, and becomes ours to run.
   */
  async function settle(
    store: IdempotencyStore,
    key: string,
    event: WebhookEvent,
    context: WebhookEventContext,
    signal: AbortSignal,
  ): Promise<Outcome | 'aborted'> {
    for (let round = 0; ; round++) {
      const running = inflight.get(key);
      if (running) {
        const outcome = await untilAborted(running, signal);
        if (outcome === 'aborted') return 'aborted';
        // Processed by the delivery this one waited for: for this delivery, a duplicate.
        if (outcome === 'ok' || outcome === 'duplicate') return 'duplicate';
        if (outcome === 'failed' && round === 0) continue;
        return 'busy';
      }
      const claimedKey = key;
      // Registered before the store is even asked, so a concurrent delivery of the same event in this process
      // waits for this outcome instead of racing for the claim.
      const tracked: Promise<Outcome> = claimAndRun(deps, store, claimedKey, event, context).finally(() => {
        if (inflight.get(claimedKey) === tracked) inflight.delete(claimedKey);
      });
      inflight.set(claimedKey, tracked);
      return tracked;
    }
  }

  /** Whether the event of `key` is running in this process now (for this delivery or another). */
  const runningHere = (key: string): boolean => inflight.has(key);

  return { settle, runningHere };
}

async function runClaimed(
  deps: ClaimDeps,
  activeStore: IdempotencyStore,
  key: string,
  event: WebhookEvent,
  context: WebhookEventContext,
): Promise<'ok' | 'failed'> {
  const { onEvent, eventFailed, dedupeTtlMs, claimLeaseMs } = deps;
  const stopRenewing = keepClaimed(deps, activeStore, key, event, context);
  try {
    await onEvent(event, context);
  } catch (error) {
    stopRenewing();
    eventFailed(ON_EVENT_FAILED, error, 'onEvent', event, context.index);
    try {
      await activeStore.release(key);
    } catch (releaseError) {
      eventFailed(
        `The dedupe store failed to release a claim; it ends within claimLeaseMs (${claimLeaseMs} ms), ` +
          'then a retry processes the event',
        releaseError,
        'dedupe',
        event,
        context.index,
      );
    }
    return 'failed';
  } finally {
    stopRenewing();
  }
  try {
    await activeStore.complete?.(key, dedupeTtlMs);
  } catch (completeError) {
    // The event was processed: answering 500 would run it twice. The claim stays as it was.
    eventFailed(
      'The dedupe store failed to mark an event done',
      completeError,
      'dedupe',
      event,
      context.index,
    );
  }
  return 'ok';
}

/**
 * Keeps the claim while `onEvent` runs, by the kit's heartbeat (core/lease.ts): renewed every third of the lease,
 * so a live holder keeps it however long it works while a dead one (no more renewals) loses it within one lease:
 * before the gateway's next attempt. Renewing stops at the delivery's deadline too: the handler has then answered
 * 503, and the gateway's retry, wherever it lands, must be able to take the event over. A failed renewal is
 * logged, never thrown: `onEvent` goes on; a claim that is lost (taken, or unconfirmed for a whole lease) is
 * logged once.
 */
function keepClaimed(
  { eventFailed, claimLeaseMs }: ClaimDeps,
  activeStore: IdempotencyStore,
  key: string,
  event: WebhookEvent,
  context: WebhookEventContext,
): () => void {
  const renew = activeStore.renew;
  if (typeof renew !== 'function' || context.signal.aborted) return () => {};
  const failed = (message: string, error: unknown) =>
    eventFailed(message, error, 'dedupe', event, context.index);
  const keeper = keepRenewed({
    leaseMs: claimLeaseMs,
    signal: context.signal,
    renew: () => renew.call(activeStore, key, claimLeaseMs),
    onRenewError: (error) => failed(RENEW_FAILED, error),
    onLost: () => failed(CLAIM_LOST, new WaGatewayError(CLAIM_LOST)),
  });
  return keeper.stop;
}

/**
 * `onStoreUnavailable: 'process'`: the store cannot be asked, so the event runs without deduplication. An outage
 * longer than the gateway's three attempts (about 3 s) would otherwise lose every event delivered in it; running
 * one twice is what the spec already asks consumers to bear (delivery rule 4).
 */
async function runUnclaimed(
  { onEvent, eventFailed }: ClaimDeps,
  event: WebhookEvent,
  context: WebhookEventContext,
  storeError: unknown,
): Promise<'ok' | 'failed'> {
  eventFailed(
    'The dedupe store failed to claim an event (stage dedupe); running onEvent without deduplication',
    storeError,
    'dedupe',
    event,
    context.index,
    'warn',
  );
  try {
    await onEvent(event, context);
    return 'ok';
  } catch (error) {
    eventFailed(ON_EVENT_FAILED, error, 'onEvent', event, context.index);
    return 'failed';
  }
}

/**
 * Claims the event's key and runs it when the claim is ours. `ok`: processed now; `duplicate`: before;
 * `failed`: onEvent or the store failed (the key is free again); `busy`: another process holds the key.
 */
async function claimAndRun(
  deps: ClaimDeps,
  activeStore: IdempotencyStore,
  key: string,
  event: WebhookEvent,
  context: WebhookEventContext,
): Promise<Outcome> {
  const failed = (error: unknown): 'failed' => {
    deps.eventFailed(
      'The dedupe store failed to claim an event; answering 500 so the gateway retries',
      error,
      'dedupe',
      event,
      context.index,
    );
    return 'failed';
  };
  let answer: Awaited<ReturnType<IdempotencyStore['claim']>>;
  try {
    answer = await activeStore.claim(key, deps.claimLeaseMs);
  } catch (error) {
    // The store could not be asked (down, timed out): see `onStoreUnavailable`.
    return deps.onStoreUnavailable === 'process' ? runUnclaimed(deps, event, context, error) : failed(error);
  }
  let claim: ReturnType<typeof toClaimResult>;
  try {
    claim = toClaimResult(answer);
  } catch (error) {
    // A store answering nonsense is a bug to fix, not an outage to ride out.
    return failed(error);
  }
  if (claim === 'done') return 'duplicate';
  // Held by another process: its own delivery answers for it; this one asks the gateway to come back.
  if (claim === 'in_progress') return 'busy';
  return runClaimed(deps, activeStore, key, event, context);
}

/** The promise's value, or `aborted` once `signal` aborts; the promise itself keeps running (its claim stays). */
export function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T | 'aborted'> {
  return raceSignal(promise, signal).then(
    (value) => value,
    () => 'aborted' as const,
  );
}
