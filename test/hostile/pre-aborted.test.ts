/**
 * A caller's signal that is already aborted when the call starts stops the call before any byte leaves: no
 * request (and no platform login on its behalf) reaches the server, and the call rejects with the caller's own
 * reason. An already-aborted signal never fires `abort` again, so a listener alone cannot see it.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { GatewayClient, PlatformClient, PublicApiClient } from '../../src/index.js';
import { startServer } from '../helpers/http-server.js';

let server: Awaited<ReturnType<typeof startServer>>;
const received: string[] = [];
beforeAll(async () => {
  server = await startServer((req, res) => {
    received.push(`${req.method} ${req.url}`);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(req.url === '/jwt/' ? JSON.stringify({ token: 'header.payload.signature' }) : '{}');
  });
});
afterAll(() => server.close());
beforeEach(() => {
  received.length = 0;
});

const CONV = '123e4567-e89b-12d3-a456-426614174000';
const gateway = (rateLimit: boolean) =>
  new GatewayClient({
    apiKey: 'gw_key_0123456789abcdef',
    baseUrl: server.url,
    maxRetries: 0,
    ...(rateLimit ? {} : { rateLimit: false }),
  });
const publicApi = () =>
  new PublicApiClient({ secretKey: 'sk_0123456789abcdef', baseUrl: `${server.url}/api/v1`, maxRetries: 0 });
const platform = () =>
  new PlatformClient({
    platformUrl: server.url,
    streamUrl: server.url,
    username: 'ops@example.com',
    password: 'platform-pass-0123456789',
    maxRetries: 0,
  });

const text = { to: '998901234567', type: 'text', text: { body: 'hi' } } as const;
const calls: [string, (signal: AbortSignal) => Promise<unknown>][] = [
  ['gateway messages.send, default limiter', (signal) => gateway(true).messages.send(text, { signal })],
  ['gateway messages.send, rateLimit: false', (signal) => gateway(false).messages.send(text, { signal })],
  [
    'gateway media.download',
    (signal) => gateway(false).media.download('m1', { phoneNumberId: 'PN', signal }),
  ],
  [
    'public API templates.create',
    (signal) =>
      publicApi().templates.create(
        'app_1',
        {
          name: 'order_shipped',
          language: 'en_US',
          category: 'UTILITY',
          body: { text: 'Order {{1}} has shipped.', examples: ['#1042'] },
        },
        { signal },
      ),
  ],
  [
    'public API request POST',
    (signal) => publicApi().request('POST', '/wa/app1/templates', { body: {}, signal }),
  ],
  [
    'platform conversations.archive (lazy login)',
    (signal) => platform().conversations.archive(CONV, { signal }),
  ],
  [
    'platform messages.send',
    (signal) => platform().messages.send(CONV, [{ type: 'text', content: 'hi' }], { signal }),
  ],
];

describe('an already-aborted signal', () => {
  it.each(calls)('%s: rejects with the caller reason and sends nothing', async (_, call) => {
    const controller = new AbortController();
    const reason = new Error('the user cancelled before the call');
    controller.abort(reason);
    await expect(call(controller.signal)).rejects.toBe(reason);
    expect(received).toEqual([]);
  });

  it('a platform call aborted after its login still sends nothing but the login', async () => {
    const client = platform();
    await client.auth.login();
    received.length = 0;
    const controller = new AbortController();
    controller.abort('stop');
    await expect(client.conversations.archive(CONV, { signal: controller.signal })).rejects.toBe('stop');
    expect(received).toEqual([]);
  });
});
