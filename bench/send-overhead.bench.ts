/**
 * Bar: `messages.send` against a loopback server costs at most 1.10× a bare `fetch` of the same request (goal 1.05×).
 * Both sides send the same JSON with the same headers and read the JSON answer; the server runs in a child
 * process. The SDK side includes validation, the transport, error mapping and result parsing (rate limiting
 * off: its waits are not overhead and are measured by rate-limiter.bench.ts).
 *
 * The SDK sends with `redirect: 'error'` on Node, the one mode undici does not clone the request for; the baseline
 * keeps fetch's default. `vsUnclonedFetch` reports the SDK against a bare fetch given the same mode (issue 35's bar).
 * Its detail splits that figure in two: `vsSignalledFetch`, the SDK against the same fetch carrying an
 * `AbortSignal` (the least a request needs to be aborted when its timeout passes, which the SDK guarantees), and
 * `signalVsUncloned`, what that signal alone costs a bare fetch (docs/benchmarks.md, "What the signal costs").
 *
 * The figure is the median over fresh processes, each the median of many interleaved rounds. Within one process
 * the rounds agree closely, but processes differ (what the JIT made of each side, where the heap landed): single
 * processes of the same build have measured anywhere in a band several percent wide, and one of them is as much a
 * draw as one round would be. The quick CI pass runs one process.
 */
import { existsSync } from 'node:fs';
import type { GatewayClient as GatewayClientType, OutboundMessage } from '../src/index.js';
import { spawnFixture } from './fixtures/spawn.js';
import {
  compare,
  inFreshProcesses,
  LOOPBACK_PROCESSES,
  median,
  medianOfProcesses,
  QUICK,
  report,
  round,
} from './lib.js';

const KEY = 'pk_live_bench_0123456789abcdef';
const BAR = 1.1;
/** The SDK against a bare fetch sent the same way (`vsUnclonedFetch`): what its own work costs (issue 35). */
const UNCLONED_BAR = 1.04;
const UNCLONED_GOAL = 1.02;
const message: OutboundMessage = {
  to: '998901234567',
  type: 'template',
  template: {
    name: 'order_update',
    language: { code: 'en_US' },
    components: [
      {
        type: 'body',
        parameters: [
          { type: 'text', text: 'Ali' },
          { type: 'text', text: '#1042' },
        ],
      },
    ],
  },
};

// The built package, as users run it: the TypeScript source through tsx carries loader wrappers (`__name` on
// every closure) that would be charged to the SDK.
const dist = new URL('../dist/index.js', import.meta.url);
if (!existsSync(dist)) throw new Error('dist/ is missing: run `npm run build` first.');
const { GatewayClient } = (await import(dist.href)) as { GatewayClient: typeof GatewayClientType };

/** One process's figure: the median of interleaved rounds against the echo gateway. */
async function measureHere(): Promise<{
  ratio: number;
  subjectMs: number;
  baselineMs: number;
  vsUnclonedFetch: number;
  vsSignalledFetch: number;
  signalVsUncloned: number;
}> {
  const fixture = await spawnFixture('echo-gateway');
  try {
    const gw = new GatewayClient({ apiKey: KEY, baseUrl: fixture.url, rateLimit: false });
    const url = `${fixture.url}/v1/wa/message`;
    // The baseline is what a careful caller would write by hand: serialise, POST, read the JSON answer.
    const headers = () => ({
      authorization: `Bearer ${KEY}`,
      'content-type': 'application/json',
      accept: 'application/json',
    });
    const body = () => JSON.stringify({ messaging_product: 'whatsapp', ...message });
    const messageId = async (res: Response) =>
      ((await res.json()) as { data: { messages: { id: string }[] } }).data.messages[0]?.id;
    const bare = async () =>
      messageId(await fetch(url, { method: 'POST', headers: headers(), body: body() }));
    // The fastest fetch Node offers: the one request mode undici sends without cloning it (and its body), which
    // the SDK uses. Against it, the figure is what the SDK's own work costs, whatever the request mode saves.
    // Given a signal (`null`: none, undici's path without one), it can be aborted.
    const sentTheSameWay = async (signal: AbortSignal | null) =>
      messageId(
        await fetch(url, {
          method: 'POST',
          headers: headers(),
          body: body(),
          redirect: 'error',
          window: null,
          signal,
        }),
      );
    const unclonedBare = () => sentTheSameWay(null);
    // The same fetch made abortable with the cheapest signal there is: what a request needs before a timeout can
    // end it and free its socket, as the SDK's timeout does. Informational: it splits `vsUnclonedFetch`.
    const signalledBare = () => sentTheSameWay(new AbortController().signal);
    const sdk = async () => (await gw.messages.send(message)).messageId;
    // Many short interleaved rounds (50 sends a side, ~25 ms): drift in machine load hits both sides alike, and
    // the median of 121 ratios is stable within a process (blocks of 400 varied ±10%).
    const main = await compare(sdk, bare, { iterations: 50, rounds: QUICK ? 41 : 121 });
    const uncloned = await compare(sdk, unclonedBare, { iterations: 50, rounds: QUICK ? 21 : 61 });
    const signalled = await compare(sdk, signalledBare, { iterations: 50, rounds: QUICK ? 21 : 41 });
    const signal = await compare(signalledBare, unclonedBare, { iterations: 50, rounds: QUICK ? 21 : 41 });
    return {
      ...main,
      vsUnclonedFetch: uncloned.ratio,
      vsSignalledFetch: signalled.ratio,
      signalVsUncloned: signal.ratio,
    };
  } finally {
    fixture.stop();
  }
}

const runs = await inFreshProcesses(import.meta.url, LOOPBACK_PROCESSES, measureHere);
const ratio = median(runs.map((r) => r.ratio));
report({
  bench: 'send-overhead',
  metric: `messages.send vs bare fetch, loopback (time ratio, ${medianOfProcesses(runs.length)})`,
  value: ratio,
  unit: 'x',
  bar: `<= ${BAR}x`,
  limit: BAR,
  pass: ratio <= BAR,
  detail: {
    sdkMsPerSend: round(median(runs.map((r) => r.subjectMs))),
    fetchMsPerSend: round(median(runs.map((r) => r.baselineMs))),
    perProcess: runs.map((r) => round(r.ratio)).join(' '),
    vsUnclonedFetch: round(median(runs.map((r) => r.vsUnclonedFetch))),
  },
});
const uncloned = median(runs.map((r) => r.vsUnclonedFetch));
report({
  bench: 'send-overhead',
  metric: `messages.send vs a bare fetch sent the same way (redirect 'error', window null), loopback (time ratio, ${medianOfProcesses(runs.length)})`,
  value: uncloned,
  unit: 'x',
  bar: `<= ${UNCLONED_BAR}x (goal ${UNCLONED_GOAL}x)`,
  limit: UNCLONED_BAR,
  pass: uncloned <= UNCLONED_BAR,
  detail: {
    perProcess: runs.map((r) => round(r.vsUnclonedFetch)).join(' '),
    vsSignalledFetch: round(median(runs.map((r) => r.vsSignalledFetch))),
    signalVsUncloned: round(median(runs.map((r) => r.signalVsUncloned))),
  },
});
