/**
 * Bar (issue 25): a checked template send costs at most 5% more than sending the same body unchecked. Loopback
 * sends to the echo gateway in a child process, the built package as users run it, each row a ratio of two
 * interleaved sides in the same run:
 * - `sendTemplate` (components built from the values, checked against the definition and an in-memory catalogue)
 *   against `send` of the same body on a client without a catalogue: at most 1.05×;
 * - `send` of that body through a client with the catalogue (the raw body checked) against the same: at most 1.05×.
 */
import { existsSync } from 'node:fs';
import type * as Sdk from '../src/index.js';
import { orderShippedDefinition } from '../test/helpers/template-definitions.js';
import { spawnFixture } from './fixtures/spawn.js';
import {
  compare,
  inFreshProcesses,
  LOOPBACK_PROCESSES,
  median,
  medianOfProcesses,
  report,
  round,
} from './lib.js';

/** The bar; `limit` lets the quick CI pass apply its margin for a busy machine, as every timed bench does. */
const BAR = 1.05;

const KEY = 'pk_live_bench_0123456789abcdef';
const dist = new URL('../dist/index.js', import.meta.url);
if (!existsSync(dist)) throw new Error('dist/ is missing: run `npm run build` first.');
const { GatewayClient, TemplateCatalog, defineTemplate } = (await import(dist.href)) as typeof Sdk;

// The template tests' definition (its quick-reply button takes no value here, so the body is the same).
const orderShipped = defineTemplate(orderShippedDefinition);
const values = { header: '#1042', body: ['Ali', '#1042'], buttons: { 0: '1042' } } as const;
const text = (t: string) => ({ type: 'text', text: t }) as const;
const sameBody = {
  to: '998901234567',
  type: 'template',
  template: {
    name: 'order_shipped',
    language: { code: 'en_US' },
    components: [
      { type: 'header', parameters: [text('#1042')] },
      { type: 'body', parameters: [text('Ali'), text('#1042')] },
      { type: 'button', sub_type: 'url', index: '0', parameters: [text('1042')] },
    ],
  },
} as const;

type Row = { metric: string; ratio: number; subjectMs: number; baselineMs: number };

async function measureHere(): Promise<Row[]> {
  const fixture = await spawnFixture('echo-gateway');
  try {
    const catalog = new TemplateCatalog({ definitions: [orderShipped] });
    await catalog.record({ name: 'order_shipped', language: 'en_US', status: 'APPROVED' });
    const options = { apiKey: KEY, baseUrl: fixture.url, rateLimit: false, logLevel: 'off' } as const;
    const plain = new GatewayClient(options);
    const checked = new GatewayClient({ ...options, templates: catalog });
    const baseline = async () => (await plain.messages.send(sameBody)).messageId;
    const rows = [
      {
        metric: 'sendTemplate (catalogue) vs send of the same body (no catalogue), loopback',
        subject: async () =>
          (await checked.messages.sendTemplate('998901234567', orderShipped, values)).messageId,
      },
      {
        metric: 'send of a template body with vs without a catalogue, loopback',
        subject: async () => (await checked.messages.send(sameBody)).messageId,
      },
    ];
    const out: Row[] = [];
    for (const row of rows) {
      const { ratio, subjectMs, baselineMs } = await compare(row.subject, baseline, {
        iterations: 50,
        rounds: 61,
      });
      out.push({ metric: row.metric, ratio, subjectMs, baselineMs });
    }
    return out;
  } finally {
    fixture.stop();
  }
}

const runs = await inFreshProcesses(import.meta.url, LOOPBACK_PROCESSES, measureHere);
runs[0]!.forEach(({ metric }, i) => {
  const ratio = median(runs.map((r) => r[i]!.ratio));
  report({
    bench: 'checked-sends',
    metric: `${metric} (time ratio, ${medianOfProcesses(runs.length)})`,
    value: ratio,
    unit: 'x',
    bar: `<= ${BAR}x`,
    limit: BAR,
    pass: ratio <= BAR,
    detail: {
      subjectMsPerSend: round(median(runs.map((r) => r[i]!.subjectMs))),
      baselineMsPerSend: round(median(runs.map((r) => r[i]!.baselineMs))),
      perProcess: runs.map((r) => round(r[i]!.ratio)).join(' '),
    },
  });
});
