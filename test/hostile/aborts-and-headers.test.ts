/**
 * Over real sockets: every body-reading path rejects with the caller's own abort reason, and a server that echoes a
 * credential (as is, or base64) in any response header the SDK reads never gets it into an error.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import {
  ConnectionError,
  GatewayClient,
  type MediaDownload,
  PlatformClient,
  PublicApiClient,
} from '../../src/index.js';
import { captureLogger } from '../helpers/capture-logger.js';
import { type Handler, startServer } from '../helpers/http-server.js';

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});
async function serve(handler: Handler): Promise<string> {
  const s = await startServer(handler);
  close = s.close;
  return s.url;
}

const dir = await mkdtemp(join(tmpdir(), 'sec-aborts-'));
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('aborts keep the caller reason on every body-reading path', () => {
  /** Sends headers and a first chunk, then holds the body open until the client goes away. */
  const trickle: Handler = (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/octet-stream' });
    res.write('first-chunk');
  };
  const reading: [string, (file: MediaDownload) => Promise<unknown>][] = [
    ['arrayBuffer()', (file) => file.arrayBuffer()],
    ['saveTo()', (file) => file.saveTo(join(dir, 'f.bin'))],
  ];
  it.each(reading)('media.download(...).%s', async (_, read) => {
    const url = await serve(trickle);
    const gw = new GatewayClient({ apiKey: 'gw_key_0123456789abcdef', baseUrl: url });
    const controller = new AbortController();
    const reason = new Error('the user left the page');
    // Headers in, body still open: the abort lands while the body is being read.
    const file = await gw.media.download('m1', { phoneNumberId: 'PN', signal: controller.signal });
    const pending = read(file);
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
  });

  it('a string reason stays the reason too', async () => {
    const url = await serve(trickle);
    const gw = new GatewayClient({ apiKey: 'gw_key_0123456789abcdef', baseUrl: url });
    const controller = new AbortController();
    const file = await gw.media.download('m1', { phoneNumberId: 'PN', signal: controller.signal });
    const pending = file.arrayBuffer();
    controller.abort('stop');
    await expect(pending).rejects.toBe('stop');
  });
});

describe('credentials echoed in response headers never reach an error', () => {
  const KEY = 'gw_live_KEY_0123456789abcdefXYZ';
  const SECRET = 'sk_live_SECRET_0123456789abcdef';
  const PASSWORD = 'platform-pass-0123456789-ABC';
  const b64 = (s: string) => Buffer.from(s).toString('base64');
  const echo =
    (credential: string, form: (s: string) => string, status: number): Handler =>
    (_req, res) => {
      const value = form(credential);
      res
        .writeHead(status, {
          'x-request-id': `req-${value}`,
          'request-id': value,
          'content-type': `text/${value}`,
          'retry-after': value,
          location: `http://${value.toLowerCase().replace(/[^a-z0-9]/g, '')}.example/x?k=${value}`,
        })
        .end(`<html>${value}</html>`);
    };
  const forms: [string, (s: string) => string][] = [
    ['as is', (s) => s],
    ['base64', b64],
    ['inside a Basic header', (s) => `Basic ${b64(`ab${s}`)}`],
  ];
  const clients: [string, string, (url: string) => Promise<unknown>][] = [
    [
      'gateway send',
      KEY,
      (url) =>
        new GatewayClient({ apiKey: KEY, baseUrl: url, maxRetries: 0 }).messages.send({
          to: '998901234567',
          type: 'text',
          text: { body: 'x' },
        }),
    ],
    [
      'public API',
      SECRET,
      (url) =>
        new PublicApiClient({ secretKey: SECRET, baseUrl: `${url}/api/v1`, maxRetries: 0 }).request(
          'GET',
          '/x',
        ),
    ],
    [
      'platform login',
      PASSWORD,
      (url) =>
        new PlatformClient({
          platformUrl: url,
          streamUrl: url,
          username: 'u@example.com',
          password: PASSWORD,
          maxRetries: 0,
        }).auth.login(),
    ],
  ];
  for (const status of [302, 401, 429, 500]) {
    describe.each(forms)(`status ${status}, credential %s`, (_, form) => {
      it.each(clients)('%s', async (_name, credential, call) => {
        const url = await serve(echo(credential, form, status));
        const error = await call(url).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(error).toBeInstanceOf(Error);
        const shown = `${String(error)} ${JSON.stringify(error)} ${inspect(error, { depth: 5 })}`;
        expect(shown).not.toContain(credential);
        expect(shown).not.toContain(b64(credential).slice(0, 20));
      });
    });
  }
});

