/**
 * `npm run demo`: the SDK's main job end to end, offline, with no credentials.
 *
 * 1. A webhook receiver (node:http + createNodeWebhookHandler) and the local sandbox gateway start.
 * 2. A text, a template and an interactive message are sent through GatewayClient.
 * 3. The sandbox delivers sent → delivered → read status events to the receiver, which verifies them,
 *    parses them into typed events and feeds a StatusTracker.
 * 4. The final states are printed, then a broken template is validated and its issues printed.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { GatewayClient, type OutboundMessage, validateTemplate } from '../src/index.js';
import { startSandbox } from '../src/testing/index.js';
import { createNodeWebhookHandler, StatusTracker } from '../src/webhooks/index.js';

const WEBHOOK_SECRET = 'demo-webhook-secret-0123456789abcdef';
const started = performance.now();
const elapsed = () => `${String(Math.round(performance.now() - started)).padStart(5)} ms`;

// 1. The customer's webhook endpoint.
const tracker = new StatusTracker();
const handler = createNodeWebhookHandler({
  secret: WEBHOOK_SECRET,
  onEvent: (event) => {
    if (event.kind !== 'status') return;
    const { changed, newlyBillable } = tracker.update(event);
    const notes = `${newlyBillable ? ' (billable: fee deducted)' : ''}${changed ? '' : ' (no change)'}`;
    console.log(`${elapsed()}  webhook  ${event.status.status.padEnd(11)} ${event.status.id}${notes}`);
  },
});
const receiver = createServer((req, res) => handler(req, res));
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const webhookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/webhooks`;

// 2. The local gateway, delivering to that endpoint with the gateway's retry rules.
const sandbox = await startSandbox({ webhookUrl, webhookSecret: WEBHOOK_SECRET });
console.log(`sandbox gateway at ${sandbox.url}, webhook receiver at ${webhookUrl}\n`);

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
for (const [kind, message] of messages) {
  const { messageId } = await gw.messages.send(message);
  console.log(`${elapsed()}  sent     ${kind.padEnd(11)} ${messageId}`);
}

// 3. Wait until the sandbox has delivered every status event.
await sandbox.idle();

console.log('\nFinal states (StatusTracker):');
for (const [wamid, state] of tracker.entries()) {
  console.log(
    `  ${wamid}  ${state.status.padEnd(11)} delivered=${state.delivered} billable=${state.billable}`,
  );
}
console.log(
  `  billable deliveries: ${tracker.billableCount}; webhook attempts: ${sandbox.deliveries.length}`,
);

// 4. Local template validation: every problem at once, with the server's codes and field keys.
const broken = {
  name: 'Order Update',
  language: 'en_US',
  category: 'MARKETING',
  header: { format: 'TEXT', text: '{{1}} your order' },
  body: { text: 'Hi {{1}}, your order {{2}} shipped', examples: ['Ali'] },
  buttons: [{ type: 'URL', text: 'Track', url: 'http://example.com/track' }],
};
const { valid, issues } = validateTemplate(broken);
console.log(`\nvalidateTemplate(broken): valid=${valid}, ${issues.length} issues`);
for (const issue of issues)
  console.log(`  ${(issue.code ?? '—').padEnd(10)} ${issue.field.padEnd(16)} ${issue.message}`);

await sandbox.close();
await new Promise<void>((resolve) => receiver.close(() => resolve()));
console.log(`\ndone in ${elapsed().trim()}`);
