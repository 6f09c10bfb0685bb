import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ConnectionError,
  GatewayClient,
  InternalServerError,
  InvalidResponseError,
  TimeoutError,
  UpstreamError,
} from '../../src/index.js';
import { captureLogger } from '../helpers/capture-logger.js';
import { type Handler, startServer } from '../helpers/http-server.js';

/** The SDK's lines in this file: the retries the faults provoke, and nothing else. */
const sdkLog = captureLogger();
afterEach(() => {
  for (const message of sdkLog.messages()) expect(message).toMatch(/^wa-gateway-sdk: retrying request/);
  sdkLog.lines.length = 0;
});

const KEY = 'pk_live_faults_0123456789abcdef01234';
const text = { to: '998901234567', type: 'text', text: { body: 'Hi' } } as const;
let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

/** Starts a gateway that behaves as `handler` says and counts the sends it received. */
async function gateway(handler: Handler) {
  const count = { sends: 0 };
  const s = await startServer((req, res, body) => {
    count.sends++;
    return handler(req, res, body);
  });
  close = s.close;
  return {
    count,
    client: (o: object = {}) =>
      new GatewayClient({ apiKey: KEY, baseUrl: s.url, rateLimit: false, logger: sdkLog.logger, ...o }),
  };
}

describe('every transport fault ends in its documented typed error, and a send is never duplicated', () => {
  it('connection reset before the answer → ConnectionError, mayHaveBeenSent, one send', async () => {
    const { count, client } = await gateway((req) => void req.socket.destroy());
    const e = await client()
      .messages.send(text)
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ConnectionError);
    expect(e).not.toBeInstanceOf(TimeoutError);
    expect(e).toMatchObject({ mayHaveBeenSent: true });
    expect(count.sends).toBe(1);
  });

  it('connection reset mid-body → ConnectionError naming the cut, one send', async () => {
    const { count, client } = await gateway((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '500' });
      res.write('{"isSuccess":true,"data":{"messages":[{"id":"wamid.');
      setTimeout(() => res.socket?.destroy(), 20);
    });
    const e = await client()
      .messages.send(text)
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ConnectionError);
    expect((e as Error).message).toMatch(/cut while reading the answer/);
    expect(e).toMatchObject({ mayHaveBeenSent: true });
    expect(count.sends).toBe(1);
  });

  it('an abort once the request is out rejects with the caller’s reason, yet the gateway has the message (docs/sending.md)', async () => {
    const stop = new AbortController();
    const reason = new Error('caller gave up');
    const received: string[] = [];
    // The gateway has read the whole message when the caller aborts; it would answer later.
    const { count, client } = await gateway((_req, _res, body) => {
      received.push(body);
      stop.abort(reason);
    });
    const e = await client()
      .messages.send(text, { signal: stop.signal })
      .catch((x: unknown) => x);
    expect(e).toBe(reason);
    expect(count.sends).toBe(1);
    expect(JSON.parse(received[0]!)).toMatchObject({ to: text.to, text: text.text });
  });

  it('a server that never answers → TimeoutError within the timeout, one send', async () => {
    const { count, client } = await gateway(() => {});
    const t0 = performance.now();
    const e = await client({ timeoutMs: 300 })
      .messages.send(text)
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(TimeoutError);
    // A failure bound (the server never answers), generous for a busy machine: not a speed test.
    expect(performance.now() - t0).toBeLessThan(300 + 5000);
    expect(count.sends).toBe(1);
  });

  it('a slow trickle of the body → TimeoutError: the timeout covers reading the body', async () => {
    const { count, client } = await gateway((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const body = JSON.stringify({ isSuccess: true, data: { messages: [{ id: 'wamid.slow' }] } });
      let i = 0;
      const timer = setInterval(() => {
        if (res.destroyed || i >= body.length) {
          clearInterval(timer);
          if (!res.destroyed) res.end();
          return;
        }
        res.write(body[i++]);
      }, 50);
    });
    const e = await client({ timeoutMs: 400 })
      .messages.send(text)
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(TimeoutError);
    expect(count.sends).toBe(1);
  });

  it('500 with an HTML body → InternalServerError with an excerpt, one send', async () => {
    const { count, client } = await gateway((_req, res) => {
      res.writeHead(500, { 'content-type': 'text/html' }).end('<html><h1>Internal Server Error</h1></html>');
    });
    const e = await client()
      .messages.send(text)
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(InternalServerError);
    expect((e as InternalServerError).description).toContain('Internal Server Error');
    expect(count.sends).toBe(1);
  });

  it('502 with an HTML body → UpstreamError, one send', async () => {
    const { count, client } = await gateway(
      (_req, res) => void res.writeHead(502).end('<html>Bad Gateway</html>'),
    );
    await expect(client().messages.send(text)).rejects.toBeInstanceOf(UpstreamError);
    expect(count.sends).toBe(1);
  });

  it('truncated JSON in a 200 → InvalidResponseError, one send', async () => {
    const { count, client } = await gateway((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"isSuccess":true,"data":{"mess');
    });
    await expect(client().messages.send(text)).rejects.toBeInstanceOf(InvalidResponseError);
    expect(count.sends).toBe(1);
  });

  it('a GET (media) reset before the answer is retried: it has no effect to repeat', async () => {
    const { count, client } = await gateway((req, res) => {
      if (count.sends < 3) return void req.socket.destroy();
      res.writeHead(200, { 'content-type': 'image/png' }).end('png');
    });
    const file = await client().media.download('m', { phoneNumberId: 'p' });
    expect(new TextDecoder().decode(await file.arrayBuffer())).toBe('png');
    expect(count.sends).toBe(3);
  });

  it('connection refused → ConnectionError saying nothing reached the server, and it is retried', async () => {
    // Reserve a port, then close it so nothing listens there.
    const port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });
    // A logger of its own: lines to one destination fold into one burst, and the previous test's retries (to
    // sdkLog) may still be one when this test's only retry line comes.
    const own = captureLogger();
    const gw = new GatewayClient({
      apiKey: KEY,
      baseUrl: `http://127.0.0.1:${port}`,
      maxRetries: 1,
      logger: own.logger,
    });
    const e = await gw.messages.send(text).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ConnectionError);
    expect(e).toMatchObject({ mayHaveBeenSent: false, errno: 'ECONNREFUSED' });
    expect((e as Error).message).toMatch(/Nothing reached the server/);
    expect(own.messages()).toEqual(['wa-gateway-sdk: retrying request']);
  });
});
