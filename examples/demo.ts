/**
 * `npm run demo`: the SDK's main job end to end, offline, with no credentials. Read this file next to its
 * output: each phase prints a headline with its number here.
 *
 * 1. A webhook receiver (node:http + createNodeWebhookHandler) and the local sandbox gateway start.
 * 2. A text, a template and an interactive message go through GatewayClient; the gateway *accepts* each one
 *    (accepted is not delivered: it answers with the message id, the wamid).
 * 3. The sandbox delivers the `sent`, `delivered` and `read` status events of each message to the receiver,
 *    which checks the secret, parses them into typed events and feeds a StatusTracker.
 * 4. The final state of each message, as the StatusTracker keeps it.
 * 5. A broken template is validated locally and every issue printed.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GatewayClient, type OutboundMessage, validateTemplate } from '../src/index.js';
import { startSandbox } from '../src/testing/index.js';
import { createNodeWebhookHandler, StatusTracker } from '../src/webhooks/index.js';

const WEBHOOK_SECRET = 'demo-webhook-secret-0123456789abcdef';
const started = performance.now();
const elapsed = () => `${String(Math.round(performance.now() - started)).padStart(5)} ms`;
const headline = (text: string) => console.log(`\n== ${text}\n`);

// 1. The customer's webhook endpoint.
headline('1. Start a webhook receiver (yours) and the sandbox gateway (local, no credentials)');
const tracker = new StatusTracker();
const handler = createNodeWebhookHandler({
  secret: WEBHOOK_SECRET,
  onEvent: (event) => {
    if (event.kind !== 'status') return;
    const { changed, newlyBillable } = tracker.update(event);
    const notes = `${newlyBillable ? ' (billable: fee deducted)' : ''}${changed ? '' : ' (no change)'}`;
    console.log(`${elapsed()}  webhook: status ${event.status.status.padEnd(9)} ${event.status.id}${notes}`);
  },
});
const receiver = createServer((req, res) => handler(req, res));
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const webhookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/webhooks`;

// 2. The local gateway, delivering to that endpoint with the gateway's retry rules.
const sandbox = await startSandbox({ webhookUrl, webhookSecret: WEBHOOK_SECRET });
console.log(`sandbox gateway at ${sandbox.url}\nwebhook receiver at ${webhookUrl}`);

const gw = new GatewayClient({ apiKey: 'sk_test_sandbox', baseUrl: sandbox.url });
const to = '998901234567';
const messages: [string, OutboundMessage][] = [
  ['text', { to, type: 'text', text: { body: 'Your order #1042 has shipped.' } }],
  [
    'template',
    {
      to,
      type: 'template',
      template: {
        name: 'order_update',
        language: { code: 'en_US' },
        components: [{ type: 'body', parameters: [{ type: 'text', text: '#1042' }] }],
      },
    },
  ],
  [
    'interactive',
    {
      to,
      type: 'interactive',
      interactive: {
        type: 'button',
        body: { text: 'Was the delivery on time?' },
        action: {
          buttons: [
            { type: 'reply', reply: { id: 'on_time', title: 'Yes' } },
            { type: 'reply', reply: { id: 'late', title: 'No' } },
          ],
        },
      },
    },
  ],
];
headline('2. Send three messages: the gateway accepts each and answers its wamid');
for (const [kind, message] of messages) {
  const { messageId } = await gw.messages.send(message);
  console.log(`${elapsed()}  accepted: ${kind.padEnd(21)} ${messageId}`);
}

// 3. Wait until the sandbox has delivered every status event.
headline(
  '3. Status webhooks arrive: sent, delivered (billable), read; the spec does not promise their order',
);
await sandbox.idle();

headline('4. The state of each message, as the StatusTracker keeps it');
for (const [wamid, state] of tracker.entries()) {
  console.log(
    `  ${wamid}  ${state.status.padEnd(11)} delivered=${state.delivered} billable=${state.billable}`,
  );
}
console.log(
  `  billable deliveries: ${tracker.billableCount}; webhook attempts: ${sandbox.deliveries.length}`,
);

// 5. Local template validation: every problem at once, with the server's codes and field keys.
headline('5. Validate a broken template locally: every issue at once, before any request');
const broken = {
  name: 'Order Update',
  language: 'en_US',
  category: 'MARKETING',
  header: { format: 'TEXT', text: '{{1}} your order' },
  body: { text: 'Hi {{1}}, your order {{2}} shipped', examples: ['Ali'] },
  buttons: [{ type: 'URL', text: 'Track', url: 'http://example.com/track' }],
};
const { valid, issues } = validateTemplate(broken);
console.log(`validateTemplate(broken): valid=${valid}, ${issues.length} issues`);
// The server's code where the spec names one, else the SDK's rule id (as `wa-gateway validate-template` does).
const width = Math.max(...issues.map((i) => (i.code ?? i.rule).length));
for (const issue of issues)
  console.log(`  ${(issue.code ?? issue.rule).padEnd(width)}  ${issue.field.padEnd(16)} ${issue.message}`);

await sandbox.close();
await new Promise<void>((resolve) => receiver.close(() => resolve()));
console.log(`\ndone in ${elapsed().trim()}`);
console.log(`
Next steps:
  - read this demo's code: examples/demo.ts
  - send from your app: docs/getting-started.md, docs/sending.md
  - receive webhooks in Express, Fastify, Hono or Next.js: docs/webhooks.md
  - test without credentials (msw handlers, the sandbox): docs/testing.md
  - watch sends in a browser and answer as the customer: npx wa-gateway sandbox, then open http://127.0.0.1:4010/
  - talk to a booking bot in the web inbox (conversations router, on Redis): redis-server --daemonize yes && npm run demo:booking
  - the CLI (validate-template, trigger, sandbox, stream, templates, campaign): npx wa-gateway --help`);
