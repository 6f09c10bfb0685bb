/**
 * A bound on work in flight: `take()` waits for a free slot and answers its release (idempotent). The campaign
 * worker bounds its sends with it, the sandbox its webhook deliveries.
 */
export class Slots {
  #free: number;
  readonly #waiting: (() => void)[] = [];
  constructor(size: number) {
    this.#free = size;
  }
  async take(): Promise<() => void> {
    if (this.#free > 0) this.#free--;
    else await new Promise<void>((resolve) => this.#waiting.push(resolve));
    let given = false;
    return () => {
      if (given) return;
      given = true;
      const next = this.#waiting.shift();
      if (next) next();
      else this.#free++;
    };
  }
}
