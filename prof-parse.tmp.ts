import { messageEnvelope, statusEnvelope, statusObject, textMessage } from '/work/s35/src/webhooks/fixtures.js';
import { parseWebhook, verifyAuthorization } from '/work/s35/src/webhooks/index.js';
const longText = Array.from({ length: 24 }, (_, i) => `Line ${i + 1}: please deliver the order to the back entrance, ring twice, call on arrival.`).join('\n');
const textBody = JSON.stringify(messageEnvelope(textMessage({ text: { body: longText }, context: { from: '15550009999', id: 'wamid.ctx01' } })));
const statuses = Array.from({ length: 20 }, (_, i) => statusObject(i === 19 ? 'failed' : (['sent', 'delivered', 'read'] as const)[i % 3]!, { timestamp: String(1700000000 + i) }));
const statusBody = JSON.stringify(statusEnvelope(statuses));
const body = process.env.B === 'status' ? statusBody : textBody;
const secret = 'wh_9f8e7d6c5b4a39281706f5e4d3c2b1a0ZyXwVuTsRq';
let n = 0;
const t0 = performance.now();
while (performance.now() - t0 < 4000) { for (let i = 0; i < 1000; i++) { if (verifyAuthorization(`Bearer ${secret}`, secret)) n += parseWebhook(body).length; } }
console.log(n);
