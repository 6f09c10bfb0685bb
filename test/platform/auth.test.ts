import { inspect } from 'node:util';
import { delay, HttpResponse, http } from 'msw';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiPromise } from '../../src/core/api-promise.js';
import {
  AuthenticationError,
  BadRequestError,
  ConfigurationError,
  ConnectionError,
  InvalidResponseError,
} from '../../src/core/errors.js';
import {
  LoginFailedError,
  MemoryTokenStore,
  PlatformClient,
  type PlatformClientOptions,
  type TokenEntry,
  type TokenStore,
} from '../../src/platform/index.js';
import { TOKEN_LIFETIME_MS } from '../../src/platform/login.js';
import { TOKEN_REFRESH_MARGIN_MS } from '../../src/platform/token-manager.js';
import { captureLogger } from '../helpers/capture-logger.js';
import { useMswServer } from '../helpers/msw.js';
import { PLATFORM, STREAM } from '../helpers/platform.js';

const USERNAME = 'ops@example.com';
const PASSWORD = 'S3cret pass-phrase 42';
const ACCOUNT = '7d3f1c2b-0a9e-4b8d-8c7f-6e5d4c3b2a19';

const server = useMswServer();

/** A platform that issues tok-1, tok-2, ... and accepts only the tokens listed in `valid` (all by default). */
function platform(
  options: { valid?: (token: string) => boolean; otp?: boolean; loginDelayMs?: number } = {},
) {
  const seen = {
    logins: 0,
    loginBodies: [] as unknown[],
    loginAuth: [] as (string | null)[],
    calls: [] as string[],
  };
  server.use(
    http.post(`${PLATFORM}/jwt/`, async ({ request }) => {
      seen.logins++;
      seen.loginAuth.push(request.headers.get('authorization'));
      seen.loginBodies.push(await request.json());
      if (options.loginDelayMs) await delay(options.loginDelayMs);
      return HttpResponse.json({
        token: `tok-${seen.logins}-abcdefghijklmnop`,
        account: { uuid: ACCOUNT },
        otp: options.otp ?? false,
        client: { device_id: 'device-1' },
      });
    }),
    http.get(`${PLATFORM}/reports/`, ({ request }) => {
      const auth = request.headers.get('authorization') ?? '';
      seen.calls.push(auth);
      const token = auth.replace(/^JWT /, '');
      if (options.valid && !options.valid(token)) {
        return HttpResponse.json({ detail: 'Invalid auth key.' }, { status: 401 });
      }
      return HttpResponse.json({ messages: [] });
    }),
  );
  return seen;
}

function client(extra: Partial<PlatformClientOptions> = {}) {
  return new PlatformClient({
    platformUrl: PLATFORM,
    streamUrl: STREAM,
    username: USERNAME,
    password: PASSWORD,
    ...extra,
  });
}

afterEach(() => {
  vi.useRealTimers();
});

/** A store holding `token`, fresh for 24 h, that keeps what the client writes (`stored()`). */
function storeHolding(token: string) {
  let entry: TokenEntry | undefined = { token, expiresAt: Date.now() + TOKEN_LIFETIME_MS };
  const store: TokenStore = {
    get: async () => entry,
    set: async (e) => {
      entry = e;
    },
  };
  return { store, stored: () => entry };
}

