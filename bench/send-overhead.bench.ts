/**
 * Bar: `messages.send` against a loopback server costs at most 1.10× a bare `fetch` of the same request (goal 1.05×).
 * Both sides send the same JSON with the same headers and read the JSON answer; the server runs in a child
 * process. The SDK side includes validation, the transport, error mapping and result parsing (rate limiting
 * off: its waits are not overhead and are measured by rate-limiter.bench.ts).
 */
import { existsSync } from 'node:fs';
import type { GatewayClient as GatewayClientType, OutboundMessage } from '../src/index.js';
import { spawnFixture } from './fixtures/spawn.js';
import { compare, QUICK, report, round } from './lib.js';

const KEY = 'pk_live_bench_0123456789abcdef';
const BAR = 1.1;
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

const fixture = await spawnFixture('echo-gateway');
try {
  const gw = new GatewayClient({ apiKey: KEY, baseUrl: fixture.url, rateLimit: false });
  const url = `${fixture.url}/v1/wa/message`;
  // The baseline is what a careful caller would write by hand: serialise, POST, read the JSON answer.
  const bare = async () => {
    const res = await fetch(url, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${KEY}`,
        'content-type': 'application/json',
        accept: 'application/json',
      },
      body: JSON.stringify({ messaging_product: 'whatsapp', ...message }),
    });
    const json = (await res.json()) as { data: { messages: { id: string }[] } };
    return json.data.messages[0]?.id;
  };
  const sdk = async () => (await gw.messages.send(message)).messageId;
  // Many short interleaved rounds (50 sends a side, ~25 ms): drift in machine load hits both sides alike, and
  // the median of 121 ratios is stable to about ±2% on this 2-core machine (blocks of 400 varied ±10%).
  const { ratio, subjectMs, baselineMs } = await compare(sdk, bare, {
    iterations: 50,
    rounds: QUICK ? 41 : 121,
  });
  report({
    bench: 'send-overhead',
    metric: 'messages.send vs bare fetch, loopback (time ratio)',
    value: ratio,
    unit: 'x',
    bar: `<= ${BAR}x`,
    limit: BAR,
    pass: ratio <= BAR,
    detail: { sdkMsPerSend: round(subjectMs), fetchMsPerSend: round(baselineMs) },
  });
} finally {
  fixture.stop();
}
