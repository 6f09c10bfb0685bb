/**
 * Issue 14's request mechanics over real sockets: withResponse on every client, per-call options merged over the
 * client's, defaultHeaders and their precedence, the User-Agent, send flags apart from transport options,
 * WA_GATEWAY_LOG and logLevel, and the onRequest/onResponse hooks.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runtime } from '../../src/core/version.js';
import {
  ApiPromise,
  ConfigurationError,
  GatewayClient,
  PlatformClient,
  PublicApiClient,
  type ResponseEvent,
  SDK_VERSION,
} from '../../src/index.js';
import { startServer } from '../helpers/http-server.js';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

const seen: Seen[] = [];
/** Answers queued per path; the default is a success for that path. */
const script = new Map<string, ((res: ServerResponse) => void)[]>();
let server: Awaited<ReturnType<typeof startServer>>;

const SEND_OK = {
  isSuccess: true,
  data: { messages: [{ id: 'wamid.OK' }], contacts: [{ input: '998901234567', wa_id: '998901234567' }] },
};
const TEMPLATE_OK = {
  isSuccess: true,
  data: {
    id: 't1',
    name: 'order_shipped',
    language: 'en_US',
    category: 'UTILITY',
    status: 'PENDING',
    sourceId: '1',
  },
};

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

beforeAll(async () => {
  server = await startServer((req, res, body) => {
    seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
    const path = (req.url ?? '').split('?')[0]!;
    const next = script.get(path)?.shift();
    if (next) return next(res);
    if (path === '/v1/wa/message') return json(res, 200, SEND_OK, { 'x-request-id': 'req-send' });
    if (path === '/api/v1/wa/app1/templates') return json(res, 201, TEMPLATE_OK, { 'request-id': 'req-tpl' });
    if (path === '/api/v1/anything') return json(res, 200, { ok: true }, { 'x-request-id': 'req-any' });
    if (path === '/stats') return json(res, 200, [], { 'x-request-id': 'req-stats' });
    json(res, 404, { detail: 'no such path' });
  });
});
afterAll(() => server.close());
afterEach(() => {
  seen.length = 0;
  script.clear();
  delete process.env['WA_GATEWAY_LOG'];
});

const text = { to: '998901234567', type: 'text', text: { body: 'Hi' } } as const;
const gateway = (extra: Partial<ConstructorParameters<typeof GatewayClient>[0]> = {}) =>
  new GatewayClient({ apiKey: 'pk_test_key', baseUrl: server.url, logLevel: 'off', ...extra });
const publicApi = (extra: Partial<ConstructorParameters<typeof PublicApiClient>[0]> = {}) =>
  new PublicApiClient({
    secretKey: 'sk_test_key',
    baseUrl: `${server.url}/api/v1`,
    logLevel: 'off',
    ...extra,
  });
const platform = () =>
  new PlatformClient({ platformUrl: server.url, streamUrl: server.url, token: 'tok', logLevel: 'off' });
const rateLimited = (res: ServerResponse) =>
  json(res, 429, {
    isSuccess: false,
    errors: { code: 'RATE_001', group: 'RATE', description: 'slow down', params: { retry_after: 0 } },
  });

describe('withResponse', () => {
  it('every client returns an ApiPromise: awaited it is the typed result, withResponse adds the answer', async () => {
    const gw = gateway();
    const sent = gw.messages.send(text);
    expect(sent).toBeInstanceOf(Promise);
    expect(sent).toBeInstanceOf(ApiPromise);
    expect((await sent).messageId).toBe('wamid.OK');

    const { data, response } = await gw.messages.send(text).withResponse();
    expect(data.messageId).toBe('wamid.OK');
    expect(response).toMatchObject({ status: 200, requestId: 'req-send', attempts: 1 });
    expect(response.headers.get('content-type')).toBe('application/json');

    const created = await publicApi()
      .templates.create('app1', {
        name: 'order_shipped',
        language: 'en_US',
        category: 'UTILITY',
        body: { text: 'Order {{1}} shipped.', examples: ['1'] },
      })
      .withResponse();
    expect(created.data.status).toBe('PENDING');
    expect(created.response).toMatchObject({ status: 201, requestId: 'req-tpl' });

    const any = await publicApi().request('GET', '/anything').withResponse();
    expect(any).toMatchObject({ data: { ok: true }, response: { status: 200, requestId: 'req-any' } });

    const stats = await platform().stats.get().withResponse();
    expect(stats).toMatchObject({ data: [], response: { status: 200, requestId: 'req-stats' } });
  });

  it('counts the attempts a retried call took, and a failure rejects both forms alike', async () => {
    script.set('/v1/wa/message', [rateLimited]);
    const { response } = await gateway().messages.send(text).withResponse();
    expect(response.attempts).toBe(2);

    const invalid = gateway().messages.send({ to: 'x', type: 'text', text: { body: '' } });
    await expect(invalid).rejects.toThrow();
    await expect(invalid.withResponse()).rejects.toThrow();
    expect(seen.filter((s) => s.url.startsWith('/v1/wa/message'))).toHaveLength(2);
  });
});

