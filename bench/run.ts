/**
 * `npm run bench`: runs every `bench/*.bench.ts` in its own process (so one bench's heap does not skew
 * another's memory figures) and prints one table of each bar, its figure and whether it holds.
 * `npm run bench -- webhook stream` runs only the named ones. Exits 1 when a bar does not hold.
 */
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { arch, cpus, platform } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { BenchResult } from './lib.js';
import { round } from './lib.js';

const dir = fileURLToPath(new URL('.', import.meta.url));
const only = process.argv.slice(2);
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => only.length === 0 || only.includes(f.replace('.bench.ts', '')))
  .sort();

function run(file: string): Promise<{ results: BenchResult[]; code: number | null }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', `${dir}${file}`], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const results: BenchResult[] = [];
    let buffered = '';
    child.stdout.on('data', (d: Buffer) => {
      buffered += d.toString();
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) {
        if (line.startsWith('BENCH_RESULT '))
          results.push(JSON.parse(line.slice('BENCH_RESULT '.length)) as BenchResult);
        else if (line.trim()) console.log(`  ${file}: ${line}`);
      }
    });
    child.on('close', (code) => resolve({ results, code }));
  });
}

console.log(
  `node ${process.version}, ${platform()} ${arch()}, ${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}`,
);
const all: BenchResult[] = [];
let crashed = false;
for (const file of files) {
  const { results, code } = await run(file);
  if (code !== 0 || results.length === 0) {
    crashed = true;
    console.log(`  ${file}: exited with ${String(code)} and ${results.length} result(s)`);
  }
  all.push(...results);
}

const rows = all.map((r) => [
  r.bench,
  r.metric,
  `${round(r.value)}${r.unit}`,
  r.bar,
  r.pass ? 'holds' : 'MISSES',
]);
const header = ['bench', 'what', 'figure', 'bar', 'result'];
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
console.log(`\n${line(header)}\n|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
for (const r of rows) console.log(line(r));
process.exitCode = crashed || all.some((r) => !r.pass) ? 1 : 0;
