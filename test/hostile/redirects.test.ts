/**
 * No SDK request follows a redirect, and none asks twice. Two real servers on loopback: the one the client is aimed
 * at answers every request with a 3xx, and a second origin counts what reaches it. Before the fix of issue 23,
 * fetch followed a 307/308 with the body: the platform password, a message, a template went to the second origin,
 * and its answer was trusted. Until issue 36, a redirect refused by Node's fetch cost a second, unauthenticated GET
 * of the same URL to learn its status and target; now every call makes exactly the requests it needs.
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

/**
 * How the client fetches: Node's own fetch (the SDK asks it to refuse redirects, and it then says neither status
 * nor target), or a custom `fetch` (the SDK asks for the 3xx itself, as on Workers and in browsers).
 */
type Runtime = 'node fetch' | 'custom fetch';
let runtime: Runtime = 'node fetch';
const fetchOption = () =>
  runtime === 'custom fetch'
    ? { fetch: (input: RequestInfo | URL, init?: RequestInit) => fetch(input, init) }
    : {};

// Default retries: a redirect is never repeated, so each call makes its requests once.
const gateway = () =>
  new GatewayClient({ apiKey: 'gw_key_0123456789abcdef', baseUrl: origin.url, ...fetchOption() });
const publicApi = () =>
  new PublicApiClient({
    secretKey: 'sk_0123456789abcdef',
    baseUrl: `${origin.url}/api/v1`,
    ...fetchOption(),
  });
const platform = () =>
  new PlatformClient({
    platformUrl: origin.url,
    streamUrl: origin.url,
    username: 'ops@example.com',
    password: PASSWORD,
    ...fetchOption(),
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

describe.each(['node fetch', 'custom fetch'] as const)('on %s', (fetching) => {
  describe.each(STATUSES)('a %i answer', (status) => {
    describe.each(['other', 'same'] as const)('to the %s origin', (target) => {
      it.each(calls)(
        '%s: RedirectError; the target receives nothing, and no request is made twice',
        async (_, loginOk, call) => {
          runtime = fetching;
          scenario = { status, target, loginOk };
          reached.other = 0;
          reached.sameOriginTarget = 0;
          arrivals.length = 0;
          const error = await call().then(
            () => undefined,
            (e: unknown) => e,
          );
          expect(error).toBeInstanceOf(RedirectError);
          const redirect = error as RedirectError;
          // Node's fetch refuses the redirect without its status or target; a custom fetch hands the 3xx over.
          if (fetching === 'node fetch') expect([redirect.status, redirect.location]).toEqual([0, undefined]);
          else
            expect([redirect.status, redirect.location]).toEqual([
              status,
              target === 'other' ? other.url : origin.url,
            ]);
          const shown = `${redirect.message} ${JSON.stringify(redirect)}`;
          expect(redirect.message).toMatch(/redirect/);
          // What to check: the origin the request went to.
          expect(redirect.message).toContain(origin.url);
          expect(shown).not.toContain(TOKEN);
          expect(shown).not.toContain('/landing');
          expect(shown).not.toContain(PASSWORD);
          expect(reached).toEqual({ other: 0, sameOriginTarget: 0 });
          // The login (when it answers) and the call itself: one request each, nothing after the redirect.
          expect(arrivals).toHaveLength(loginOk ? 2 : 1);
          expect(arrivals.filter((a) => a.path === arrivals.at(-1)?.path)).toHaveLength(1);
        },
      );
    });
  });
});

describe("on Node's own fetch, the redirect is reported from the one answer", () => {
  const send = (client: GatewayClient) =>
    client.messages.send({ to: '998901234567', type: 'text', text: { body: 'hi' } }).then(
      () => undefined,
      (e: unknown) => e,
    );

  it('one request, the POST with its headers; the error says what to check and how to see where it points', async () => {
    runtime = 'node fetch';
    scenario = { status: 308, target: 'other', loginOk: false };
    arrivals.length = 0;
    const error = (await send(
      new GatewayClient({
        apiKey: 'gw_key_0123456789abcdef',
        baseUrl: origin.url,
        defaultHeaders: { 'x-tenant': 'tenant-secret' },
      }),
    )) as RedirectError;
    expect(error).toBeInstanceOf(RedirectError);
    expect(arrivals).toEqual([
      expect.objectContaining({ method: 'POST', path: '/v1/wa/message', tenant: 'tenant-secret' }),
    ]);
    expect(error.message).toContain(`The server at ${origin.url} answered with a redirect (3xx)`);
    expect(error.message).toContain("check the client's base URL");
    expect(error.message).toContain(`curl -sI ${origin.url}/v1/wa/message`);
    expect(error.message).toMatch(/\(POST \/v1\/wa\/message\)$/);
    expect(error.message).not.toContain('gw_key_');
  });

  it('with a custom fetch, the status and the target’s origin, from the same one answer', async () => {
    runtime = 'custom fetch';
    scenario = { status: 302, target: 'other', loginOk: false };
    arrivals.length = 0;
    const error = (await send(gateway())) as RedirectError;
    expect([error.status, error.location]).toEqual([302, other.url]);
    expect(error.message).toContain(`HTTP 302: ${origin.url} answered with a redirect to ${other.url}`);
    expect(arrivals.map((a) => a.method)).toEqual(['POST']);
  });
});