describe('withResponse().response.requestId', () => {
  it('is scrubbed of the credentials and shortened, as in hooks, log lines and errors; headers stay raw', async () => {
    const echo =
      (id: string, body: unknown, status = 200) =>
      (res: ServerResponse) =>
        json(res, status, body, { 'x-request-id': id });
    script.set('/v1/wa/message', [echo(`echo-pk_test_key-${'x'.repeat(200)}`, SEND_OK)]);
    const sent = await gateway().messages.send(text).withResponse();
    expect(sent.response.requestId).toBe(`echo-[redacted]-${'x'.repeat(84)}…`);
    expect(sent.response.headers.get('x-request-id')).toContain('pk_test_key');

    script.set('/api/v1/anything', [echo('echo-sk_test_key', { ok: true })]);
    expect((await publicApi().request('GET', '/anything').withResponse()).response.requestId).toBe(
      'echo-[redacted]',
    );

    script.set('/stats', [echo('echo-tok_platform', [])]);
    const client = new PlatformClient({
      platformUrl: server.url,
      streamUrl: server.url,
      token: 'tok_platform',
      logLevel: 'off',
    });
    expect((await client.stats.get().withResponse()).response.requestId).toBe('echo-[redacted]');

    script.set('/jwt/', [echo('echo-pw-123456789', { token: 'tok-1', expires_at: '2099-01-01T00:00:00Z' })]);
    const login = new PlatformClient({
      platformUrl: server.url,
      streamUrl: server.url,
      username: 'agent',
      password: 'pw-123456789',
      logLevel: 'off',
    });
    expect((await login.auth.login().withResponse()).response.requestId).toBe('echo-[redacted]');
  });
});