describe('login', () => {
  it('POSTs username and password to /jwt/ without an Authorization header and returns the answer', async () => {
    const seen = platform();
    const before = Date.now();
    const result = await client().auth.login();
    expect(seen.logins).toBe(1);
    expect(seen.loginBodies[0]).toEqual({ username: USERNAME, password: PASSWORD });
    expect(seen.loginAuth[0]).toBeNull();
    expect(result.token).toBe('tok-1-abcdefghijklmnop');
    expect(result.accountUuid).toBe(ACCOUNT);
    expect(result.otp).toBe(false);
    expect(result.deviceId).toBe('device-1');
    expect(result.expiresAt).toBeGreaterThanOrEqual(before + TOKEN_LIFETIME_MS);
    expect(result.expiresAt).toBeLessThanOrEqual(Date.now() + TOKEN_LIFETIME_MS);
  });

  it('returns an ApiPromise like every call: withResponse adds the answer, shared by a login joined in flight', async () => {
    let logins = 0;
    server.use(
      http.post(`${PLATFORM}/jwt/`, async () => {
        logins++;
        return HttpResponse.json(
          { token: `tok-${logins}-abcdefghijklmnop`, account: { uuid: ACCOUNT } },
          { status: 201, headers: { 'x-request-id': `req-login-${logins}` } },
        );
      }),
    );
    const c = client();
    const first = c.auth.login();
    const joined = c.auth.login();
    expect(first).toBeInstanceOf(ApiPromise);
    const [a, b] = await Promise.all([first.withResponse(), joined.withResponse()]);
    expect(logins).toBe(1);
    for (const { data, response } of [a, b]) {
      expect(data.token).toBe('tok-1-abcdefghijklmnop');
      expect(data.accountUuid).toBe(ACCOUNT);
      expect(response).toMatchObject({ status: 201, requestId: 'req-login-1', attempts: 1 });
      expect(response.headers.get('x-request-id')).toBe('req-login-1');
    }
    // Awaited, it is the result alone, and withResponse on a fresh login reports that login's answer.
    expect((await c.auth.login()).token).toBe('tok-2-abcdefghijklmnop');
    expect((await c.auth.login().withResponse()).response.requestId).toBe('req-login-3');
  });

  it('a client holding only a token: login() and its withResponse() reject with a ConfigurationError', async () => {
    const c = new PlatformClient({
      platformUrl: PLATFORM,
      streamUrl: STREAM,
      token: 'preset-token-0123456789',
    });
    const call = c.auth.login();
    expect(call).toBeInstanceOf(ApiPromise);
    await expect(call).rejects.toBeInstanceOf(ConfigurationError);
    await expect(c.auth.login().withResponse()).rejects.toBeInstanceOf(ConfigurationError);
  });

  it('logs in lazily on the first call and sends Authorization: JWT <token>', async () => {
    const seen = platform();
    await client().reports.get();
    expect(seen.logins).toBe(1);
    expect(seen.calls).toEqual(['JWT tok-1-abcdefghijklmnop']);
  });

  it('reuses the token of an explicit login for later calls', async () => {
    const seen = platform();
    const c = client();
    await c.auth.login();
    await c.reports.get();
    await c.reports.get();
    expect(seen.logins).toBe(1);
  });

  it('surfaces otp: true in the result and warns through the logger', async () => {
    platform({ otp: true });
    const warn = vi.fn();
    const result = await client({ logger: { warn } }).auth.login();
    expect(result.otp).toBe(true);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(String(warn.mock.calls[0]?.[0])).toMatch(/one-time password/);
  });

  it('does not warn when otp is false', async () => {
    platform({ otp: false });
    const warn = vi.fn();
    await client({ logger: { warn } }).auth.login();
    expect(warn).not.toHaveBeenCalled();
  });

  it('turns a refused login (400 non_field_errors) into LoginFailedError, an AuthenticationError', async () => {
    let logins = 0;
    let reports = 0;
    server.use(
      http.post(`${PLATFORM}/jwt/`, () => {
        logins++;
        return HttpResponse.json(
          { non_field_errors: ['Unable to log in with provided credentials.'] },
          { status: 400 },
        );
      }),
      http.get(`${PLATFORM}/reports/`, () => {
        reports++;
        return HttpResponse.json({});
      }),
    );
    const error = await client()
      .reports.get()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LoginFailedError);
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error).not.toBeInstanceOf(BadRequestError);
    const e = error as LoginFailedError;
    expect(e.reasons).toEqual(['Unable to log in with provided credentials.']);
    expect(e.description).toBe('Unable to log in with provided credentials.');
    expect(e.message).toContain('Unable to log in with provided credentials.');
    expect(e.status).toBe(400);
    // One login attempt: a refused login is not mistaken for a 401 of the call and retried.
    expect(logins).toBe(1);
    expect(reports).toBe(0);
  });

  it('a login answered 401 fails the call as it is, without a second login', async () => {
    let logins = 0;
    let reports = 0;
    server.use(
      http.post(`${PLATFORM}/jwt/`, () => {
        logins++;
        return HttpResponse.json({ detail: 'Account disabled.' }, { status: 401 });
      }),
      http.get(`${PLATFORM}/reports/`, () => {
        reports++;
        return HttpResponse.json({});
      }),
    );
    const error = await client()
      .reports.get()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthenticationError);
    expect((error as AuthenticationError).request).toEqual({ method: 'POST', path: '/jwt/' });
    expect((error as AuthenticationError).description).toBe('Account disabled.');
    // The login's own 401 is not the call's: no re-login, and no "no credentials configured" advice.
    expect((error as Error).message).not.toMatch(/no username\/password/);
    expect(logins).toBe(1);
    expect(reports).toBe(0);
  });

  it('a login that cannot connect fails the call with its ConnectionError, not retried as the call', async () => {
    let logins = 0;
    server.use(
      http.post(`${PLATFORM}/jwt/`, () => {
        logins++;
        return HttpResponse.error();
      }),
    );
    const log = captureLogger();
    const error = await client({ maxRetries: 1, logger: log.logger })
      .reports.get()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    // The login's own retry only: the call does not repeat a failure that was not its own.
    expect(logins).toBe(2);
    expect(log.messages()).toEqual(['wa-gateway-sdk: retrying request']);
  });

  // Such a token went into `Authorization: JWT <token>`, where fetch refused it: every call failed as a
  // ConnectionError, repeated 3 times, that said nothing about the token.
  it.each([
    ['a line break', 'tok-secret\r\nx-injected: 1'],
    ['a space', 'tok secret'],
    ['a character beyond ASCII', 'tok-secret-€'],
    ['a control character', 'tok-secret\u0001'],
  ])(
    'refuses a login answered with a token holding %s, naming the problem, never the token',
    async (_, token) => {
      const seen = { logins: 0, calls: 0 };
      server.use(
        http.post(`${PLATFORM}/jwt/`, () => {
          seen.logins++;
          return HttpResponse.json({ token });
        }),
        http.get(`${PLATFORM}/reports/`, () => {
          seen.calls++;
          return HttpResponse.json({ messages: [] });
        }),
      );
      const platformClient = client({ logLevel: 'off' });
      for (const call of [() => platformClient.reports.get(), () => platformClient.auth.login()]) {
        const error = await call().catch((e: unknown) => e);
        expect(error).toBeInstanceOf(InvalidResponseError);
        expect((error as Error).message).toMatch(
          /^POST \/jwt\/ answered 200 with a token that cannot be sent in the Authorization header/,
        );
        expect(JSON.stringify(error)).not.toContain('secret');
        expect(inspect(error)).not.toContain('secret');
      }
      expect(seen).toEqual({ logins: 2, calls: 0 });
    },
  );

  it('reports field errors of a refused login as reasons', async () => {
    server.use(
      http.post(`${PLATFORM}/jwt/`, () =>
        HttpResponse.json({ password: ['This field may not be blank.'] }, { status: 400 }),
      ),
    );
    const error = (await client()
      .auth.login()
      .catch((e: unknown) => e)) as LoginFailedError;
    expect(error).toBeInstanceOf(LoginFailedError);
    expect(error.reasons).toEqual(['password: This field may not be blank.']);
  });

  it('refuses auth.login() on a client that only has a token', async () => {
    await expect(
      new PlatformClient({
        platformUrl: PLATFORM,
        streamUrl: STREAM,
        token: 'ready-token-123456',
      }).auth.login(),
    ).rejects.toBeInstanceOf(ConfigurationError);
  });

  it('retries a login that met a 503 (logging in twice has no effect)', async () => {
    let logins = 0;
    server.use(
      http.post(`${PLATFORM}/jwt/`, () => {
        logins++;
        if (logins === 1) return HttpResponse.json({ detail: 'unavailable' }, { status: 503 });
        return HttpResponse.json({
          token: 'tok-after-503-xyz',
          account: { uuid: ACCOUNT },
          otp: false,
          client: {},
        });
      }),
    );
    const log = captureLogger();
    const result = await client({ maxRetries: 1, logger: log.logger }).auth.login();
    expect(result.token).toBe('tok-after-503-xyz');
    expect(log.messages()).toEqual(['wa-gateway-sdk: retrying request']);
    expect(result.deviceId).toBeNull();
    expect(logins).toBe(2);
  });
});

