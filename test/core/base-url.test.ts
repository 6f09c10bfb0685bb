/** A base URL that already carries the version the SDK appends is refused, not sent to `/v1/v1/wa/message`. */
import { describe, expect, it } from 'vitest';
import { ConfigurationError, GatewayClient, PlatformClient, PublicApiClient } from '../../src/index.js';

const gateway = (baseUrl: string) => new GatewayClient({ apiKey: 'gw_key_0123456789abcdef', baseUrl });
const platform = (platformUrl: string) =>
  new PlatformClient({ platformUrl, streamUrl: 'https://stream.example.com', token: 'eyJ.tok.en' });

describe('base URLs ending in the version the SDK adds', () => {
  it.each([
    ['https://gw.example.com/v1', '/v1'],
    ['https://gw.example.com/v1/', '/v1'],
    ['https://gw.example.com/V1', '/V1'],
    ['https://gw.example.com/v1/wa', '/v1/wa'],
    ['https://gw.example.com/v1/wa/message', '/v1/wa/message'],
  ])('GatewayClient refuses %s, quoting the %s it was given', (url, quoted) => {
    expect(() => gateway(url)).toThrow(ConfigurationError);
    expect(() => gateway(url)).toThrow(`must not include '${quoted}': the SDK adds '/v1' itself`);
    expect(() => gateway(url)).toThrow(`'...${quoted}/v1/...'`);
  });

  it.each([
    ['https://crm.example.com/public/api/v1', '/public/api/v1'],
    ['https://crm.example.com/public/api/v1/', '/public/api/v1'],
    ['https://crm.example.com/api/v1', '/api/v1'],
    ['https://crm.example.com/public/api', '/public/api'],
    ['https://crm.example.com/crm/public', '/public'],
  ])('PublicApiClient refuses onPremBase %s, quoting %s', (onPremBase, quoted) => {
    const make = () => new PublicApiClient({ secretKey: 'sk_0123456789', onPremBase });
    expect(make).toThrow(ConfigurationError);
    expect(make).toThrow(`onPremBase must not include '${quoted}': the SDK adds '/public/api/v1' itself`);
  });

  it('PublicApiClient takes an onPremBase root or prefix and appends /public/api/v1 once', () => {
    expect(
      new PublicApiClient({ secretKey: 'sk_0123456789', onPremBase: 'https://crm.example.com' }).baseUrl,
    ).toBe('https://crm.example.com/public/api/v1');
    expect(
      new PublicApiClient({ secretKey: 'sk_0123456789', onPremBase: 'https://example.com/crm' }).baseUrl,
    ).toBe('https://example.com/crm/public/api/v1');
  });

  it('GatewayClient accepts a root and a proxy prefix, and posts to <base>/v1/wa/message', async () => {
    const seen: string[] = [];
    const gw = new GatewayClient({
      apiKey: 'gw_key_0123456789abcdef',
      baseUrl: 'https://proxy.example.com/gateway',
      fetch: async (input) => {
        seen.push(String(input));
        return new Response(
          JSON.stringify({ isSuccess: true, data: { messages: [{ id: 'wamid.1' }], contacts: [] } }),
        );
      },
    });
    await gw.messages.send({ to: '998901234567', type: 'text', text: { body: 'x' } });
    expect(seen).toEqual(['https://proxy.example.com/gateway/v1/wa/message']);
    expect(() => gateway('https://gw.example.com')).not.toThrow();
  });

  it('PlatformClient refuses a platformUrl ending in /v2', () => {
    expect(() => platform('https://platform.example.com/v2')).toThrow("must not include '/v2'");
    expect(() => platform('https://platform.example.com')).not.toThrow();
  });

  it('PublicApiClient still requires its /api/v1 suffix', () => {
    expect(
      () => new PublicApiClient({ secretKey: 'sk_0123456789', baseUrl: 'https://api.example.com' }),
    ).toThrow(/must end in '\/api\/v1'/);
  });

  it('the refusal does not repeat the URL (it may be a key pasted in the wrong place)', () => {
    const url = 'https://gw.example.com/secret-token-abc/v1';
    expect(() => gateway(url)).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining('secret-token-abc') }),
    );
  });
});

/**
 * `URL`'s `search` and `hash` are '' for an empty `?` or `#`, which `href` keeps: `http://h/#` was taken, and every
 * request (with the API key; the platform's login with the password) went to `/`, `http://h/gw?` to
 * `/gw?/v1/wa/message`. Every client's base URL option refuses any `?` or `#`.
 */
describe('base URLs with a query or fragment, empty or not', () => {
  const given = 'https://h.example.com/secret-path';
  const makers: [string, (url: string) => unknown][] = [
    ['GatewayClient baseUrl', (url) => gateway(url)],
    ['PlatformClient platformUrl', (url) => platform(url)],
    [
      'PlatformClient streamUrl',
      (url) =>
        new PlatformClient({ platformUrl: 'https://p.example.com', streamUrl: url, token: 'eyJ.tok.en' }),
    ],
    [
      'PublicApiClient onPremBase',
      (url) => new PublicApiClient({ secretKey: 'sk_0123456789', onPremBase: url }),
    ],
    [
      'PublicApiClient baseUrl',
      (url) =>
        new PublicApiClient({ secretKey: 'sk_0123456789', baseUrl: url.replace('/secret-path', '/api/v1') }),
    ],
  ];
  const suffixes = ['?', '#', '/?', '/#', '?#', '?a=1', '#frag'];

  it.each(makers)('%s refuses each, without quoting the URL', (_, make) => {
    for (const suffix of suffixes) {
      const error = (() => {
        try {
          make(`${given}${suffix}`);
        } catch (e) {
          return e;
        }
      })();
      expect(error, suffix).toBeInstanceOf(ConfigurationError);
      expect((error as Error).message, suffix).toMatch(/must not carry a query, fragment or credentials\.$/);
      expect((error as Error).message).not.toContain('secret-path');
    }
    expect(() => make(given)).not.toThrow();
  });
});