describe('ConnectionError says what failed, and whether anything left', () => {
  it('a refused connection: errno, scrubbed cause, mayHaveBeenSent false', async () => {
    const s = await startServer((_req, res) => void res.end());
    const url = s.url;
    await s.close();
    const KEY = 'gw_live_KEY_refused_0123456789';
    const gw = new GatewayClient({ apiKey: KEY, baseUrl: url, maxRetries: 0 });
    const error = await gw.messages
      .send({ to: '998901234567', type: 'text', text: { body: 'x' } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    const c = error as ConnectionError;
    expect(c.errno).toBe('ECONNREFUSED');
    expect(c.mayHaveBeenSent).toBe(false);
    expect(c.cause).toBeInstanceOf(Error);
    expect(JSON.stringify(inspect(c.cause, { depth: 5 }))).toContain('ECONNREFUSED');
    expect(c.message).toMatch(/Nothing reached the server/);
  });

  it.each([
    ['a port fetch blocks', 'http://127.0.0.1:6000', ['ERR_BAD_PORT']],
    ['a host that does not resolve', 'http://no-such-host.invalid', ['ENOTFOUND', 'EAI_AGAIN', 'EAI_NONAME']],
  ])('%s: mayHaveBeenSent false, with its errno', async (_, baseUrl, errnos) => {
    const gw = new GatewayClient({ apiKey: 'gw_key_0123456789abcdef', baseUrl, maxRetries: 0 });
    const error = await gw.messages
      .send({ to: '998901234567', type: 'text', text: { body: 'x' } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect(errnos).toContain((error as ConnectionError).errno);
    expect((error as ConnectionError).mayHaveBeenSent).toBe(false);
  });

  it('a refused connection is retried like any failure before forwarding, and then succeeds', async () => {
    const s = await startServer((_req, res) => void res.end());
    const { port } = new URL(s.url);
    await s.close();
    let attempts = 0;
    const log = captureLogger();
    const gw = new GatewayClient({
      apiKey: 'gw_key_0123456789abcdef',
      baseUrl: `http://127.0.0.1:${port}`,
      logger: log.logger,
      maxRetries: 1,
      fetch: async (input, init) => {
        attempts++;
        if (attempts === 1) return fetch(input, init);
        return new Response(
          JSON.stringify({ isSuccess: true, data: { messages: [{ id: 'wamid.ok' }], contacts: [] } }),
          {
            headers: { 'content-type': 'application/json' },
          },
        );
      },
    });
    const result = await gw.messages.send({ to: '998901234567', type: 'text', text: { body: 'x' } });
    expect(result.messageId).toBe('wamid.ok');
    expect(attempts).toBe(2);
    expect(log.lines).toEqual([
      {
        level: 'warn',
        message: 'wa-gateway-sdk: retrying request',
        meta: expect.objectContaining({ error: 'ConnectionError' }),
      },
    ]);
  });

  it('a connection cut after the request went out still says it may have been sent', async () => {
    const url = await serve((req) => void req.socket.destroy());
    const gw = new GatewayClient({ apiKey: 'gw_key_0123456789abcdef', baseUrl: url, maxRetries: 0 });
    const error = await gw.messages
      .send({ to: '998901234567', type: 'text', text: { body: 'x' } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as ConnectionError).mayHaveBeenSent).toBe(true);
  });
});