describe('one login for many callers', () => {
  it('shares a single login between 25 concurrent calls', async () => {
    const seen = platform({ loginDelayMs: 30 });
    const c = client();
    await Promise.all(Array.from({ length: 25 }, () => c.reports.get()));
    expect(seen.logins).toBe(1);
    expect(new Set(seen.calls)).toEqual(new Set(['JWT tok-1-abcdefghijklmnop']));
    expect(seen.calls).toHaveLength(25);
  });

  it('shares a login in flight between auth.login() and calls', async () => {
    const seen = platform({ loginDelayMs: 20 });
    const c = client();
    const [result] = await Promise.all([c.auth.login(), c.reports.get(), c.auth.login()]);
    expect(seen.logins).toBe(1);
    expect(result.token).toBe('tok-1-abcdefghijklmnop');
  });

  it('lets a caller abort its own wait without cancelling the shared login', async () => {
    const seen = platform({ loginDelayMs: 50 });
    const c = client();
    const controller = new AbortController();
    const reason = new Error('caller gave up');
    const aborted = c.reports.get({}, { signal: controller.signal });
    const other = c.reports.get();
    setTimeout(() => controller.abort(reason), 10);
    await expect(aborted).rejects.toBe(reason);
    await expect(other).resolves.toEqual({ messages: [] });
    expect(seen.logins).toBe(1);
  });
});

