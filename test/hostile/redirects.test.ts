/**
 * No SDK request follows a redirect. Two real servers on loopback: the one the client is aimed at answers every
 * request with a 3xx, and a second origin counts what reaches it. Before the fix, fetch followed a 307/308 with
 * the body: the platform password, a message, a template went to the second origin, and its answer was trusted.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GatewayClient, PlatformClient, PublicApiClient, RedirectError } from '../../src/index.js';
import { startServer } from '../helpers/http-server.js';

const PASSWORD = 'hunter2-platform-password-0042';
const TOKEN = 'eyJhbGciOiJIUzI1NiJ9.redirects.c2ln';
const CONV = '3f2b8c1e-4d5a-4b6c-9e7f-0a1b2c3d4e5f';
const STATUSES = [301, 302, 303, 307, 308] as const;

interface Scenario {
  status: number;
  /** 'other': Location on the second server; 'same': another path of the same server. */
  target: 'other' | 'same';
  /** The platform's login answers normally, so calls that need a token reach their own redirect. */
  loginOk: boolean;
}

let scenario: Scenario = { status: 307, target: 'other', loginOk: false };
/** How the origin answers a GET: like any request ('redirect'), with a 200 ('ok'), or never ('hang'). */
let onGet: 'redirect' | 'ok' | 'hang' = 'redirect';
/** Every request that reached the origin, in order. */
const arrivals: {
  method: string;
  path: string;
  authorization: string | undefined;
  tenant: string | undefined;
  body: string;
}[] = [];
let other: Awaited<ReturnType<typeof startServer>>;
let origin: Awaited<ReturnType<typeof startServer>>;
const reached = { other: 0, sameOriginTarget: 0 };

function redirecting(req: IncomingMessage, res: ServerResponse, body: string): void {
  const path = new URL(req.url ?? '/', 'http://x').pathname;
  arrivals.push({
    method: req.method ?? '',
    path,
    authorization: req.headers.authorization,
    tenant: req.headers['x-tenant'] as string | undefined,
    body,
  });
  if (req.method === 'GET' && onGet === 'hang') return;
  if (req.method === 'GET' && onGet === 'ok') {
    return void res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  }
  if (path.startsWith('/landing')) {
    reached.sameOriginTarget++;
    return void res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  }
  if (scenario.loginOk && path === '/jwt/') {
    return void res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ token: TOKEN, account: { uuid: CONV }, otp: false, client: { device_id: 1 } }));
  }
  const base = scenario.target === 'other' ? other.url : origin.url;
  res.writeHead(scenario.status, { location: `${base}/landing${path}?token=${TOKEN}` }).end();
}

beforeAll(async () => {
  other = await startServer((_req, res) => {
    reached.other++;
    // What a hostile host would answer: a token, a wamid, a created template; none of it may be trusted.
    res.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        token: 'stolen',
        account: { uuid: CONV },
        isSuccess: true,
        data: { messages: [{ id: 'wamid.fake' }], contacts: [] },
      }),
    );
  });
  origin = await startServer((req, res, body) => redirecting(req, res, body));
});
afterAll(async () => {
  await other.close();
  await origin.close();
});

const gateway = () =>
  new GatewayClient({ apiKey: 'gw_key_0123456789abcdef', baseUrl: origin.url, maxRetries: 0 });
const publicApi = () =>
  new PublicApiClient({ secretKey: 'sk_0123456789abcdef', baseUrl: `${origin.url}/api/v1`, maxRetries: 0 });
const platform = () =>
  new PlatformClient({
    platformUrl: origin.url,
    streamUrl: origin.url,
    username: 'ops@example.com',
    password: PASSWORD,
    maxRetries: 0,
  });

const calls: [string, boolean, () => Promise<unknown>][] = [
  [
    'gateway messages.send',
    false,
    () => gateway().messages.send({ to: '998901234567', type: 'text', text: { body: 'hi' } }),
  ],
  ['gateway media.download', false, () => gateway().media.download('media-1', { phoneNumberId: 'PN1' })],
  [
    'public API templates.create',
    false,
    () =>
      publicApi().templates.create('app_1', {
        name: 'order_shipped',
        language: 'en_US',
        category: 'UTILITY',
        body: { text: 'Order {{1}} has shipped.', examples: ['#1042'] },
      }),
  ],
  ['public API request', false, () => publicApi().request('GET', '/templates')],
  ['platform login', false, () => platform().auth.login()],
  ['platform reports.get', true, () => platform().reports.get()],
  ['platform messages.send', true, () => platform().messages.send(CONV, [{ type: 'text', content: 'hi' }])],
  [
    'platform messages.stream',
    true,
    async () => {
      for await (const _ of platform().messages.stream()) {
        // drained
      }
    },
  ],
];

