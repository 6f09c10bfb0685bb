import { readFile } from 'node:fs/promises';
import { inspect } from 'node:util';
import { HttpResponse, http } from 'msw';
import { describe, expect, it, vi } from 'vitest';
import pkg from '../../package.json' with { type: 'json' };
import { ConfigurationError, GatewayClient, RateLimiter, SDK_VERSION } from '../../src/index.js';
import { API_KEY, envelope, GW, sendOk, useMswServer } from '../helpers/msw.js';

const server = useMswServer();
const text = { to: '998901234567', type: 'text', text: { body: 'Hi' } } as const;

describe('GatewayClient construction', () => {
  it.each([
    [{ baseUrl: GW }, /apiKey is required/],
    [{ apiKey: '', baseUrl: GW }, /apiKey is required.*empty string/],
    [{ apiKey: `${API_KEY}\n`, baseUrl: GW }, /whitespace/],
    [{ apiKey: API_KEY }, /baseUrl is required/],
    [{ apiKey: API_KEY, baseUrl: 'gw.example.com' }, /not a valid URL/],
    [{ apiKey: API_KEY, baseUrl: 'ftp://gw.example.com' }, /http\(s\)/],
    [{ apiKey: API_KEY, baseUrl: 'https://u:p@gw.example.com' }, /credentials/],
    [{ apiKey: API_KEY, baseUrl: GW, timeoutMs: -1 }, /timeoutMs/],
    [{ apiKey: API_KEY, baseUrl: GW, maxRetries: 1.5 }, /maxRetries/],
    [{ apiKey: API_KEY, baseUrl: GW, rateLimit: { perSecond: 0 } }, /rateLimit/],
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
    await gw.messages.send(text);
    await gw.messages.send(text, { isFake: true });
    await gw.messages.send(text, { mmlite: true, isFake: false });
    expect(queries).toEqual(['', '?is_fake=true', '?mmlite=true']);
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
