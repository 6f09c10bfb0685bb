/**
 * Keeping a lease alive while its holder works, wherever the lease is kept (Redis, memory, a user's store): the
 * one heartbeat of the SDK. The webhook handlers keep their claims with it, the Redis locks their leases.
 * Zod-free and Node-free: the webhooks entry runs it on every runtime.
 *
 * The rule, in one place:
 * - the holder renews every third of the lease, one renewal at a time (a slow store is never asked twice at once);
 * - a renewal that answers `false` means the lease is gone (it expired, or another holder has it): **lost**;
 * - a renewal that fails (the store is unreachable) is reported and tried again at the next beat; once a whole
 *   lease has passed since the last renewal the store confirmed (the others failed or never answered), the lease
 *   may have expired there: **lost** too;
 * - once lost, renewing stops and `signal` aborts, so the holder can stop, and its fenced writes are refused by
 *   the store.
 */

/** Why a lease was lost: another holder has it (a renewal answered `false`), or no renewal got through in time. */
export type LeaseLoss = 'taken' | 'expired';

export interface KeepRenewedOptions {
  /** The lease's length, ms: it is renewed to this every third of it. */
  leaseMs: number;
  /** Extends the lease to `leaseMs` from now; `false` when this holder no longer has it. */
  renew: () => boolean | Promise<boolean>;
  /** Called once, when the lease is lost. */
  onLost?: (reason: LeaseLoss) => void;
  /** Called for each renewal that failed (threw or rejected); renewing goes on. */
  onRenewError?: (error: unknown) => void;
  /** Renewing stops when it aborts (the holder's deadline). */
  signal?: AbortSignal;
}

/** A lease being kept. */
export interface LeaseKeeper {
  /** Stops renewing (the holder is done). Safe to call twice. */
  stop(): void;
  /** Set once the lease is lost; `undefined` while it is held (or renewing was stopped). */
  readonly lost: LeaseLoss | undefined;
  /** Aborts when the lease is lost, with a reason naming why. */
  readonly signal: AbortSignal;
}

/**
 * Renews a lease every third of `leaseMs` until `stop()`, the holder's `signal`, or its loss (see the file's rule).
 *
 * @example
 * const keeper = keepRenewed({ leaseMs: 15_000, renew: () => lease.renew(), onLost: (why) => log.warn(why) });
 * try { await work(keeper.signal); } finally { keeper.stop(); }
 */
export function keepRenewed(options: KeepRenewedOptions): LeaseKeeper {
  const { leaseMs, renew, onLost, onRenewError, signal } = options;
  const controller = new AbortController();
  let confirmedAt = Date.now();
  let lost: LeaseLoss | undefined;
  let stopped = false;
  let inFlight = false;

  const lose = (reason: LeaseLoss) => {
    if (stopped || lost) return;
    lost = reason;
    halt();
    controller.abort(new Error(reason === 'taken' ? 'the lease was taken' : 'the lease expired'));
    onLost?.(reason);
  };
  const beat = () => {
    if (stopped || lost) return;
    // The lease was last confirmed at `confirmedAt`: a whole lease later, the store may have let it go, whether
    // the renewal sent since failed or is still unanswered (a partitioned client may never answer).
    if (Date.now() - confirmedAt >= leaseMs) return lose('expired');
    if (inFlight) return;
    const sentAt = Date.now();
    let pending: boolean | Promise<boolean>;
    try {
      pending = renew();
    } catch (error) {
      onRenewError?.(error);
      return;
    }
    inFlight = true;
    Promise.resolve(pending).then(
      (held) => {
        inFlight = false;
        if (held === false) lose('taken');
        else confirmedAt = Math.max(confirmedAt, sentAt);
      },
      (error: unknown) => {
        inFlight = false;
        if (!stopped && !lost) onRenewError?.(error);
      },
    );
  };
  const timer = setInterval(beat, Math.max(10, Math.floor(leaseMs / 3)));
  (timer as { unref?: () => void }).unref?.();
  const onAbort = () => halt();
  signal?.addEventListener('abort', onAbort, { once: true });
  function halt(): void {
    stopped = true;
    clearInterval(timer);
    signal?.removeEventListener('abort', onAbort);
  }
  if (signal?.aborted) halt();
  return {
    stop: halt,
    get lost() {
      return lost;
    },
    signal: controller.signal,
  };
}