describe('per-call options, defaultHeaders and the User-Agent', () => {
  it('sends defaultHeaders, per-call headers over them, and the SDK-only headers over both', async () => {
    const gw = gateway({ defaultHeaders: { 'X-Tenant': 'acme', 'x-route': 'default' } });
    await gw.messages.send(text, { headers: { 'x-route': 'call', 'X-Trace': 't-1' } });
    const h = seen[0]!.headers;
    expect(h['x-tenant']).toBe('acme');
    expect(h['x-route']).toBe('call');
    expect(h['x-trace']).toBe('t-1');
    expect(h.authorization).toBe('Bearer pk_test_key');
    expect(h['user-agent']).toBe(`wa-gateway-sdk/${SDK_VERSION} node/${process.versions.node}`);
  });

  it.each(['Authorization', 'cookie', 'Host', 'content-type', 'proxy-authorization'])(
    'refuses a user %s header, at construction and per call, before any request',
    async (name) => {
      expect(() => gateway({ defaultHeaders: { [name]: 'Bearer elsewhere' } })).toThrow(ConfigurationError);
      await expect(gateway().messages.send(text, { headers: { [name]: 'x' } })).rejects.toThrow(
        ConfigurationError,
      );
      expect(seen).toHaveLength(0);
    },
  );

  it('refuses a header value with a line break, naming the header but not the value', async () => {
    const error = await gateway()
      .messages.send(text, { headers: { 'x-a': 'secret\r\nx-b: 1' } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigurationError);
    expect(String(error)).toContain('x-a');
    expect(String(error)).not.toContain('secret');
    expect(seen).toHaveLength(0);
  });

  // fetch takes a header value only as Latin-1 bytes without control characters; the SDK refused only CR, LF and
  // NUL, so these reached fetch, which refused them while building the request: a ConnectionError saying the send
  // may have been out, when nothing was.
  it.each([
    ['a character beyond U+00FF', 'café€-secret'],
    ['U+2028', 'x\u2028y-secret'],
    ['a control character', 'a\u0001b-secret'],
    ['DEL', 'a\u007fb-secret'],
  ])(
    'refuses a header value with %s, at construction and per call, naming the header but not the value',
    async (_, value) => {
      const built = (() => {
        try {
          gateway({ defaultHeaders: { 'x-tenant': value } });
        } catch (e) {
          return e;
        }
      })();
      const sent = await gateway()
        .messages.send(text, { headers: { 'x-tenant': value } })
        .catch((e: unknown) => e);
      for (const error of [built, sent]) {
        expect(error).toBeInstanceOf(ConfigurationError);
        expect(String(error)).toContain("'x-tenant'");
        expect(String(error)).not.toContain('secret');
      }
      expect(seen).toHaveLength(0);
    },
  );

  it('sends every value a header can carry: tab, spaces, visible ASCII and Latin-1', async () => {
    const value = 'a\tb ~!é\u00ff';
    await gateway({ defaultHeaders: { 'x-tenant': value } }).messages.send(text, {
      headers: { 'x-call': value },
    });
    const h = seen[0]!.headers;
    // node:http reads a header's bytes as Latin-1, as fetch wrote them.
    expect([h['x-tenant'], h['x-call']]).toEqual([value, value]);
  });

  it('per-call maxRetries overrides the client (0: the 429 is final) and a bad one is a ConfigurationError', async () => {
    script.set('/v1/wa/message', [rateLimited]);
    await expect(gateway({ maxRetries: 3 }).messages.send(text, { maxRetries: 0 })).rejects.toMatchObject({
      code: 'RATE_001',
    });
    expect(seen).toHaveLength(1);
    await expect(gateway().messages.send(text, { maxRetries: -1 })).rejects.toThrow(ConfigurationError);
  });

  it('per-call timeoutMs overrides the client and an aborted signal stops the call', async () => {
    script.set('/v1/wa/message', [() => {}]);
    await expect(gateway({ timeoutMs: 60_000 }).messages.send(text, { timeoutMs: 50 })).rejects.toMatchObject(
      {
        name: 'TimeoutError',
      },
    );
    const controller = new AbortController();
    controller.abort(new Error('stop'));
    await expect(gateway().messages.send(text, { signal: controller.signal })).rejects.toThrow('stop');
  });

  it('send flags go on the wire as the query; transport options never do', async () => {
    // mmlite routes templates only.
    const template = {
      to: text.to,
      type: 'template',
      template: { name: 'x', language: { code: 'en' } },
    } as const;
    await gateway().messages.send(template, {
      isFake: true,
      mmlite: true,
      timeoutMs: 5000,
      headers: { 'x-a': '1' },
    });
    // Found by its header: the previous test's timed-out request may reach the server only now, on a busy machine.
    const sent = seen.find((s) => s.headers['x-a'] === '1');
    expect(sent?.url).toBe('/v1/wa/message?is_fake=true&mmlite=true');
    expect(JSON.parse(sent!.body)).toEqual({ messaging_product: 'whatsapp', ...template });
  });

  it('names the runtime from globals alone', () => {
    expect(runtime({ Bun: { version: '1.2.3' }, process: { versions: { node: '22' } } })).toBe('bun/1.2.3');
    expect(runtime({ Deno: { version: { deno: '2.1.0' } }, process: { versions: { node: '22' } } })).toBe(
      'deno/2.1.0',
    );
    expect(runtime({ navigator: { userAgent: 'Cloudflare-Workers' } })).toBe('workerd');
    expect(runtime({ document: {}, navigator: { userAgent: 'Mozilla/5.0' } })).toBe('browser');
    expect(runtime({})).toBe('unknown');
  });
});

describe('logging levels', () => {
  const capture = () => {
    const lines: [string, string, Record<string, unknown> | undefined][] = [];
    const at =
      (level: string) =>
      (message: string, meta?: Record<string, unknown>): void => {
        lines.push([level, message, meta]);
      };
    return { lines, logger: { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') } };
  };

  it('WA_GATEWAY_LOG=debug turns on the debug lines: method, path, status, attempt, wait, request id, duration', async () => {
    process.env['WA_GATEWAY_LOG'] = 'debug';
    const { lines, logger } = capture();
    script.set('/v1/wa/message', [rateLimited]);
    const gw = new GatewayClient({ apiKey: 'pk_test_key', baseUrl: server.url, logger });
    await gw.messages.send(text);
    expect(lines).toContainEqual([
      'warn',
      'wa-gateway-sdk: retrying request',
      expect.objectContaining({
        method: 'POST',
        path: '/v1/wa/message',
        attempt: 1,
        delayMs: 0,
        code: 'RATE_001',
      }),
    ]);
    // A failed attempt's line carries its duration too, as the docs say of every attempt's line.
    expect(typeof lines.find(([level]) => level === 'warn')?.[2]?.['durationMs']).toBe('number');
    const success = lines.find(([level]) => level === 'debug')!;
    expect(success[2]).toMatchObject({ status: 200, attempt: 2, requestId: 'req-send' });
    expect(typeof success[2]?.['durationMs']).toBe('number');
  });

  it('numbers each call: two sends retried at once have their lines, hook events and withResponse told apart by `call`', async () => {
    process.env['WA_GATEWAY_LOG'] = 'debug';
    const { lines, logger } = capture();
    // Both calls' first attempts are refused, whichever arrives first; both retries are answered.
    script.set('/v1/wa/message', [rateLimited, rateLimited]);
    const events: ResponseEvent[] = [];
    const gw = new GatewayClient({
      apiKey: 'pk_test_key',
      baseUrl: server.url,
      logger,
      onResponse: (e) => events.push(e),
    });
    const answers = await Promise.all([
      gw.messages.send(text).withResponse(),
      gw.messages.send({ ...text, to: '998901234568' }).withResponse(),
    ]);
    const calls = [...new Set(events.map((e) => e.call))];
    expect(calls).toHaveLength(2);
    // Each call's `withResponse()` gives its number: the app logs it beside its own ids.
    expect(answers.map(({ response }) => response.call).sort()).toEqual([...calls].sort());
    for (const call of calls) {
      // Each call: a refused attempt 1, then attempt 2 answered, in its events and in its log lines.
      const mine = events.filter((e) => e.call === call);
      expect(mine.map((e) => [e.attempt, e.status])).toEqual([
        [1, 429],
        [2, 200],
      ]);
      const logged = lines.filter(([, , meta]) => meta?.['call'] === call);
      // (The second retry line within the fold window is folded into the first's warning: said at debug.)
      expect(logged.map(([, message, meta]) => [message, meta?.['attempt']])).toEqual([
        ['wa-gateway-sdk: retrying request', 1],
        ['wa-gateway-sdk: request succeeded', 2],
      ]);
    }
  });

  it('logLevel takes precedence over the variable; off and the default warn log no debug line', async () => {
    process.env['WA_GATEWAY_LOG'] = 'debug';
    const quiet = capture();
    await new GatewayClient({
      apiKey: 'k',
      baseUrl: server.url,
      logger: quiet.logger,
      logLevel: 'off',
    }).messages.send(text);
    expect(quiet.lines).toEqual([]);
    delete process.env['WA_GATEWAY_LOG'];
    const byDefault = capture();
    await new GatewayClient({ apiKey: 'k', baseUrl: server.url, logger: byDefault.logger }).messages.send(
      text,
    );
    expect(byDefault.lines).toEqual([]);
    process.env['WA_GATEWAY_LOG'] = 'nonsense';
    const unknown = capture();
    await new GatewayClient({ apiKey: 'k', baseUrl: server.url, logger: unknown.logger }).messages.send(text);
    expect(unknown.lines).toEqual([]);
  });

  it('a logger that throws never breaks a call', async () => {
    const boom = () => {
      throw new Error('logger down');
    };
    const gw = new GatewayClient({
      apiKey: 'k',
      baseUrl: server.url,
      logLevel: 'debug',
      logger: { debug: boom, warn: boom },
    });
    await expect(gw.messages.send(text)).resolves.toMatchObject({ messageId: 'wamid.OK' });
  });
});

describe('onRequest / onResponse hooks', () => {
  it('see each attempt with metadata only, and a throwing hook changes nothing', async () => {
    script.set('/v1/wa/message', [rateLimited]);
    const requests: unknown[] = [];
    const responses: ResponseEvent[] = [];
    const gw = gateway({
      onRequest: (e) => {
        requests.push(e);
        throw new Error('hook down');
      },
      onResponse: (e) => responses.push(e),
    });
    await gw.messages.send(text);
    const host = new URL(server.url).hostname;
    const call = (requests[0] as { call: number }).call;
    expect(requests).toEqual([
      { method: 'POST', path: '/v1/wa/message', host, call, attempt: 1 },
      { method: 'POST', path: '/v1/wa/message', host, call, attempt: 2 },
    ]);
    expect(responses.map((r) => r.call)).toEqual([call, call]);
    expect(responses.map((r) => [r.attempt, r.status, r.retryInMs, r.requestId])).toEqual([
      [1, 429, 0, undefined],
      [2, 200, undefined, 'req-send'],
    ]);
    expect(responses[0]!.error).toEqual({
      name: 'RateLimitError',
      code: 'RATE_001',
      status: 429,
      mayHaveBeenSent: false,
    });
    expect(responses[1]!.error).toBeUndefined();
  });

  it("gives a failed attempt's error as metadata: never the server's text or body (a phone, a message)", async () => {
    script.set('/v1/wa/message', [
      (res) =>
        json(
          res,
          502,
          {
            isSuccess: false,
            errors: {
              code: 'GW_001',
              group: 'UPSTREAM_ERROR',
              description: 'Message undeliverable: 998901234567 is not a WhatsApp user',
            },
            request: { to: '998901234567', text: { body: 'Your code is 4821' } },
          },
          { 'x-request-id': 'req-gw' },
        ),
    ]);
    const responses: ResponseEvent[] = [];
    const gw = gateway({ onResponse: (e) => responses.push(e) });
    const error = await gw.messages.send(text).then(
      () => undefined,
      (e: unknown) => e,
    );
    // The caller's error keeps the server's words; the hook gets what failed, not what the server said.
    expect(String(error)).toContain('998901234567');
    expect(responses).toHaveLength(1);
    expect(responses[0]!.error).toEqual({
      name: 'UpstreamError',
      code: 'GW_001',
      status: 502,
      requestId: 'req-gw',
      // The gateway's rules: GW_001 is answered before anything was sent.
      mayHaveBeenSent: false,
    });
    const json_ = JSON.stringify(responses[0]);
    expect(json_).not.toContain('998901234567');
    expect(json_).not.toContain('4821');
  });

  it("an attempt the caller's signal aborts in flight gets its onResponse, with the error, and a debug line", async () => {
    const controller = new AbortController();
    const reason = new Error('stopped by the caller');
    // The server takes the request and never answers: only the abort ends the attempt.
    script.set('/v1/wa/message', [() => controller.abort(reason)]);
    const requests: unknown[] = [];
    const responses: ResponseEvent[] = [];
    const lines: [string, Record<string, unknown> | undefined][] = [];
    const gw = gateway({
      logLevel: 'debug',
      logger: { debug: (message, meta) => void lines.push([message, meta]) },
      onRequest: (e) => requests.push(e),
      onResponse: (e) => responses.push(e),
    });
    await expect(gw.messages.send(text, { signal: controller.signal })).rejects.toBe(reason);
    expect(requests).toHaveLength(1);
    expect(responses).toHaveLength(1);
    expect(responses[0]).toMatchObject({ attempt: 1, status: undefined, retryInMs: undefined });
    expect(responses[0]!.error).toBeDefined();
    expect(lines).toEqual([
      [
        'wa-gateway-sdk: request failed',
        expect.objectContaining({
          method: 'POST',
          path: '/v1/wa/message',
          attempt: 1,
          error: 'Error',
          durationMs: expect.any(Number),
        }),
      ],
    ]);
  });

  it('the 401 a stale platform token gets before the re-login is an attempt: hooks, debug line, attempts', async () => {
    let tokens = 0;
    script.set('/stats', [
      (res) => json(res, 401, { detail: 'Invalid auth key.' }, { 'x-request-id': 'req-401' }),
    ]);
    script.set('/jwt/', [
      (res) => json(res, 200, { token: `tok-${++tokens}`, expires_at: '2099-01-01T00:00:00Z' }),
    ]);
    const responses: ResponseEvent[] = [];
    const lines: [string, Record<string, unknown> | undefined][] = [];
    const client = new PlatformClient({
      platformUrl: server.url,
      streamUrl: server.url,
      username: 'agent',
      password: 'pw-123456789',
      token: 'stale',
      logLevel: 'debug',
      logger: { debug: (message, meta) => void lines.push([message, meta]) },
      onResponse: (e) => responses.push(e),
    });
    const { response } = await client.stats.get().withResponse();
    expect(seen.map((s) => `${s.method} ${s.url}`)).toEqual(['GET /stats', 'POST /jwt/', 'GET /stats']);
    // Two GETs reached the server: both are counted, numbered 1 and 2 (not 1 twice), and the 401 is reported.
    expect(response.attempts).toBe(2);
    const stats = responses.filter((r) => r.path === '/stats');
    expect(stats.map((r) => [r.attempt, r.status, r.requestId, r.retryInMs])).toEqual([
      [1, 401, 'req-401', 0],
      [2, 200, 'req-stats', undefined],
    ]);
    const statsLines = lines.filter(([, meta]) => meta?.['path'] === '/stats');
    expect(statsLines.map(([message, meta]) => [message, meta?.['attempt'], meta?.['requestId']])).toEqual([
      ['wa-gateway-sdk: credential refused, repeating after a login', 1, 'req-401'],
      ['wa-gateway-sdk: request succeeded', 2, 'req-stats'],
    ]);
  });
});