describe('token expiry', () => {
  it('reuses the token until 24 h minus the margin, then logs in again', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const start = new Date('2024-05-01T08:00:00Z').getTime();
    vi.setSystemTime(start);
    const seen = platform();
    const c = client();
    await c.reports.get();
    expect(seen.logins).toBe(1);
    vi.setSystemTime(start + TOKEN_LIFETIME_MS - TOKEN_REFRESH_MARGIN_MS - 1000);
    await c.reports.get();
    expect(seen.logins).toBe(1);
    vi.setSystemTime(start + TOKEN_LIFETIME_MS - TOKEN_REFRESH_MARGIN_MS + 1000);
    await c.reports.get();
    expect(seen.logins).toBe(2);
    expect(seen.calls.at(-1)).toBe('JWT tok-2-abcdefghijklmnop');
  });

  it('sets expiresAt to the login time plus 24 hours', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const start = new Date('2024-05-01T08:00:00Z').getTime();
    vi.setSystemTime(start);
    platform();
    const result = await client().auth.login();
    expect(result.expiresAt).toBe(start + TOKEN_LIFETIME_MS);
  });
});

describe('401 → one re-login → the call is repeated', () => {
  it('logs in again once and repeats the call', async () => {
    // tok-1 was revoked server-side; tok-2 is good.
    const seen = platform({ valid: (t) => !t.startsWith('tok-1-') });
    const report = await client().reports.get();
    expect(report).toEqual({ messages: [] });
    expect(seen.logins).toBe(2);
    expect(seen.calls).toEqual(['JWT tok-1-abcdefghijklmnop', 'JWT tok-2-abcdefghijklmnop']);
  });

  it('a burst of concurrent 401s causes a single re-login, even when 401s arrive after it', async () => {
    const seen = { logins: 0, calls: 0 };
    server.use(
      http.post(`${PLATFORM}/jwt/`, () => {
        seen.logins++;
        return HttpResponse.json({ token: `tok-${seen.logins}-burst-token`, otp: false });
      }),
      http.get(`${PLATFORM}/reports/`, async ({ request }) => {
        const n = seen.calls++;
        const token = request.headers.get('authorization');
        if (token === 'JWT tok-1-burst-token') {
          // Spread the 401s so that some arrive long after the re-login has completed.
          await delay((n % 10) * 15);
          return HttpResponse.json({ detail: 'Invalid auth key.' }, { status: 401 });
        }
        return HttpResponse.json({ ok: true });
      }),
    );
    const c = client();
    await c.auth.login();
    const results = await Promise.all(Array.from({ length: 20 }, () => c.reports.get()));
    expect(results.every((r) => (r as Record<string, unknown>)['ok'] === true)).toBe(true);
    expect(seen.logins).toBe(2);
  });

  it('does the same for a stream on the stream host', async () => {
    const seen = platform();
    const auth: (string | null)[] = [];
    server.use(
      http.get(`${STREAM}/stream/messages/`, ({ request }) => {
        auth.push(request.headers.get('authorization'));
        if (auth.length === 1) return HttpResponse.json({ detail: 'Invalid auth key.' }, { status: 401 });
        return new HttpResponse('{"id":1,"created_at":"2024-05-01T00:00:00Z"}\n', {
          headers: { 'content-type': 'application/x-ndjson' },
        });
      }),
    );
    const ids: number[] = [];
    for await (const m of client().messages.stream()) ids.push(m.id);
    expect(ids).toEqual([1]);
    expect(auth).toEqual(['JWT tok-1-abcdefghijklmnop', 'JWT tok-2-abcdefghijklmnop']);
    expect(seen.logins).toBe(2);
  });

  it('gives up after one re-login when the new token is refused too', async () => {
    const seen = platform({ valid: () => false });
    const error = await client()
      .reports.get()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthenticationError);
    expect((error as AuthenticationError).description).toBe('Invalid auth key.');
    expect(seen.logins).toBe(2);
    expect(seen.calls).toHaveLength(2);
  });
});

