/**
 * The public testing helpers meet bad input as the rest of the SDK does: a `ConfigurationError` naming the option,
 * thrown before anything is sent or listened on, never a retried "connection error", a `TypeError` or a sandbox no
 * send can reach.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import { ConfigurationError } from '../../src/index.js';
import {
  createGatewayHandlers,
  createPublicApiHandlers,
  deliverWebhook,
  GatewaySimulator,
  startSandbox,
} from '../../src/testing/index.js';
import { cliIo } from '../helpers/cli-io.js';
import { startServer } from '../helpers/http-server.js';

let requests = 0;
let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

/** A receiver that counts what reaches it and answers 200. */
async function receiver(): Promise<string> {
  requests = 0;
  const server = await startServer((_req, res) => {
    requests++;
    res.writeHead(200).end();
  });
  close = server.close;
  return server.url;
}

describe('deliverWebhook', () => {
  it.each([
    ['not a url', { url: 'not a url' }, '`url` is not a valid URL'],
    ['another scheme', { url: 'ftp://127.0.0.1/hook' }, "must be an http(s) URL; its scheme is 'ftp:'"],
    ['no url', { url: undefined }, '`url` is required'],
    ['a secret with a line break', { secret: 'a\nb' }, '`secret` must be a string of visible ASCII'],
    ['an empty secret', { secret: '' }, '`secret` is required'],
    ['a NaN timeout', { ackTimeoutMs: Number.NaN }, '`ackTimeoutMs` must be a positive number'],
    ['a zero timeout', { ackTimeoutMs: 0 }, '`ackTimeoutMs` must be a positive number'],
    ['no attempt', { retryDelaysMs: [] }, '`retryDelaysMs` must be a non-empty list'],
    ['a negative delay', { retryDelaysMs: [0, -1] }, '`retryDelaysMs` must be a non-empty list'],
    ['an endless delay', { retryDelaysMs: [0, Number.POSITIVE_INFINITY] }, '`retryDelaysMs` must be'],
  ])('refuses %s with a ConfigurationError, and sends nothing', async (_what, bad, message) => {
    const url = `${await receiver()}/hook`;
    const attempt = deliverWebhook('{}', { url, ...bad } as never);
    await expect(attempt).rejects.toThrow(ConfigurationError);
    await expect(attempt).rejects.toThrow(message);
    expect(requests).toBe(0);
  });

  it('refuses a URL with credentials, never sending them (nor the secret) anywhere', async () => {
    const url = (await receiver()).replace('http://', 'http://user:pw@');
    const attempt = deliverWebhook('{}', { url: `${url}/hook`, secret: 'whsec_0123456789abcdef' });
    await expect(attempt).rejects.toThrow(ConfigurationError);
    await expect(attempt).rejects.toThrow('must not carry credentials');
    await expect(attempt).rejects.not.toThrow('pw');
    expect(requests).toBe(0);
  });

  it('takes a URL with a query (a receiver that reads a token there)', async () => {
    const url = `${await receiver()}/hook?token=abc`;
    const attempts = await deliverWebhook('{}', { url });
    expect(attempts.map((a) => a.outcome)).toEqual(['delivered']);
    expect(requests).toBe(1);
  });
});

describe('startSandbox', () => {
  it.each([
    ['a webhook URL that is not one', { webhookUrl: 'garbage' }, '`webhookUrl` is not a valid URL'],
    ['an ftp webhook URL', { webhookUrl: 'ftp://x' }, '`webhookUrl` must be an http(s) URL'],
    ['a webhook URL with credentials', { webhookUrl: 'http://u:p@127.0.0.1/' }, 'must not carry credentials'],
    ['a secret no header can carry', { webhookSecret: 'a b' }, '`webhookSecret` must be a string'],
    ['no API key', { apiKeys: [] }, '`apiKeys` must list at least one key'],
    ['an API key no header can carry', { apiKeys: ['sk test'] }, '`apiKeys[0]` must be a string'],
    ['a negative port', { port: -1 }, '`port` must be a whole number from 0 to 65535'],
    ['a port too high', { port: 65536 }, '`port` must be a whole number from 0 to 65535'],
    ['a fractional port', { port: 1.5 }, '`port` must be a whole number from 0 to 65535'],
    ['a rate of 0', { ratePerSecond: 0 }, '`ratePerSecond` must be a finite number above 0'],
    ['a NaN timeout', { ackTimeoutMs: Number.NaN }, 'startSandbox: `ackTimeoutMs`'],
    ['a NaN fee', { feePerDelivery: Number.NaN }, '`feePerDelivery` must be a finite number of 0 or more'],
    ['a negative fee', { feePerDelivery: -1 }, '`feePerDelivery` must be a finite number of 0 or more'],
    ['a NaN balance', { balance: Number.NaN }, '`balance` must be a number'],
  ])('refuses %s with a ConfigurationError before it listens', async (_what, bad, message) => {
    const start = startSandbox(bad as never);
    await expect(start).rejects.toThrow(ConfigurationError);
    await expect(start).rejects.toThrow(message);
  });
});

