const MAX_TIMER_MS = 2 ** 31 - 1;

/** A timer handle as Node gives it; elsewhere (a number) it has no ref/unref and is never waited on anyway. */
type Timer = ReturnType<typeof setTimeout> & { ref?: () => unknown; unref?: () => unknown };

/** Something with a deadline in a `Deadlines` set: `expire()` is called once it passes. */
export interface Expiring {
  /** `performance.now()` time at which it expires. */
  at: number;
  /** Its place in the set, -1 when not in it. */
  slot: number;
  expire(): void;
}

/**
 * The timeouts of one transport's requests in flight, behind a single timer armed for the earliest of them.
 * A request adds and clears an entry (two array writes) instead of arming and clearing its own timer: with the
 * same timeout for every request, a later request never re-arms it, so the timer fires about once per timeout
 * period however many requests go by. It fires at the earliest deadline, as a per-request timer would (timers
 * have 1 ms resolution and may fire up to 1 ms early, so an entry not yet due is re-checked at most 1 ms
 * later). The timer keeps the process alive only while a request is in flight (a call waiting on a custom
 * `authorization()` or `fetch` that holds no handle must still end in its timeout, as with a timer of its own);
 * once the last entry is cleared it stays armed but unref'd, so an idle transport never holds the process and a
 * sequence of requests does not re-arm it each time.
 */
export class Deadlines {
  readonly #live: Expiring[] = [];
  #timer: Timer | undefined;
  #armedAt = Number.POSITIVE_INFINITY;

  /** Expires `entry` `ms` from now unless `clear(entry)` comes first. */
  add(entry: Expiring, ms: number): void {
    entry.at = performance.now() + ms;
    entry.slot = this.#live.length;
    this.#live.push(entry);
    if (entry.at < this.#armedAt) this.#arm(entry.at);
    else if (this.#live.length === 1) this.#timer?.ref?.();
  }

  clear(entry: Expiring): void {
    const slot = entry.slot;
    if (slot < 0) return;
    entry.slot = -1;
    const last = this.#live.pop() as Expiring;
    if (last !== entry) {
      this.#live[slot] = last;
      last.slot = slot;
    }
    if (this.#live.length === 0) this.#timer?.unref?.();
  }

  #arm(at: number): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#armedAt = at;
    // A delay above 2^31 - 1 ms is taken as 1 ms by setTimeout (and warned about): wait the most it allows, and
    // check again then.
    const delay = Math.min(MAX_TIMER_MS, Math.max(0, Math.ceil(at - performance.now())));
    const timer = setTimeout(this.#check, delay) as Timer;
    if (this.#live.length === 0) timer.unref?.();
    this.#timer = timer;
  }

  readonly #check = (): void => {
    this.#timer = undefined;
    this.#armedAt = Number.POSITIVE_INFINITY;
    const now = performance.now();
    const due: Expiring[] = [];
    let next = Number.POSITIVE_INFINITY;
    for (const entry of this.#live) {
      if (entry.at <= now) due.push(entry);
      else if (entry.at < next) next = entry.at;
    }
    // Cleared before any expires: an expiry's abort runs listeners that may add or clear entries.
    for (const entry of due) this.clear(entry);
    if (next < this.#armedAt) this.#arm(next);
    for (const entry of due) entry.expire();
  };
}