describe.each(STATUSES)('a %i answer', (status) => {
  describe.each(['other', 'same'] as const)('to the %s origin', (target) => {
    it.each(calls)(
      '%s: RedirectError naming the status and origin; the target receives nothing',
      async (_, loginOk, call) => {
        scenario = { status, target, loginOk };
        reached.other = 0;
        reached.sameOriginTarget = 0;
        const error = await call().then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(error).toBeInstanceOf(RedirectError);
        const redirect = error as RedirectError;
        expect(redirect.status).toBe(status);
        expect(redirect.location).toBe(target === 'other' ? other.url : origin.url);
        const shown = `${redirect.message} ${JSON.stringify(redirect)}`;
        expect(shown).toContain(String(status));
        expect(shown).not.toContain(TOKEN);
        expect(shown).not.toContain('/landing');
        expect(shown).not.toContain(PASSWORD);
        expect(reached).toEqual({ other: 0, sameOriginTarget: 0 });
      },
    );
  });
});

/**
 * Node's fetch sends the SDK's requests with `redirect: 'error'` (undici clones every request sent with another
 * mode: about 10% of a send). It then refuses a 3xx without saying which or where, so the transport asks once more
 * with a GET of the same URL: no credential, no header of the caller's, no body, never followed.
 */
describe("on Node's own fetch, the redirect's status and origin come from one bare GET", () => {
  const send = (client: GatewayClient) =>
    client.messages.send({ to: '998901234567', type: 'text', text: { body: 'hi' } }).then(
      () => undefined,
      (e: unknown) => e,
    );
  const tenantClient = (extra: Partial<ConstructorParameters<typeof GatewayClient>[0]> = {}) =>
    new GatewayClient({
      apiKey: 'gw_key_0123456789abcdef',
      baseUrl: origin.url,
      maxRetries: 0,
      defaultHeaders: { 'x-tenant': 'tenant-secret' },
      ...extra,
    });

  it('asks with a GET that carries nothing of the request', async () => {
    scenario = { status: 308, target: 'other', loginOk: false };
    onGet = 'redirect';
    arrivals.length = 0;
    const error = (await send(tenantClient())) as RedirectError;
    expect(error).toBeInstanceOf(RedirectError);
    expect([error.status, error.location]).toEqual([308, other.url]);
    expect(arrivals).toEqual([
      expect.objectContaining({ method: 'POST', path: '/v1/wa/message', tenant: 'tenant-secret' }),
      { method: 'GET', path: '/v1/wa/message', authorization: undefined, tenant: undefined, body: '' },
    ]);
    expect(arrivals[0]!.authorization).toBe('Bearer gw_key_0123456789abcdef');
  });

  it('says it was a redirect, without status or origin, when the GET is not redirected', async () => {
    scenario = { status: 307, target: 'other', loginOk: false };
    onGet = 'ok';
    try {
      const error = (await send(tenantClient())) as RedirectError;
      expect(error).toBeInstanceOf(RedirectError);
      expect([error.status, error.location]).toEqual([0, undefined]);
      expect(error.message).toContain('HTTP 3xx: a redirect');
    } finally {
      onGet = 'redirect';
    }
  });

  it("ends within the call's timeout when the GET is never answered", async () => {
    scenario = { status: 307, target: 'other', loginOk: false };
    onGet = 'hang';
    try {
      // Long enough that the POST's own answer, which comes at once, never loses the race on a busy machine.
      const error = (await send(tenantClient({ timeoutMs: 2000 }))) as RedirectError;
      expect(error).toBeInstanceOf(RedirectError);
      expect([error.status, error.location]).toEqual([0, undefined]);
    } finally {
      onGet = 'redirect';
    }
  });

  it('is not needed with a custom fetch, which gets the redirect itself', async () => {
    scenario = { status: 302, target: 'same', loginOk: false };
    arrivals.length = 0;
    const error = (await send(tenantClient({ fetch: (input, init) => fetch(input, init) }))) as RedirectError;
    expect([error.status, error.location]).toEqual([302, origin.url]);
    expect(arrivals.map((a) => a.method)).toEqual(['POST']);
  });
});
