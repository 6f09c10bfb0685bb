/**
 * A request the runtime's fetch refuses to build (a credential or a header value it cannot carry) sent nothing:
 * Node's fetch rejects it like a connection fault, and the SDK reported a `ConnectionError` that may have been sent,
 * and repeated a GET as one. Over a real server on 127.0.0.1, with Node's own fetch doing the refusing.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { mayHaveBeenSent } from '../../src/core/retry-policy.js';
import { Transport } from '../../src/core/transport.js';
import { ConnectionError, GatewayClient, NotSentError } from '../../src/index.js';
import { PLATFORM_RETRY_RULES } from '../../src/platform/retry-rules.js';
import { startServer } from '../helpers/http-server.js';

let server: Awaited<ReturnType<typeof startServer>>;
let requests = 0;

beforeAll(async () => {
  server = await startServer((_req, res) => {
    requests++;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ isSuccess: true, data: { messages: [{ id: 'wamid.1' }] } }));
  });
});
afterAll(() => server.close());
beforeEach(() => {
  requests = 0;
});

const text = { to: '998901234567', type: 'text', text: { body: 'Hi' } } as const;

/** A transport to the server whose credential is `authorization` (a platform token as the login answered it). */
const transport = (authorization: string, maxRetries = 2) =>
  new Transport({
    baseUrl: server.url,
    authorization: () => {
      credentials++;
      return authorization;
    },
    secrets: () => [],
    timeoutMs: 5000,
    maxRetries,
    maxRetryWaitMs: 1000,
    retryRules: PLATFORM_RETRY_RULES,
  });
let credentials = 0;

describe('a request the runtime’s fetch cannot build', () => {
  // '€' and U+2028 fail fetch's own Request (a bare TypeError, no code), NUL fails its Headers (whose message quotes
  // the value); '\u0001' passes both and fails undici's check of the request (UND_ERR_INVALID_ARG).
  it.each([
    ['a character beyond U+00FF', 'tok-€-secret'],
    ['U+2028', 'tok-\u2028-secret'],
    ['NUL', 'tok-\u0000-secret'],
    ['a control character', 'tok-\u0001-secret'],
  ])('with %s: a NotSentError, not repeated even for a GET, naming no value', async (_, value) => {
    credentials = 0;
    const error = await transport(`JWT ${value}`, 3)
      .json({ method: 'GET', path: '/reports/' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotSentError);
    expect(error).not.toBeInstanceOf(ConnectionError);
    expect(error).toMatchObject({ mayHaveBeenSent: false });
    expect(mayHaveBeenSent(error, PLATFORM_RETRY_RULES)).toBe(false);
    expect((error as Error).message).toMatch(/^GET \/reports\/ was not sent: .*Nothing reached the server/);
    expect((error as Error).message).not.toContain('secret');
    expect(credentials).toBe(1);
    expect(requests).toBe(0);
  });

  it('a send through a fetch of the user’s own that adds such a header: not sent, sendMany says notSent', async () => {
    let calls = 0;
    const gw = new GatewayClient({
      apiKey: 'pk_test_key',
      baseUrl: server.url,
      // A proxy's tag added by the user's fetch, after the SDK's checks.
      fetch: (input, init) => {
        calls++;
        const headers = { ...(init?.headers as Record<string, string>), 'x-proxy': 'tag-\u0001' };
        return fetch(input, { ...init, headers });
      },
      retryInFlightSends: true,
      logLevel: 'off',
    });
    await expect(gw.messages.send(text)).rejects.toBeInstanceOf(NotSentError);
    expect(calls).toBe(1);
    for await (const result of gw.messages.sendMany([text])) {
      expect(result).toMatchObject({ ok: false, notSent: true });
    }
    expect(requests).toBe(0);
  });

  it('a bare TypeError for a request that builds (a browser’s network failure) stays a fault that may be out', async () => {
    const gw = new GatewayClient({
      apiKey: 'pk_test_key',
      baseUrl: server.url,
      fetch: () => Promise.reject(new TypeError('Failed to fetch')),
      logLevel: 'off',
    });
    const error = await gw.messages.send(text).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error).toMatchObject({ mayHaveBeenSent: true });
  });

  // A fetch of the user's own that changes the init while sending (a gzip stream for the body, read once): a
  // Request can no longer be made from that init, which says nothing about what went out. Judged by it, a sent
  // message was "not sent", and sendMany and the campaign queue sent it again.
  const streamingFetch =
    (then: (input: RequestInfo | URL, init: RequestInit) => Promise<Response>) =>
    async (input: RequestInfo | URL, init?: RequestInit) => {
      const changed = init as RequestInit & { duplex?: string };
      changed.body = new Blob([String(changed.body)]).stream();
      changed.duplex = 'half';
      return then(input, changed);
    };

  it('a fetch of the user’s own that changed the init, then failed: a fault that may be out', async () => {
    const gw = new GatewayClient({
      apiKey: 'pk_test_key',
      baseUrl: server.url,
      fetch: streamingFetch(async (_input, init) => {
        await new Response(init.body).arrayBuffer(); // "sent": the stream is read and cannot be read again
        throw new TypeError('Failed to fetch');
      }),
      logLevel: 'off',
    });
    const error = await gw.messages.send(text).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error).not.toBeInstanceOf(NotSentError);
    expect(error).toMatchObject({ mayHaveBeenSent: true });
    const results = [];
    for await (const r of gw.messages.sendMany([text])) results.push(r);
    expect(results).toMatchObject([{ ok: false, notSent: false }]);
  });

  it('such a fetch, timed out while the server holds the answer: a timeout that may be out', async () => {
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const slow = await startServer(async (_req, res) => {
      await held;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
    try {
      const gw = new GatewayClient({
        apiKey: 'pk_test_key',
        baseUrl: slow.url,
        timeoutMs: 300,
        fetch: streamingFetch((input, init) => fetch(input, init)),
        logLevel: 'off',
      });
      const error = await gw.messages.send(text).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ConnectionError);
      expect(error).not.toBeInstanceOf(NotSentError);
      expect(error).toMatchObject({ name: 'TimeoutError', mayHaveBeenSent: true });
    } finally {
      release();
      await slow.close();
    }
  });
});
