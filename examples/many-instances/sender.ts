/**
 * Many instances, part 3 of 3: the sender. Sends text messages through the gateway; their delivery receipts come
 * back as webhooks to the receivers and end up in the worker's tracker.
 *
 * It uses a plain `GatewayClient`, whose 80 sends/s limit holds for this one process only: with several senders,
 * give each a share of the limit (`rateLimit`) or use the shared limiter of `wa-gateway-sdk/redis` (see
 * docs/running-many-instances.md).
 *
 * Run:  GATEWAY_API_KEY=... GATEWAY_BASE_URL=... npx tsx examples/many-instances/sender.ts 998901234567 998901234568
 *
 * In your app, import from 'wa-gateway-sdk' instead of '../../src/index.js'.
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { GatewayClient } from '../../src/index.js';

export interface SendOptions {
  apiKey: string;
  baseUrl: string;
  to: readonly string[];
  text?: string;
}

/** Sends one text message to each recipient; answers the message ids of the ones the gateway accepted. */
export async function sendAll(options: SendOptions): Promise<string[]> {
  const gw = new GatewayClient({ apiKey: options.apiKey, baseUrl: options.baseUrl });
  const ids: string[] = [];
  const messages = options.to.map((to) => ({
    to,
    type: 'text' as const,
    text: { body: options.text ?? 'Your order has shipped.' },
  }));
  for await (const result of gw.messages.sendMany(messages, { concurrency: 8 })) {
    if (result.ok) ids.push(result.messageId);
    else console.error(`not sent to recipient #${result.index}: ${result.error.name}`);
  }
  return ids;
}

export async function main(argv = process.argv.slice(2), env = process.env): Promise<string[]> {
  const ids = await sendAll({
    apiKey: env.GATEWAY_API_KEY ?? '',
    baseUrl: env.GATEWAY_BASE_URL ?? '',
    to: argv,
  });
  console.log(`sent ${ids.length} of ${argv.length}`);
  return ids;
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) await main();
