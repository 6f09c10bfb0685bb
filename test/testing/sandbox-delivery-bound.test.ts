import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { ConfigurationError, GatewayClient } from '../../src/index.js';
import { type Sandbox, startSandbox } from '../../src/testing/index.js';
import { closeAll } from '../helpers/close-all.js';
import { waitFor } from '../helpers/manual-clock.js';

let sandbox: Sandbox | undefined;
let receiver: Server | undefined;
afterEach(async () => {
  await closeAll(sandbox, receiver);
  sandbox = receiver = undefined;
});

it('holds its webhook deliveries in flight to maxDeliveriesInFlight; the others wait their turn, none is lost', async () => {
  // An endpoint that answers only when the test lets it: what is open at once is what the sandbox sent at once.
  const open: ServerResponse[] = [];
  let answered = 0;
  let most = 0;
  receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      open.push(res);
      most = Math.max(most, open.length);
    });
  });
  await new Promise<void>((r) => receiver!.listen(0, '127.0.0.1', r));
  sandbox = await startSandbox({
    webhookUrl: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/`,
    webhookSecret: 'sandbox-bound-secret-0123456789abcdefgh',
    statusDelaysMs: [0, 0, 0],
    ackTimeoutMs: 60_000,
    maxDeliveriesInFlight: 2,
  });
  const gw = new GatewayClient({ apiKey: 'sk_test_sandbox', baseUrl: sandbox.url });
  for (const to of ['998901234501', '998901234502', '998901234503']) {
    await gw.messages.send({ to, type: 'text', text: { body: 'Hi' } });
  }
  // Nine statuses due at once; answered two at a time.
  while (answered < 9) {
    await waitFor(() => open.length === Math.min(2, 9 - answered), 'the next deliveries', 30_000);
    expect(open.length).toBeLessThanOrEqual(2);
    const res = open.shift()!;
    res.writeHead(200).end();
    answered++;
  }
  await sandbox.idle();
  expect(most).toBe(2);
  expect(sandbox.deliveries.filter((d) => d.outcome === 'delivered')).toHaveLength(9);
});

it('refuses a maxDeliveriesInFlight that is not a whole number of 1 or more, and takes Infinity (no bound)', async () => {
  for (const bad of [0, -1, 1.5, Number.NaN]) {
    await expect(startSandbox({ maxDeliveriesInFlight: bad })).rejects.toBeInstanceOf(ConfigurationError);
  }
  sandbox = await startSandbox({ maxDeliveriesInFlight: Number.POSITIVE_INFINITY });
});
