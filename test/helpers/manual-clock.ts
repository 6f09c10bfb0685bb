/**
 * A clock a test moves by hand (`CampaignClock`, and a `now` for stores): time stands still until `advance`, which
 * runs the timers that fall due in their time order. A test that waits on ages then depends on no machine speed
 * and no real timer's order.
 */
export interface ManualClock {
  now: () => number;
  setTimeout: (callback: () => void, ms: number) => unknown;
  clearTimeout: (handle: unknown) => void;
  /** Moves time forward by `ms`, running each timer that falls due, earliest first. */
  advance(ms: number): void;
  /** Timers scheduled and not yet run or cleared. */
  pending(): number;
}

export function manualClock(start = 1_700_000_000_000): ManualClock {
  let time = start;
  let seq = 0;
  const timers = new Map<number, { at: number; callback: () => void }>();
  return {
    now: () => time,
    setTimeout: (callback, ms) => {
      const id = ++seq;
      timers.set(id, { at: time + Math.max(0, ms), callback });
      return id;
    },
    clearTimeout: (handle) => {
      timers.delete(handle as number);
    },
    advance(ms) {
      const end = time + ms;
      for (;;) {
        // Time moves to each due timer in turn (the earliest first, ties in the order set), so a timer that
        // another schedules runs at its own time.
        let next: [number, { at: number; callback: () => void }] | undefined;
        for (const entry of timers)
          if (entry[1].at <= end && (!next || entry[1].at < next[1].at)) next = entry;
        if (!next) break;
        time = Math.max(time, next[1].at);
        timers.delete(next[0]);
        next[1].callback();
      }
      time = end;
    },
    pending: () => timers.size,
  };
}

/** Waits until `condition` holds, checking between macrotasks; fails after `backstopMs` (a backstop only). */
export async function waitFor(
  condition: () => boolean | Promise<boolean>,
  what: string,
  backstopMs = 10_000,
): Promise<void> {
  const until = Date.now() + backstopMs;
  while (!(await condition())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 2));
  }
}

/** A promise with its resolve at hand. */
export function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}