describe('a ready token', () => {
  it('is used without logging in', async () => {
    const seen = platform();
    await new PlatformClient({
      platformUrl: PLATFORM,
      streamUrl: STREAM,
      token: 'ready-token-123456',
    }).reports.get();
    expect(seen.logins).toBe(0);
    expect(seen.calls).toEqual(['JWT ready-token-123456']);
  });

  it('on 401 without credentials: says the token was rejected and nothing can log in again', async () => {
    const seen = platform({ valid: () => false });
    const error = await new PlatformClient({
      platformUrl: PLATFORM,
      streamUrl: STREAM,
      token: 'ready-token-123456',
    }).reports
      .get()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthenticationError);
    const e = error as AuthenticationError;
    expect(e.status).toBe(401);
    expect(e.description).toBe('Invalid auth key.');
    expect(e.message).toMatch(/rejected the token and no username\/password are configured/);
    expect(seen.logins).toBe(0);
    expect(seen.calls).toHaveLength(1);
  });

  it('with credentials too: on 401 the client logs in and repeats the call', async () => {
    const seen = platform({ valid: (t) => t !== 'ready-token-123456' });
    await client({ token: 'ready-token-123456' }).reports.get();
    expect(seen.logins).toBe(1);
    expect(seen.calls).toEqual(['JWT ready-token-123456', 'JWT tok-1-abcdefghijklmnop']);
  });
});