describe('createGatewayHandlers, createPublicApiHandlers and GatewaySimulator', () => {
  it('a missing or malformed baseUrl is a ConfigurationError naming it, not a TypeError', () => {
    expect(() => createGatewayHandlers({} as never)).toThrow(
      new ConfigurationError("createGatewayHandlers: `baseUrl` is required, e.g. 'https://gw.example.com'."),
    );
    expect(() => createGatewayHandlers(undefined as never)).toThrow(ConfigurationError);
    expect(() => createGatewayHandlers({ baseUrl: 'garbage' })).toThrow(
      'createGatewayHandlers: `baseUrl` is not a valid URL',
    );
    expect(() => createGatewayHandlers({ baseUrl: 'https://gw.test', apiKeys: [] })).toThrow(
      'createGatewayHandlers: `apiKeys` must list at least one key',
    );
    expect(() => createPublicApiHandlers({ baseUrl: 'ftp://api.test' })).toThrow(
      "createPublicApiHandlers: `baseUrl` must be an http(s) URL; its scheme is 'ftp:'.",
    );
  });

  it.each([-1, 0, Number.NaN, Number.POSITIVE_INFINITY])(
    'new GatewaySimulator({ ratePerSecond: %s }) is refused',
    (rate) => {
      expect(() => new GatewaySimulator({ ratePerSecond: rate })).toThrow(
        `new GatewaySimulator: \`ratePerSecond\` must be a finite number above 0 (the gateway's is 80); got ${rate}.`,
      );
    },
  );
});

describe('an option given as undefined takes its documented default (as `ratePerSecond: config.rate` does)', () => {
  const text = JSON.stringify({
    messaging_product: 'whatsapp',
    to: '998901234567',
    type: 'text',
    text: { body: 'Hi' },
  });
  const send = (simulator: GatewaySimulator) =>
    simulator.send({ authorization: 'Bearer sk_test_sandbox', query: new URLSearchParams(), body: text })
      .status;
  const unset = {
    apiKeys: undefined,
    ratePerSecond: undefined,
    feePerDelivery: undefined,
    balance: undefined,
  };

  it('startSandbox: the default key sends over HTTP, and 80 a second before RATE_001', async () => {
    const sandbox = await startSandbox(unset);
    close = () => sandbox.close();
    const res = await fetch(`${sandbox.url}/v1/wa/message`, {
      method: 'POST',
      headers: { authorization: 'Bearer sk_test_sandbox', 'content-type': 'application/json' },
      body: text,
    });
    expect(res.status).toBe(200);
    // Synchronous sends: all in one second, whatever the machine's speed.
    const statuses = Array.from({ length: 80 }, () => send(sandbox.simulator));
    expect(statuses.filter((s) => s === 200)).toHaveLength(79);
    expect(statuses.at(-1)).toBe(429);
  });

  it.each([
    [
      'createGatewayHandlers',
      () => createGatewayHandlers({ baseUrl: 'https://gw.test', ...unset, balance: 1 }).simulator,
    ],
    ['new GatewaySimulator', () => new GatewaySimulator({ ...unset, balance: 1 })],
  ])('%s: the default key, and the default fee spends the balance', (_where, make) => {
    const simulator = make();
    expect(send(simulator)).toBe(200);
    simulator.chargeDelivery();
    expect(simulator.balance).toBe(0);
    expect(send(simulator)).toBe(402);
  });

  it('the sandbox keeps its own template registry when `templateRegistry` is given as undefined', async () => {
    const sandbox = await startSandbox({ templateRegistry: undefined });
    close = () => sandbox.close();
    const template = {
      name: 'order_shipped',
      language: 'en_US',
      category: 'UTILITY',
      body: { text: 'Shipped.' },
    };
    expect(sandbox.submitTemplate('app_1', JSON.stringify(template)).created).toBeDefined();
    // Created, not yet approved: the upstream refuses a send of it, as the sandbox's registry says.
    const answer = sandbox.simulator.send({
      authorization: 'Bearer sk_test_sandbox',
      query: new URLSearchParams(),
      body: JSON.stringify({
        messaging_product: 'whatsapp',
        to: '998901234567',
        type: 'template',
        template: { name: 'order_shipped', language: { code: 'en_US' } },
      }),
    });
    expect(answer).toMatchObject({ status: 502, body: { errors: { code: 'GW_001' } } });
  });
});

describe('the CLI applies the same rules to its flags (exit 2)', () => {
  it.each([
    [
      ['trigger', 'message.text', '--url', 'http://u:pw@127.0.0.1:9/hook'],
      '--url must not carry credentials',
    ],
    [['trigger', 'message.text', '--url', 'ftp://127.0.0.1/hook'], '--url must be an http(s) URL'],
    [['sandbox', '--webhook-url', 'http://'], '--webhook-url is not a valid URL'],
    [['sandbox', '--webhook-url', 'http://u:pw@127.0.0.1/'], '--webhook-url must not carry credentials'],
    [['sandbox', '--port', ''], "--port must be 0 to 65535; got ''."],
    [['sandbox', '--port', '0x10'], "--port must be 0 to 65535; got '0x10'."],
  ])('%j', async (args, message) => {
    const t = cliIo();
    expect(await runCli(args, t.io)).toBe(2);
    expect(t.out.stderr).toContain(message);
    expect(t.out.stderr).not.toContain('pw@');
  });
});
