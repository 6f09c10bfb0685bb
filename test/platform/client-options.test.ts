import { inspect } from 'node:util';
import { describe, expect, it } from 'vitest';
import { ConfigurationError } from '../../src/core/errors.js';
import { PlatformClient, type PlatformClientOptions } from '../../src/platform/index.js';

const base = { platformUrl: 'https://platform.test', streamUrl: 'https://stream.test' };
const PASSWORD = 'correct horse battery staple';

function make(options: unknown) {
  return () => new PlatformClient(options as PlatformClientOptions);
}

describe('PlatformClient options', () => {
  it('accepts credentials, a token, or both', () => {
    expect(make({ ...base, username: 'ops', password: PASSWORD })).not.toThrow();
    expect(make({ ...base, token: 'ready-token-abcdef' })).not.toThrow();
    expect(make({ ...base, username: 'ops', password: PASSWORD, token: 'ready-token-abcdef' })).not.toThrow();
  });

  it.each([
    ['no options', undefined, /options object/],
    ['no platformUrl', { streamUrl: base.streamUrl, token: 'tok-abcdef' }, /platformUrl is required/],
    ['no streamUrl', { platformUrl: base.platformUrl, token: 'tok-abcdef' }, /streamUrl is required/],
    [
      'a bad URL',
      { ...base, platformUrl: 'platform.test', token: 'tok-abcdef' },
      /platformUrl is not a valid URL/,
    ],
    ['neither credentials nor token', { ...base }, /username and password .* or a token/],
    ['a username alone', { ...base, username: 'ops' }, /password is required/],
    ['a password alone', { ...base, password: PASSWORD }, /username is required/],
    ['an empty password', { ...base, username: 'ops', password: '' }, /password is required/],
    ['a token with its JWT prefix', { ...base, token: 'JWT abc.def.ghi' }, /without the `JWT ` prefix/],
    ['a token with a newline', { ...base, token: 'abcdef\n' }, /whitespace/],
    [
      'a tokenStore without set',
      { ...base, token: 'tok-abcdef', tokenStore: { get: async () => undefined } },
      /tokenStore/,
    ],
    ['a negative timeout', { ...base, token: 'tok-abcdef', timeoutMs: -1 }, /timeoutMs/],
    ['a fractional maxRetries', { ...base, token: 'tok-abcdef', maxRetries: 1.5 }, /maxRetries/],
  ])('refuses %s at construction', (_name, options, message) => {
    expect(make(options)).toThrow(ConfigurationError);
    expect(make(options)).toThrow(message);
  });

  it('never names the password in a configuration error', () => {
    try {
      make({ ...base, password: PASSWORD })();
    } catch (error) {
      expect(String(error)).not.toContain(PASSWORD);
    }
    expect.assertions(1);
  });

  it('redacts credentials in inspect and JSON but shows the hosts and the username', () => {
    const client = new PlatformClient({
      ...base,
      username: 'ops',
      password: PASSWORD,
      token: 'ready-token-abcdef',
    });
    for (const text of [inspect(client, { depth: 10 }), JSON.stringify(client)]) {
      expect(text).not.toContain(PASSWORD);
      expect(text).not.toContain('ready-token-abcdef');
      expect(text).toContain('https://platform.test');
      expect(text).toContain('ops');
      expect(text).toContain('[redacted]');
    }
    for (const resource of [client.auth, client.messages, client.reports, client.conversations]) {
      const text = inspect(resource, { depth: 10, showHidden: true });
      expect(text).not.toContain(PASSWORD);
      expect(text).not.toContain('ready-token-abcdef');
    }
  });

  it('strips a trailing slash of the base URLs', () => {
    const client = new PlatformClient({
      ...base,
      platformUrl: 'https://platform.test/api/',
      token: 'tok-abcdef',
    });
    expect(client.platformUrl).toBe('https://platform.test/api');
  });
});

describe("new PlatformClient: an option's near-miss key", () => {
  it.each([
    ['platformURL', 'platformUrl'],
    ['stream_url', 'streamUrl'],
    ['userName', 'username'],
    ['tokenstore', 'tokenStore'],
    ['timeout', 'timeoutMs'],
    ['max_retries', 'maxRetries'],
  ])(
    '%s is refused, naming %s (before the missing option it stood for is), and nothing is sent',
    (key, meant) => {
      let requests = 0;
      const fetch = async () => {
        requests++;
        return new Response('{}');
      };
      // The option meant is missing, as it is when its name is mistyped: the near miss is what is named.
      const options: Record<string, unknown> = { ...base, token: 'tok-abcdef', fetch, [key]: 'x' };
      delete options[meant];
      const error = (() => {
        try {
          make(options)();
        } catch (e) {
          return e;
        }
        return undefined;
      })();
      expect(error).toBeInstanceOf(ConfigurationError);
      expect((error as Error).message).toBe(
        `new PlatformClient: unknown option '${key}': did you mean '${meant}'?`,
      );
      expect(requests).toBe(0);
    },
  );

  it('a key close to no option is left alone', () => {
    const client = new PlatformClient({
      ...base,
      token: 'tok-abcdef',
      region: 'eu',
    } as PlatformClientOptions);
    expect(client.platformUrl).toBe(base.platformUrl);
  });
});