describe('TokenStore', () => {
  it('lets two clients sharing a store log in once', async () => {
    const seen = platform();
    const store = new MemoryTokenStore();
    const a = client({ tokenStore: store });
    const b = client({ tokenStore: store });
    await a.reports.get();
    await b.reports.get();
    await b.reports.get();
    expect(seen.logins).toBe(1);
    expect(seen.calls).toEqual(Array(3).fill('JWT tok-1-abcdefghijklmnop'));
  });

  it('lets two clients sharing a MemoryTokenStore log in once even when they start at the same moment', async () => {
    const seen = platform({ loginDelayMs: 30 });
    const store = new MemoryTokenStore();
    const a = client({ tokenStore: store });
    const b = client({ tokenStore: store });
    await Promise.all([a.reports.get(), b.reports.get(), a.reports.get(), b.reports.get()]);
    expect(seen.logins).toBe(1);
    expect(new Set(seen.calls)).toEqual(new Set(['JWT tok-1-abcdefghijklmnop']));
  });

  it('without a lock, clients that find the store empty at the same moment may each log in', async () => {
    const seen = platform({ loginDelayMs: 30 });
    let stored: TokenEntry | undefined;
    const store: TokenStore = {
      get: async () => stored,
      set: async (e) => {
        stored = e;
      },
    };
    await Promise.all([
      client({ tokenStore: store }).reports.get(),
      client({ tokenStore: store }).reports.get(),
    ]);
    expect(seen.logins).toBe(2);
  });

  it('carries on without the lock when the store lock fails', async () => {
    const seen = platform();
    const warn = vi.fn();
    const store: TokenStore = {
      get: async () => undefined,
      set: async () => {},
      lock: async () => {
        throw new Error('lock service down');
      },
    };
    await client({ tokenStore: store, logger: { warn } }).reports.get();
    expect(seen.logins).toBe(1);
    expect(String(warn.mock.calls[0]?.[0])).toMatch(/lock failed/);
  });

  it('carries on without the lock when the lock fails with an SDK error (a Redis store that is down)', async () => {
    const seen = platform();
    const warn = vi.fn();
    const store: TokenStore = {
      get: async () => undefined,
      set: async () => {},
      lock: async () => {
        throw new ConnectionError('lock store unreachable', { mayHaveBeenSent: false });
      },
    };
    await client({ tokenStore: store, logger: { warn } }).reports.get();
    expect(seen.logins).toBe(1);
    expect(String(warn.mock.calls[0]?.[0])).toMatch(/lock failed/);
  });

  it('a login refused under the lock is not tried again without it', async () => {
    let attempts = 0;
    const store: TokenStore = {
      get: async () => undefined,
      set: async () => {},
      lock: async (task) => task(),
    };
    const failing = client({ tokenStore: store });
    server.use(
      http.post(`${PLATFORM}/jwt/`, () => {
        attempts++;
        return HttpResponse.json(
          { non_field_errors: ['Unable to log in with provided credentials.'] },
          { status: 400 },
        );
      }),
    );
    await expect(failing.reports.get()).rejects.toBeInstanceOf(LoginFailedError);
    expect(attempts).toBe(1);
  });

  it('writes each login to the store, with the 24 h expiry', async () => {
    platform();
    const entries: TokenEntry[] = [];
    const store: TokenStore = { get: async () => undefined, set: async (e) => void entries.push(e) };
    const result = await client({ tokenStore: store }).auth.login();
    expect(entries).toEqual([{ token: result.token, expiresAt: result.expiresAt }]);
  });

  it('ignores an expired stored token and logs in', async () => {
    const seen = platform();
    const store: TokenStore = {
      get: async () => ({ token: 'stale-token-000000', expiresAt: Date.now() + 60_000 }),
      set: async () => {},
    };
    await client({ tokenStore: store }).reports.get();
    expect(seen.logins).toBe(1);
    expect(seen.calls).toEqual(['JWT tok-1-abcdefghijklmnop']);
  });

  it('does not take back the token that was just rejected from the store', async () => {
    const seen = platform({ valid: (t) => t !== 'shared-token-111111' });
    const { store, stored } = storeHolding('shared-token-111111');
    await client({ tokenStore: store }).reports.get();
    expect(seen.calls).toEqual(['JWT shared-token-111111', 'JWT tok-1-abcdefghijklmnop']);
    expect(seen.logins).toBe(1);
    expect(stored()?.token).toBe('tok-1-abcdefghijklmnop');
  });

  it('logs in again when the stored token cannot be sent in a header, as for any bad stored value', async () => {
    const seen = platform();
    const { store, stored } = storeHolding('stored-secret\r\nx-injected: 1');
    const log = captureLogger();
    await client({ tokenStore: store, logger: log.logger }).reports.get();
    expect(seen.logins).toBe(1);
    expect(seen.calls).toEqual(['JWT tok-1-abcdefghijklmnop']);
    expect(stored()?.token).toBe('tok-1-abcdefghijklmnop');
    expect(log.messages()).toEqual([
      'wa-gateway-sdk: the token store returned a token that cannot be sent in a header; logging in instead',
    ]);
    expect(JSON.stringify(log.lines)).not.toContain('secret');
  });

  it('keeps working when the store fails, with a warning', async () => {
    const seen = platform();
    const warn = vi.fn();
    const store: TokenStore = {
      get: async () => {
        throw new Error('redis down');
      },
      set: async () => {
        throw new Error('redis down');
      },
    };
    await client({ tokenStore: store, logger: { warn } }).reports.get();
    expect(seen.logins).toBe(1);
    expect(warn).toHaveBeenCalledTimes(2);
  });
});

