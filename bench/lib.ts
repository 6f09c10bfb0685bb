/**
 * Shared bench helpers. Each `bench/*.bench.ts` is a standalone script (`tsx bench/x.bench.ts`) that measures
 * the SDK against a baseline in the same run and reports with `report()`; `bench/run.ts` runs them all and
 * prints one table. Figures are ratios against a baseline measured in the same process, so they mean the same on
 * any machine.
 */
import { spawnSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

export interface BenchResult {
  /** The bench file's name, e.g. `webhook`. */
  bench: string;
  /** What the figure measures, e.g. `verify+parse vs JSON.parse+compare (time ratio)`. */
  metric: string;
  /** The measured figure. */
  value: number;
  /** The unit of `value`: `x` for a ratio, `MB`, `req/s`, ... */
  unit: string;
  /** The bar from DESIGN.md, as text: `<= 1.15x`. */
  bar: string;
  pass: boolean;
  /**
   * The bar as a number, for the quick CI pass (`npm run bench:quick`), which fails only on a gross miss: a figure
   * beyond the bar by more than `QUICK_MARGIN`. Absent for informational figures.
   */
  limit?: number;
  /**
   * `false` for a figure the quick pass reports without failing on it: a bar that no code meets on this runtime,
   * pending a better-founded one (the first parse's; docs/benchmarks.md, "The second pass").
   */
  quickGate?: false;
  /** `true` when a higher figure is better (throughput); the bar is then a floor. */
  higherIsBetter?: boolean;
  /** Raw figures behind the ratio, for docs/benchmarks.md. */
  detail?: Record<string, number | string>;
}

/** `BENCH_QUICK=1`: short runs for CI (fewer rounds); figures are noisier, so only gross misses fail. */
export const QUICK = process.env['BENCH_QUICK'] === '1';

/** How far past its bar a figure may land in the quick pass before it fails: noise on a busy 2-core machine. */
export const QUICK_MARGIN = 1.5;

/** Whether a result holds in the quick pass: a timing or memory figure within its bar widened by `QUICK_MARGIN`. */
export function holdsQuick(result: BenchResult): boolean {
  // Sizes are exact: only timing ratios and memory figures get the margin.
  if (result.quickGate === false) return true;
  const noisy = result.unit === 'x' || result.unit === 'MB';
  if (result.limit === undefined || !noisy) return result.pass;
  return result.higherIsBetter
    ? result.value >= result.limit / QUICK_MARGIN
    : result.value <= result.limit * QUICK_MARGIN;
}

/** Prints one result as a tagged JSON line that bench/run.ts collects, plus a readable line. */
export function report(result: BenchResult): void {
  // In a quick pass a strict miss within the margin does not fail the run: say so instead of "FAIL".
  const mark = result.pass ? 'PASS' : QUICK && holdsQuick(result) ? `MISS (${quickExcuse(result)})` : 'FAIL';
  console.log(
    `${mark}  ${result.bench}: ${result.metric} = ${round(result.value)}${result.unit} (bar ${result.bar})`,
  );
  console.log(`BENCH_RESULT ${JSON.stringify(result)}`);
}

/** Why the quick pass lets a strict miss through: its margin, or a figure it does not gate on. */
export function quickExcuse(result: BenchResult): string {
  return result.quickGate === false ? 'not gated in the quick pass' : 'within the quick margin';
}

export function round(n: number, digits = 3): number {
  const f = 10 ** digits;
  return Math.round(n * f) / f;
}

/** Median time per iteration (ms) over `rounds` rounds of `iterations` calls each, after a warm-up round. */
export async function timeIt(
  fn: () => unknown | Promise<unknown>,
  { iterations = 1000, rounds = 7 }: { iterations?: number; rounds?: number } = {},
): Promise<number> {
  for (let i = 0; i < iterations; i++) await fn();
  const samples: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const t0 = performance.now();
    for (let i = 0; i < iterations; i++) await fn();
    samples.push((performance.now() - t0) / iterations);
  }
  samples.sort((a, b) => a - b);
  return samples[Math.floor(samples.length / 2)]!;
}

/**
 * Times `subject` and `baseline` in interleaved rounds (so drift in machine load hits both alike) and returns
 * the median of per-round ratios subject/baseline.
 */
export async function compare(
  subject: () => unknown | Promise<unknown>,
  baseline: () => unknown | Promise<unknown>,
  { iterations = 1000, rounds = 9 }: { iterations?: number; rounds?: number } = {},
): Promise<{ ratio: number; subjectMs: number; baselineMs: number }> {
  for (let i = 0; i < iterations; i++) {
    await subject();
    await baseline();
  }
  const ratios: number[] = [];
  const s: number[] = [];
  const b: number[] = [];
  for (let r = 0; r < rounds; r++) {
    let t0 = performance.now();
    for (let i = 0; i < iterations; i++) await baseline();
    const bt = (performance.now() - t0) / iterations;
    t0 = performance.now();
    for (let i = 0; i < iterations; i++) await subject();
    const st = (performance.now() - t0) / iterations;
    ratios.push(st / bt);
    s.push(st);
    b.push(bt);
  }
  return { ratio: median(ratios), subjectMs: median(s), baselineMs: median(b) };
}

/**
 * How many fresh processes a loopback timing ratio takes its median over (one in the quick pass). Single processes
 * of one build spread several times wider than the rounds within one process do, so extra samples buy the most
 * accuracy as extra processes; nine keeps one slow or fast draw from moving the figure (see docs/benchmarks.md).
 */
export const LOOPBACK_PROCESSES = QUICK ? 1 : 9;

/** How a figure taken over `n` processes names itself in a metric: `median of 9 processes`. */
export function medianOfProcesses(n: number): string {
  return `median of ${n} process${n === 1 ? '' : 'es'}`;
}

/**
 * `measure`'s result from each of `processes` fresh processes of the bench file `file` (`import.meta.url`), or
 * from this process alone when `processes` is 1. For timing ratios of loopback sends: within one process the
 * rounds agree closely, but processes of the same build differ by several percent (what the JIT made of each side,
 * where the heap landed), so one process is a draw and the median over a few is the figure.
 */
export async function inFreshProcesses<T>(
  file: string,
  processes: number,
  measure: () => Promise<T>,
): Promise<T[]> {
  const path = fileURLToPath(file);
  if (process.env['WA_BENCH_CHILD'] === path) {
    console.log(`${CHILD_RESULT}${JSON.stringify(await measure())}`);
    process.exit(0);
  }
  if (processes === 1) return [await measure()];
  return Array.from({ length: processes }, () => {
    const child = spawnSync(process.execPath, [...process.execArgv, path], {
      env: { ...process.env, WA_BENCH_CHILD: path },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const line = child.stdout
      .toString()
      .split('\n')
      .find((l) => l.startsWith(CHILD_RESULT));
    if (child.status !== 0 || !line) throw new Error(`${path}: a measuring process exited ${child.status}`);
    return JSON.parse(line.slice(CHILD_RESULT.length)) as T;
  });
}

const CHILD_RESULT = 'BENCH_CHILD_RESULT ';

/** The median of `values` (the upper one of an even count). */
export function median(values: readonly number[]): number {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
}
