/**
 * Bars: never more than N requests started in any 1,000 ms span; at least 95% of N per second sustained.
 * Pushes 5·N sends through `sendMany` (concurrency far above what N/s needs) at a loopback gateway in a
 * child process, and reads both the client-side start times and the server-side arrival times.
 */
import { GatewayClient, type OutboundMessage } from '../src/index.js';
import { maxInWindow, sustained } from '../test/helpers/arrivals.js';
import { spawnFixture } from './fixtures/spawn.js';
import { report, round } from './lib.js';

const N = 80;
const TOTAL = 6 * N;

const fixture = await spawnFixture('echo-gateway');
try {
  const gw = new GatewayClient({
    apiKey: 'pk_live_bench_0123456789',
    baseUrl: fixture.url,
    rateLimit: { perSecond: N },
  });
  await fetch(`${fixture.url}/__reset`);
  const messages: OutboundMessage[] = Array.from({ length: TOTAL }, (_, i) => ({
    to: '998901234567',
    type: 'text',
    text: { body: `bulk ${i}` },
  }));
  let ok = 0;
  for await (const r of gw.messages.sendMany(messages, { concurrency: 200 })) if (r.ok) ok++;
  const arrivals = (await (await fetch(`${fixture.url}/__arrivals`)).json()) as number[];
  if (ok !== TOTAL || arrivals.length !== TOTAL)
    throw new Error(`expected ${TOTAL} sends, got ${ok} ok / ${arrivals.length} arrived`);
  const peak = maxInWindow(arrivals);
  report({
    bench: 'rate-limiter',
    metric: `most sends arriving in any 1,000 ms span (N = ${N})`,
    value: peak,
    unit: '',
    bar: `<= ${N}`,
    pass: peak <= N,
  });
  const rate = sustained(arrivals);
  report({
    bench: 'rate-limiter',
    metric: 'sustained send rate as a share of N',
    value: rate / N,
    unit: 'x',
    bar: '>= 0.95x',
    pass: rate / N >= 0.95,
    detail: { sendsPerSecond: round(rate, 1), total: TOTAL },
  });
} finally {
  fixture.stop();
}
