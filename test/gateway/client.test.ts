import { readFile } from 'node:fs/promises';
import { inspect } from 'node:util';
import { HttpResponse, http } from 'msw';
import { describe, expect, it, vi } from 'vitest';
import pkg from '../../package.json' with { type: 'json' };
import type { WindowStore } from '../../src/gateway/service-window.js';
import {
  ConfigurationError,
  GatewayClient,
  MessageValidationError,
  NotSentError,
  RateLimiter,
  SDK_VERSION,
  TemplateCatalog,
  type TemplateStore,
  TimeoutError,
} from '../../src/index.js';
import { API_KEY, envelope, GW, sendOk, useMswServer } from '../helpers/msw.js';

const server = useMswServer();
const text = { to: '998901234567', type: 'text', text: { body: 'Hi' } } as const;

describe('GatewayClient construction', () => {
  it.each([
    [{ baseUrl: GW }, /apiKey is required/],
    [{ apiKey: '', baseUrl: GW }, /apiKey is required.*empty string/],
    [{ apiKey: `${API_KEY}\n`, baseUrl: GW }, /whitespace/],
    [{ apiKey: API_KEY }, /baseUrl is required.*GATEWAY_BASE_URL environment variable/],
    [{ apiKey: API_KEY, baseUrl: 'gw.example.com' }, /not a valid URL/],
    [{ apiKey: API_KEY, baseUrl: 'ftp://gw.example.com' }, /http\(s\)/],
    [{ apiKey: API_KEY, baseUrl: 'https://u:p@gw.example.com' }, /credentials/],
    [{ apiKey: API_KEY, baseUrl: GW, timeoutMs: -1 }, /timeoutMs/],
    [{ apiKey: API_KEY, baseUrl: GW, maxRetries: 1.5 }, /maxRetries/],
    [{ apiKey: API_KEY, baseUrl: GW, rateLimit: { perSecond: 0 } }, /rateLimit/],
    // A string read from process.env is truthy: 'false' would turn in-flight retries on.
    [
      { apiKey: API_KEY, baseUrl: GW, retryInFlightSends: 'false' },
      /retryInFlightSends must be true or false.*'false'/,
    ],
    [
      { apiKey: API_KEY, baseUrl: GW, retryInFlightSends: 1 },
      /retryInFlightSends must be true or false; got 1/,
    ],
    [{ apiKey: API_KEY, baseUrl: GW, messagingProduct: 5 }, /messagingProduct must be the network's name/],
    [{ apiKey: API_KEY, baseUrl: GW, messagingProduct: ' ' }, /messagingProduct must be the network's name/],
    // The spec's constant is lowercase: the gateway would refuse every send of these.
    [{ apiKey: API_KEY, baseUrl: GW, messagingProduct: 'WhatsApp' }, /in lowercase, without spaces/],
    [{ apiKey: API_KEY, baseUrl: GW, messagingProduct: ' whatsapp ' }, /in lowercase, without spaces/],
    [{ apiKey: API_KEY, baseUrl: GW, fetch: 'x' }, /fetch must be a function.*got a string/],
    [
      { apiKey: API_KEY, baseUrl: GW, serviceWindow: {} },
      /serviceWindow must be a WindowStore.*without lastInbound/,
    ],
    [{ apiKey: API_KEY, baseUrl: GW, serviceWindow: 'yes' }, /serviceWindow must be a WindowStore.*a string/],
    [
      { apiKey: API_KEY, baseUrl: GW, campaigns: {} },
      /campaigns must be a CampaignTracker.*without recorder/,
    ],
    [{ apiKey: API_KEY, baseUrl: GW, templates: {} }, /templates must be a TemplateCatalog.*without get/],
  ])('%o is a clear ConfigurationError', (options, message) => {
    const make = () => new GatewayClient(options as ConstructorParameters<typeof GatewayClient>[0]);
    expect(make).toThrow(ConfigurationError);
    expect(make).toThrow(message);
  });

  it('never shows the key in inspect, JSON or construction errors', () => {
    const gw = new GatewayClient({ apiKey: API_KEY, baseUrl: GW });
    expect(inspect(gw)).not.toContain(API_KEY);
    expect(inspect(gw, { showHidden: true, depth: 10 })).not.toContain(API_KEY);
    expect(JSON.stringify(gw)).not.toContain(API_KEY);
    try {
      new GatewayClient({ apiKey: `${API_KEY} `, baseUrl: GW });
    } catch (e) {
      expect(String(e)).not.toContain(API_KEY);
    }
  });

  it('rate limiting defaults to 80 per second; it can be shared or turned off', () => {
    expect(new GatewayClient({ apiKey: API_KEY, baseUrl: GW }).rateLimiter?.perSecond).toBe(80);
    const shared = new RateLimiter({ perSecond: 10 });
    expect(new GatewayClient({ apiKey: API_KEY, baseUrl: GW, rateLimit: shared }).rateLimiter).toBe(shared);
    expect(new GatewayClient({ apiKey: API_KEY, baseUrl: GW, rateLimit: false }).rateLimiter).toBeUndefined();
  });
});

describe('requests', () => {
  it('sends the User-Agent with the SDK version, equal to package.json', async () => {
    expect(SDK_VERSION).toBe(pkg.version);
    let ua: string | null = null;
    server.use(
      http.post(`${GW}/v1/wa/message`, ({ request }) => {
        ua = request.headers.get('user-agent');
        return HttpResponse.json(sendOk());
      }),
    );
    await new GatewayClient({ apiKey: API_KEY, baseUrl: GW }).messages.send(text);
    expect(ua).toBe(`wa-gateway-sdk/${pkg.version} node/${process.versions.node}`);
  });

  it("reports the CHANGELOG's newest release: package.json's version heads its first released section", async () => {
    const changelog = await readFile(new URL('../../CHANGELOG.md', import.meta.url), 'utf8');
    const newest = /^## \[(\d+\.\d+\.\d+)\] - \d{4}-\d{2}-\d{2}$/m.exec(changelog)?.[1];
    expect(newest).toBe(pkg.version);
  });

  it('passes is_fake and mmlite only when set', async () => {
    const queries: string[] = [];
    server.use(
      http.post(`${GW}/v1/wa/message`, ({ request }) => {
        queries.push(new URL(request.url).search);
        return HttpResponse.json(sendOk());
      }),
    );
    const gw = new GatewayClient({ apiKey: API_KEY, baseUrl: `${GW}/` });
    const template = {
      to: '998901234567',
      type: 'template',
      template: { name: 'x', language: { code: 'en' } },
    } as const;
    await gw.messages.send(text);
    await gw.messages.send(text, { isFake: true });
    await gw.messages.send(template, { mmlite: true, isFake: false });
    expect(queries).toEqual(['', '?is_fake=true', '?mmlite=true']);
  });

  // The spec's marketing-lite route takes "the same body as a template message": a text went out to meet GW_001.
  it('refuses mmlite for a message that is not a template, before any request, in send and sendMany', async () => {
    let requests = 0;
    server.use(
      http.post(`${GW}/v1/wa/message`, () => {
        requests++;
        return HttpResponse.json(sendOk());
      }),
    );
    const gw = new GatewayClient({ apiKey: API_KEY, baseUrl: GW });
    const e = await gw.messages.send(text, { mmlite: true }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(MessageValidationError);
    expect((e as MessageValidationError).issues).toMatchObject([
      { path: ['type'], rule: 'mmlite.template_only' },
    ]);
    const results: unknown[] = [];
    for await (const result of gw.messages.sendMany([text], { mmlite: true })) results.push(result);
    expect(results).toMatchObject([{ ok: false, notSent: true }]);
    expect(requests).toBe(0);
  });

  it('looks fetch up at call time, so a fetch patched after construction sees the request', async () => {
    const gw = new GatewayClient({ apiKey: API_KEY, baseUrl: GW });
    const original = globalThis.fetch;
    const spy = vi.fn(async () => Response.json(sendOk('wamid.patched')));
    globalThis.fetch = spy as unknown as typeof fetch;
    try {
      expect((await gw.messages.send(text)).messageId).toBe('wamid.patched');
      expect(spy).toHaveBeenCalledOnce();
    } finally {
      globalThis.fetch = original;
    }
  });

  it('uses an injected fetch', async () => {
    const injected = vi.fn(async () => Response.json(sendOk('wamid.injected')));
    const gw = new GatewayClient({
      apiKey: API_KEY,
      baseUrl: GW,
      fetch: injected as unknown as typeof fetch,
    });
    expect((await gw.messages.send(text)).messageId).toBe('wamid.injected');
  });

  it('the logger gets request metadata, never the key or the body', async () => {
    let n = 0;
    server.use(
      http.post(`${GW}/v1/wa/message`, () =>
        ++n === 1
          ? HttpResponse.json(envelope('AUTH_004', 'INTERNAL_ERROR', `lookup of ${API_KEY} failed`), {
              status: 500,
            })
          : HttpResponse.json(sendOk()),
      ),
    );
    const calls: unknown[] = [];
    const logger = {
      debug: (...a: unknown[]) => calls.push(a),
      warn: (...a: unknown[]) => calls.push(a),
    };
    await new GatewayClient({ apiKey: API_KEY, baseUrl: GW, logger }).messages.send(text);
    const logged = JSON.stringify(calls);
    expect(logged).toContain('retrying request');
    expect(logged).toContain('AUTH_004');
    expect(logged).not.toContain(API_KEY);
    expect(logged).not.toContain('Hi');
  });

  it('a throwing logger does not break a send', async () => {
    server.use(http.post(`${GW}/v1/wa/message`, () => HttpResponse.json(sendOk())));
    const logger = {
      debug: () => {
        throw new Error('logger broke');
      },
    };
    await expect(
      new GatewayClient({ apiKey: API_KEY, baseUrl: GW, logger }).messages.send(text),
    ).resolves.toBeDefined();
  });
});

describe('send options are checked before any request', () => {
  /** A gateway whose every request fails in flight (the message may be out), counting requests. */
  function cutGateway() {
    const seen = { requests: 0, queries: [] as string[] };
    server.use(
      http.post(`${GW}/v1/wa/message`, ({ request }) => {
        seen.requests++;
        seen.queries.push(new URL(request.url).search);
        return HttpResponse.error();
      }),
    );
    return seen;
  }

  it.each([
    [
      { retryInFlight: 'false' },
      /messages\.send: retryInFlight must be true or false; got the string 'false'/,
    ],
    [{ retryInFlight: 0 }, /retryInFlight must be true or false; got 0/],
    [{ isFake: 'false' }, /isFake must be true or false/],
    [{ mmlite: 'no' }, /mmlite must be true or false/],
    [{ validate: 'false' }, /validate must be true or false/],
    [{ signal: {} }, /signal must be an AbortSignal.*an object that is not one/],
    [{ signal: 'x' }, /signal must be an AbortSignal.*a string/],
    ['x', /options must be an object; got a string/],
  ])('send(message, %o) is a ConfigurationError and sends nothing', async (options, message) => {
    const seen = cutGateway();
    const gw = new GatewayClient({ apiKey: API_KEY, baseUrl: GW, rateLimit: false });
    const sent = gw.messages.send(text, options as never);
    await expect(sent).rejects.toThrow(ConfigurationError);
    await expect(sent).rejects.toThrow(message);
    expect(seen.requests).toBe(0);
  });

  it('null options are no options, as elsewhere', async () => {
    server.use(http.post(`${GW}/v1/wa/message`, () => HttpResponse.json(sendOk('wamid.null'))));
    const gw = new GatewayClient({ apiKey: API_KEY, baseUrl: GW, rateLimit: false });
    expect((await gw.messages.send(text, null as never)).messageId).toBe('wamid.null');
    const results = [];
    for await (const r of gw.messages.sendMany([text], null as never)) results.push(r);
    expect(results).toMatchObject([{ ok: true, messageId: 'wamid.null' }]);
  });

  it('sendMany refuses the same options, a non-function onProgress, and messages that are not iterable', async () => {
    const seen = cutGateway();
    const gw = new GatewayClient({ apiKey: API_KEY, baseUrl: GW, rateLimit: false });
    const first = (messages: unknown, options: unknown) =>
      gw.messages.sendMany(messages as never, options as never).next();
    await expect(first([text], { isFake: 'false' })).rejects.toThrow(
      /sendMany: isFake must be true or false/,
    );
    await expect(first([text], { signal: {} })).rejects.toThrow(/sendMany: signal must be an AbortSignal/);
    await expect(first([text], { onProgress: 'x' })).rejects.toThrow(ConfigurationError);
    await expect(first(null, {})).rejects.toThrow(MessageValidationError);
    await expect(first('abc', {})).rejects.toThrow(
      /Invalid sendMany argument: \(root\): must be an array or an \(async\) iterable of messages; got a string/,
    );
    expect(seen.requests).toBe(0);
  });

  it('messaging_product is the SDK’s: neither extraFields nor an unchecked message can override it', async () => {
    const seen = cutGateway();
    const gw = new GatewayClient({ apiKey: API_KEY, baseUrl: GW, rateLimit: false });
    await expect(gw.messages.send(text, { extraFields: { messaging_product: 'sms' } })).rejects.toThrow(
      /messaging_product: is set by the SDK/,
    );
    await expect(
      gw.messages.send({ ...text, messaging_product: 'sms' }, { validate: false }),
    ).rejects.toThrow(MessageValidationError);
    expect(seen.requests).toBe(0);
  });
});

describe('a service window or catalogue store is bounded and typed', () => {
  const never = () => new Promise<never>(() => {});
  const windowOf = (lastInbound: () => Promise<unknown>) =>
    ({ recordInbound: async () => {}, lastInbound }) as unknown as WindowStore;
  const template = {
    to: '998901234567',
    type: 'template',
    template: { name: 'x', language: { code: 'en' } },
  } as const;

  it.each([
    [
      'throws',
      () => Promise.reject(new Error('ECONNREFUSED redis')),
      /the service window's store failed \(Error\)/,
    ],
    ['answers a string (fails closed, not open)', async () => String(Date.now()), /answered a string/],
    ['answers NaN', async () => Number.NaN, /answered NaN/],
  ])('a store that %s: NotSentError (certainly not sent), no request', async (_, lastInbound, message) => {
    let requests = 0;
    server.use(
      http.post(`${GW}/v1/wa/message`, () => {
        requests++;
        return HttpResponse.json(sendOk());
      }),
    );
    const gw = new GatewayClient({
      apiKey: API_KEY,
      baseUrl: GW,
      rateLimit: false,
      serviceWindow: windowOf(lastInbound),
    });
    const sent = gw.messages.send(text);
    await expect(sent).rejects.toThrow(NotSentError);
    await expect(sent).rejects.toThrow(message);
    const results = [];
    for await (const r of gw.messages.sendMany([text])) results.push(r);
    expect(results[0]).toMatchObject({ ok: false, notSent: true, error: { name: 'NotSentError' } });
    expect(requests).toBe(0);
  });

  it('a store that never answers is bounded by timeoutMs (TimeoutError, nothing sent) and by the signal', async () => {
    const gw = new GatewayClient({
      apiKey: API_KEY,
      baseUrl: GW,
      rateLimit: false,
      timeoutMs: 50,
      serviceWindow: windowOf(never),
    });
    const timedOut = gw.messages.send(text);
    await expect(timedOut).rejects.toThrow(TimeoutError);
    await expect(timedOut).rejects.toMatchObject({ mayHaveBeenSent: false, timeoutMs: 50 });
    const stop = new AbortController();
    const aborted = gw.messages.send(text, { signal: stop.signal, timeoutMs: 60_000 });
    stop.abort(new Error('caller gave up'));
    await expect(aborted).rejects.toThrow('caller gave up');
  });

  it('a catalogue store that never answers is bounded by the signal', async () => {
    const catalog = new TemplateCatalog({
      store: { get: never, update: never, list: never } as unknown as TemplateStore,
    });
    const gw = new GatewayClient({ apiKey: API_KEY, baseUrl: GW, rateLimit: false, templates: catalog });
    const stop = new AbortController();
    const sent = gw.messages.send(template, { signal: stop.signal });
    stop.abort(new Error('caller gave up'));
    await expect(sent).rejects.toThrow('caller gave up');
  });

  it('sendMany ends once its signal aborts, though the store never answers: every message notSent', async () => {
    const stop = new AbortController();
    // The first read aborts the batch while it and a second read hang.
    const store = windowOf(() => {
      queueMicrotask(() => stop.abort(new Error('operator stop')));
      return never();
    });
    const gw = new GatewayClient({
      apiKey: API_KEY,
      baseUrl: GW,
      rateLimit: false,
      timeoutMs: 60_000,
      serviceWindow: store,
    });
    const results = [];
    for await (const r of gw.messages.sendMany([text, text, text], { signal: stop.signal, concurrency: 2 })) {
      results.push(r);
    }
    expect(results.map((r) => !r.ok && r.notSent)).toEqual([true, true, true]);
  });
});
