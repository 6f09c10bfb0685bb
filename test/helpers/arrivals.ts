/** Figures over request arrival times (ms), shared by the rate-limiter tests and benches. */

/** The largest number of timestamps within any closed span of `windowMs`. */
export function maxInWindow(times: number[], windowMs = 1000): number {
  const sorted = [...times].sort((a, b) => a - b);
  let best = 0;
  let lo = 0;
  for (let hi = 0; hi < sorted.length; hi++) {
    while (sorted[hi]! - sorted[lo]! > windowMs) lo++;
    best = Math.max(best, hi - lo + 1);
  }
  return best;
}

/** Mean arrivals per second over the whole seconds after the first (the first holds the catch-up burst). */
export function sustained(times: number[]): number {
  const sorted = [...times].sort((a, b) => a - b);
  const from = sorted[0]! + 1000;
  const seconds = Math.floor((sorted.at(-1)! - from) / 1000);
  return sorted.filter((t) => t >= from && t < from + seconds * 1000).length / seconds;
}
