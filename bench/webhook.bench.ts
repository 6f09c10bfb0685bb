/**
 * Webhook bench: what the SDK adds to receiving one delivery. Subject: `verifyAuthorization` of the Bearer header
 * plus `parseWebhook` (JSON parse, envelope walk, zod validation of every item, event construction). Baseline: a bare
 * `JSON.parse` of the same body plus a constant-time compare of the same secret with `crypto.timingSafeEqual`
 * (Node's; only the baseline uses Node). Bar (DESIGN.md, issue 13): at most 2x.
 *
 * Run: `npx tsx bench/webhook.bench.ts`
 */
import { timingSafeEqual } from 'node:crypto';
import {
  messageEnvelope,
  statusEnvelope,
  statusObject,
  textMessage,
} from '../src/testing/webhook-fixtures.js';
import { parseWebhook, verifyAuthorization } from '../src/webhooks/index.js';
import { compare, QUICK, report } from './lib.js';

const BAR = 2;
const secret = 'wh_9f8e7d6c5b4a39281706f5e4d3c2b1a0ZyXwVuTsRq';
const header = `Bearer ${secret}`;
const secretBytes = Buffer.from(secret);

// A realistic text delivery of a few KB: a long-ish message (a user pasting an address and order details), the
// sender contact and the receiving number's metadata.
const longText = Array.from(
  { length: 24 },
  (_, i) => `Line ${i + 1}: please deliver the order to the back entrance, ring twice, call on arrival.`,
).join('\n');
const textBody = JSON.stringify(
  messageEnvelope(
    textMessage({ text: { body: longText }, context: { from: '15550009999', id: 'wamid.ctx01' } }),
  ),
);
// A status batch: 20 statuses (sent, delivered with pricing, read, one failed) in one change.
const statuses = Array.from({ length: 20 }, (_, i) =>
  statusObject(i === 19 ? 'failed' : (['sent', 'delivered', 'read'] as const)[i % 3]!, {
    timestamp: String(1700000000 + i),
  }),
);
const statusBody = JSON.stringify(statusEnvelope(statuses));

function baseline(body: string): () => unknown {
  return () => {
    const token = Buffer.from(header.slice(7));
    const ok = token.length === secretBytes.length && timingSafeEqual(token, secretBytes);
    return ok ? JSON.parse(body) : null;
  };
}

function subject(body: string): () => unknown {
  return () => (verifyAuthorization(header, secret) ? parseWebhook(body) : null);
}

// Sanity: the subject does the work it claims.
if (parseWebhook(textBody).length !== 1 || parseWebhook(statusBody).length !== 20) {
  throw new Error('bench fixture did not parse to the expected events');
}

for (const [name, body, iterations] of [
  ['text message', textBody, 4000],
  ['20-status batch', statusBody, 1000],
] as const) {
  const { ratio, subjectMs, baselineMs } = await compare(subject(body), baseline(body), {
    iterations: QUICK ? iterations / 4 : iterations,
    rounds: QUICK ? 7 : 9,
  });
  report({
    bench: 'webhook',
    metric: `verify+parse (${name}, ${(body.length / 1024).toFixed(1)} KB) vs JSON.parse+timingSafeEqual`,
    value: ratio,
    unit: 'x',
    bar: `<= ${BAR}x`,
    limit: BAR,
    pass: ratio <= BAR,
    detail: {
      bodyBytes: body.length,
      subjectUs: Math.round(subjectMs * 1000 * 100) / 100,
      baselineUs: Math.round(baselineMs * 1000 * 100) / 100,
    },
  });
}