describe('secrets stay secret', () => {
  it('never shows the password or the token in errors, inspect, JSON or logs', async () => {
    const lines: string[] = [];
    const record = (level: string) => (message: string, meta?: Record<string, unknown>) =>
      lines.push(`${level} ${message} ${JSON.stringify(meta)}`);
    const logger = {
      debug: record('debug'),
      info: record('info'),
      warn: record('warn'),
      error: record('error'),
    };
    let token = '';
    server.use(
      http.post(`${PLATFORM}/jwt/`, () => {
        token = 'eyJhbGciOiJIUzI1NiJ9.secret-token-payload.sig';
        return HttpResponse.json({ token, account: { uuid: ACCOUNT }, otp: true, client: { device_id: 7 } });
      }),
      // A server that echoes the credentials back in its error bodies.
      http.get(`${PLATFORM}/reports/`, ({ request }) =>
        HttpResponse.json(
          { detail: `Invalid auth key: ${request.headers.get('authorization')} for password ${PASSWORD}` },
          { status: 403 },
        ),
      ),
    );
    const store = new MemoryTokenStore();
    const c = client({ logger, tokenStore: store });
    const result = await c.auth.login();
    const error = await c.reports.get().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    const outputs = [
      inspect(c, { depth: 5 }),
      JSON.stringify(c),
      inspect(result),
      JSON.stringify(result),
      inspect(store),
      JSON.stringify(store),
      inspect(c.auth, { depth: 5 }),
      inspect(error, { depth: 5 }),
      JSON.stringify(error),
      String(error),
      (error as Error).stack ?? '',
      ...lines,
    ];
    expect(token).not.toBe('');
    for (const text of outputs) {
      expect(text).not.toContain(token);
      expect(text).not.toContain(PASSWORD);
    }
    expect(lines.some((l) => l.startsWith('warn'))).toBe(true);
    expect(JSON.stringify(result)).toContain('[redacted]');
    // The result still hands the token to the caller who asked for it.
    expect(result.token).toBe(token);
  });

  it('keeps the password out of a refused login error even if the server echoes it', async () => {
    server.use(
      http.post(`${PLATFORM}/jwt/`, () =>
        HttpResponse.json({ non_field_errors: [`Wrong password ${PASSWORD}`] }, { status: 400 }),
      ),
    );
    const error = (await client()
      .auth.login()
      .catch((e: unknown) => e)) as LoginFailedError;
    expect(error).toBeInstanceOf(LoginFailedError);
    for (const text of [error.message, JSON.stringify(error), inspect(error), error.reasons.join(' ')]) {
      expect(text).not.toContain(PASSWORD);
    }
  });
});
