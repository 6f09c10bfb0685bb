/**
 * The secrets bar (DESIGN.md, "Quality bars"), extended from test/secrets.test.ts to the PlatformClient and the
 * webhook handlers: no password, token, webhook secret or app secret in any error message, `JSON.stringify`,
 * `util.inspect(…, { depth: Infinity, showHidden: true })`, stack, cause, response or logger call, on every
 * failure path. Real-looking secrets, real node:http servers on 127.0.0.1 that echo them back, and one scan of
 * everything the SDK produced (which is first shown to catch planted leaks).
 *
 * A decision this file records: an error the application's own `onEvent` (or its own dedupe store) throws is
 * the application's object. The handler hands it, unchanged, to the application's `onError`; it never puts its
 * message into a `logger` call or a response. So the scan covers every logger call, every response, and every
 * error given to `onError` except the application's own, which are checked to arrive by identity.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { inspect } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type IdempotencyStore,
  MemoryTokenStore,
  PlatformClient,
  WaGatewayError,
  type WebhookHandlerOptions,
} from '../src/index.js';
import { messageEnvelope, textMessage } from '../src/testing/webhook-fixtures.js';
import {
  createNodeWebhookHandler,
  createWebhookHandler,
  parseWebhook,
  signUpstreamBody,
  verifyUpstreamSignature,
} from '../src/webhooks/index.js';
import { type Handler, startServer } from './helpers/http-server.js';

const USERNAME = 'ops@example.com';
const PASSWORD = 'Pl@tf0rm-P4ssw0rd_9xQz!2024';
const TOKENS = [
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJ1c2VyX2lkIjo0MiwiZXhwIjoxNzAwMDAwMDAwfQ.Sg4Lq7Xv2Pn9Rt1Wm6Kc3Yb8',
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJ1c2VyX2lkIjo0MiwiZXhwIjoxNzAwMDAzNjAwfQ.Hd5Jf0Zs7Nq2Vx9Lp4Rt6Wm1',
  'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJ1c2VyX2lkIjo0MiwiZXhwIjoxNzAwMDA3MjAwfQ.Bx3Cv8Nm1Kq6Lw4Pz9Ty2Ru7',
] as const;
const READY_TOKEN = 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJyZWFkeSI6dHJ1ZX0.Qa1Ws2Ed3Rf4Tg5Yh6Uj7Ik8';
const WEBHOOK_SECRET = 'whsec_9Kq2Lm7Xp4Rt8Vb1Nc6Zd3Hf5Jg0Ys2W';
const WEBHOOK_SECRET_OLD = 'whsec_old_3Fh8Jk1Lm5Nq9Rs2Tv6Wx0Yz4Ab7Cd';
const APP_SECRET = 'a9c4e7f1b2d8036e5f4a1b9c7d2e8f60';
/** Not an SDK credential: a password inside the application's own dedupe store error (a Redis URL). */
const REDIS_PASSWORD = 'r3d1s-Pw-Xq8Lm2Vt7Kc4';

const SECRETS: Record<string, string> = {
  password: PASSWORD,
  token0: TOKENS[0],
  token1: TOKENS[1],
  token2: TOKENS[2],
  readyToken: READY_TOKEN,
  webhookSecret: WEBHOOK_SECRET,
  webhookSecretOld: WEBHOOK_SECRET_OLD,
  appSecret: APP_SECRET,
  redisPassword: REDIS_PASSWORD,
};

// ---------------------------------------------------------------------------------------------------------------
// The scan
// ---------------------------------------------------------------------------------------------------------------

/** The forms a secret can be read back in: as is, JSON-escaped, HTML-escaped, URL-encoded. */
function forms(secret: string): string[] {
  const html = secret
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
  return [...new Set([secret, JSON.stringify(secret).slice(1, -1), html, encodeURIComponent(secret)])];
}

const FULL = { depth: Number.POSITIVE_INFINITY, showHidden: true } as const;

/** Every rendering of a value a person or a log pipeline could see, following errors' causes and own fields. */
function renderings(value: unknown, seen = new Set<unknown>()): string[] {
  if (seen.has(value)) return [];
  seen.add(value);
  const out = [inspect(value, FULL), String(value)];
  try {
    out.push(JSON.stringify(value) ?? '');
  } catch {
    // circular: inspect covers it
  }
  if (value instanceof Error) {
    out.push(value.message, value.stack ?? '');
    // Own fields, enumerable or not (`cause`, `body`, ...): a custom inspect could hide them.
    for (const key of Object.getOwnPropertyNames(value)) {
      const field = (value as unknown as Record<string, unknown>)[key];
      if (field !== null && typeof field === 'object') out.push(...renderings(field, seen));
      else out.push(String(field));
    }
  }
  return out;
}

interface Leak {
  secret: string;
  item: number;
  excerpt: string;
}

function findLeaks(items: readonly unknown[], secrets: Record<string, string> = SECRETS): Leak[] {
  const leaks: Leak[] = [];
  items.forEach((item, index) => {
    for (const text of renderings(item)) {
      for (const [name, secret] of Object.entries(secrets)) {
        for (const form of forms(secret)) {
          const at = text.indexOf(form);
          if (at !== -1)
            leaks.push({ secret: name, item: index, excerpt: text.slice(Math.max(0, at - 60), at + 20) });
        }
      }
    }
  });
  return leaks;
}

describe('the scan itself', () => {
  it('catches a planted leak wherever it hides', () => {
    const hidden = new WaGatewayError('nothing to see');
    Object.defineProperty(hidden, 'secretField', { value: `JWT ${TOKENS[0]}`, enumerable: false });
    const planted: [string, unknown][] = [
      ['in a message', new WaGatewayError(`login failed for ${PASSWORD}`)],
      ['in a non-enumerable field hidden by a custom inspect', hidden],
      ['in a cause', new WaGatewayError('outer', { cause: new Error(`inner ${WEBHOOK_SECRET}`) })],
      ['in a logger call, deep', ['msg', { a: { b: { c: { d: { e: { f: [APP_SECRET] } } } } } }]],
      ['JSON-escaped', `{"detail":"${JSON.stringify('x"y').slice(1, -1)}"}`],
      ['HTML-escaped', '<p>x&quot;y</p>'],
      ['in a Map', new Map([['k', READY_TOKEN]])],
    ];
    for (const [where, value] of planted) {
      const extra = where.endsWith('escaped') ? { quoted: 'x"y' } : SECRETS;
      expect(findLeaks([value], extra), where).not.toEqual([]);
    }
    expect(findLeaks([new WaGatewayError('clean'), ['log', { status: 401 }]])).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------------------------
// PlatformClient
// ---------------------------------------------------------------------------------------------------------------

const produced: unknown[] = [];
const logger = {
  debug: (...a: unknown[]) => void produced.push(a),
  info: (...a: unknown[]) => void produced.push(a),
  warn: (...a: unknown[]) => void produced.push(a),
  error: (...a: unknown[]) => void produced.push(a),
};

const CONV = '3f2b8c1e-4d5a-4b6c-9e7f-0a1b2c3d4e5f';
let url = '';
let closeServer: () => Promise<void>;
/** What the platform does with the next requests; each test sets it. */
let behave: Handler = (_req, res) => void res.writeHead(404).end();
/** What actually went over the wire: proves the secrets were in play. */
const wire = { authorizations: new Set<string>(), loginBodies: [] as string[] };
let logins = 0;

beforeAll(async () => {
  const s = await startServer((req, res, body) => {
    if (req.headers.authorization) wire.authorizations.add(req.headers.authorization);
    if (req.url === '/jwt/') wire.loginBodies.push(body);
    return behave(req, res, body);
  });
  url = s.url;
  closeServer = s.close;
});

function json(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

/** A login that succeeds, issuing the next token; anything else answered by `rest`. */
function loginThen(rest: Handler): Handler {
  return (req, res, body) => {
    if (req.url === '/jwt/') {
      const token = TOKENS[logins++ % TOKENS.length]!;
      return json(res, 200, { token, account: { uuid: CONV }, otp: true, client: { device_id: 7 } });
    }
    return rest(req, res, body);
  };
}

/** An error body that quotes back everything the request carried. */
function echo(status: number, key: 'detail' | 'error' | 'non_field_errors' = 'detail'): Handler {
  return (req, res, body) => {
    const text = `Refused ${req.headers.authorization ?? ''} with body ${body}`;
    json(res, status, {
      [key]: key === 'non_field_errors' ? [text] : text,
      info: `auth=${req.headers.authorization ?? ''}`,
      headers: req.headers,
    });
  };
}

function htmlEcho(status: number): Handler {
  return (req, res, body) =>
    void res
      .writeHead(status, { 'content-type': 'text/html' })
      .end(
        `<html><body><h1>${status}</h1><pre>Authorization: ${req.headers.authorization ?? ''}\n${body}</pre></body></html>`,
      );
}

function client(
  options: { token?: string; credentials?: boolean; maxRetries?: number; timeoutMs?: number } = {},
) {
  const { credentials = true, ...rest } = options;
  const c = new PlatformClient({
    platformUrl: url,
    streamUrl: url,
    ...(credentials ? { username: USERNAME, password: PASSWORD } : {}),
    maxRetries: 0,
    timeoutMs: 2000,
    logger,
    logLevel: 'debug',
    ...rest,
  });
  produced.push(c);
  return c;
}

async function fails(run: () => Promise<unknown>): Promise<unknown> {
  try {
    await run();
  } catch (error) {
    produced.push(error);
    return error;
  }
  throw new Error('expected a failure');
}

const sendText = (c: PlatformClient) =>
  c.messages.send(CONV, [{ type: 'text', content: 'Your order shipped.' }]);

describe('PlatformClient: no password or token in any error, inspect output or log line', () => {
  it.each([
    ['400 non_field_errors', echo(400, 'non_field_errors')],
    ['400 detail', echo(400, 'detail')],
    ['400 error', echo(400, 'error')],
    [
      '400 with the password as a field name',
      ((_req, res) =>
        json(res, 400, {
          [PASSWORD]: ['This field is wrong.'],
          password: [`'${PASSWORD}' is wrong`],
        })) as Handler,
    ],
    ['401 detail', echo(401)],
    ['403 detail', echo(403)],
    ['500 HTML quoting the request', htmlEcho(500)],
    ['502 error', echo(502, 'error')],
    ['503 HTML', htmlEcho(503)],
  ])('a login refused with %s, the password echoed', async (_name, handler) => {
    behave = handler;
    await fails(() => client().auth.login());
    await fails(() => client().reports.get());
    await fails(() => sendText(client()));
  });

  it('a login answered 200 with a body that is not a login answer', async () => {
    behave = (_req, res, body) =>
      void res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(`{"token":"${TOKENS[0]}","echo":${body}`);
    await fails(() => client().auth.login());
    behave = (_req, res, body) => json(res, 200, { tokn: TOKENS[0], echo: JSON.parse(body) });
    await fails(() => client().stats.get());
    behave = htmlEcho(200);
    await fails(() => client().auth.login());
  });

  it('401 after login, echoing the token, then 401 again after the re-login', async () => {
    behave = loginThen(echo(401));
    const c = client();
    await fails(() => c.reports.get());
    await fails(() => sendText(c));
    await fails(() => c.stats.get());
    await fails(() => c.conversations.archive(CONV));
  });

  it.each([400, 403, 404, 405, 409, 422, 429, 500, 502, 503])(
    'a call answered %i quoting the Authorization header, as JSON and as HTML',
    async (status) => {
      behave = loginThen(echo(status, 'error'));
      const c = client();
      await fails(() => sendText(c));
      await fails(() => c.reports.get({ data: 'messages' }));
      behave = loginThen(htmlEcho(status));
      await fails(() => c.customers.update(CONV, { name: 'Ada' }));
      await fails(() => c.stats.get());
    },
  );

  it('2xx answers that echo the token: truncated JSON, the wrong shape', async () => {
    behave = loginThen(
      (req, res) =>
        void res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(`{"detail":"sent with ${req.headers.authorization}`),
    );
    const c = client();
    await fails(() => sendText(c));
    await fails(() => c.messages.batchSend({ message: 'x', conversations: [CONV] }));
    behave = loginThen((req, res) =>
      json(res, 200, { messages: `not a list: ${req.headers.authorization}` }),
    );
    await fails(() => c.reports.get({ data: 'messages' }));
    behave = loginThen((req, res) => json(res, 200, { channels: req.headers.authorization }));
    await fails(() => c.stats.get());
  });

  it('a ready token refused with an echo, with and without credentials to log in again', async () => {
    behave = echo(401);
    await fails(() => client({ token: READY_TOKEN, credentials: false }).reports.get());
    behave = (req, res, body) =>
      (req.url === '/jwt/' ? echo(400, 'non_field_errors') : echo(401))(req, res, body);
    await fails(() => client({ token: READY_TOKEN }).reports.get());
  });

  it('connection errors: reset on the login, reset on the call, connection refused', async () => {
    behave = (req) => void req.socket.destroy();
    await fails(() => client().auth.login());
    behave = loginThen((req) => void req.socket.destroy());
    await fails(() => sendText(client()));
    await fails(() => client({ maxRetries: 1 }).reports.get());
    const port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as AddressInfo).port;
        s.close(() => resolve(p));
      });
    });
    const refused = new PlatformClient({
      platformUrl: `http://127.0.0.1:${port}`,
      streamUrl: `http://127.0.0.1:${port}`,
      username: USERNAME,
      password: PASSWORD,
      maxRetries: 0,
      logger,
      logLevel: 'debug',
    });
    await fails(() => refused.reports.get());
    const tokenOnly = new PlatformClient({
      platformUrl: `http://127.0.0.1:${port}`,
      streamUrl: `http://127.0.0.1:${port}`,
      token: READY_TOKEN,
      maxRetries: 0,
      logger,
      logLevel: 'debug',
    });
    await fails(() => tokenOnly.stats.get());
  });

  it('timeouts: a login that never answers, a call that never answers', async () => {
    behave = () => {};
    await fails(() => client({ timeoutMs: 50 }).auth.login());
    behave = loginThen(() => {});
    await fails(() => sendText(client({ timeoutMs: 50 })));
  });

  it('stream errors: refused with an echo, a line that is not JSON, cut mid-record, stalled', async () => {
    const drain = async (c: PlatformClient, options: { idleTimeoutMs?: number } = {}) => {
      for await (const _ of c.messages.stream({}, options)) {
        // records are the caller's data; only errors are scanned
      }
    };
    behave = loginThen(echo(401));
    await fails(() => drain(client()));
    const rec = (i: number, auth: string) =>
      `${JSON.stringify({ id: i, created_at: '2024-05-01T00:00:00Z', content: `sent with ${auth}` })}\n`;
    behave = loginThen(
      (req, res) =>
        void res
          .writeHead(200, { 'content-type': 'application/x-ndjson' })
          .end(`${rec(1, req.headers.authorization ?? '')}not json ${req.headers.authorization}\n`),
    );
    await fails(() => drain(client()));
    behave = loginThen((req, res) => {
      res.writeHead(200, { 'content-type': 'application/x-ndjson' });
      res.write(
        rec(1, req.headers.authorization ?? '') + rec(2, req.headers.authorization ?? '').slice(0, 70),
      );
      setTimeout(() => res.socket?.destroy(), 20);
    });
    await fails(() => drain(client()));
    behave = loginThen((req, res) => {
      res.writeHead(200, { 'content-type': 'application/x-ndjson' });
      res.write(rec(1, req.headers.authorization ?? '').slice(0, 70));
    });
    await fails(() => drain(client(), { idleTimeoutMs: 50 }));
    behave = loginThen(
      (req, res) =>
        void res
          .writeHead(200, { 'content-type': 'text/event-stream' })
          .end(`data: {"x": "${req.headers.authorization}"\n\n`),
    );
    await fails(() => drain(client()));
  });

  it('construction errors never quote a malformed token or password', () => {
    const attempts: (() => unknown)[] = [
      () => new PlatformClient({ platformUrl: url, streamUrl: url, token: `JWT ${READY_TOKEN}` }),
      () => new PlatformClient({ platformUrl: url, streamUrl: url, token: `${READY_TOKEN}\n` }),
      () => new PlatformClient({ platformUrl: url, streamUrl: url, token: ` ${READY_TOKEN}` }),
      () => new PlatformClient({ platformUrl: url, streamUrl: url, password: PASSWORD }),
      () =>
        new PlatformClient({
          platformUrl: `http://ops:${PASSWORD}@127.0.0.1:1`,
          streamUrl: url,
          token: 'abcdef',
        }),
      () =>
        new PlatformClient({ platformUrl: url, streamUrl: `${url}?token=${READY_TOKEN}`, token: 'abcdef' }),
    ];
    for (const attempt of attempts) {
      expect(attempt).toThrow(WaGatewayError);
      try {
        attempt();
      } catch (error) {
        produced.push(error);
      }
    }
  });

  it('a logged-in client, its login result and its token store show no credential', async () => {
    behave = loginThen((_req, res) => json(res, 200, { messages: [] }));
    const store = new MemoryTokenStore();
    const c = new PlatformClient({
      platformUrl: url,
      streamUrl: url,
      username: USERNAME,
      password: PASSWORD,
      tokenStore: store,
      logger,
      logLevel: 'debug',
    });
    const result = await c.auth.login();
    await c.reports.get();
    // The caller who asked for the token gets it; nothing else shows it.
    expect(TOKENS).toContain(result.token);
    const views = [
      inspect(c, FULL),
      JSON.stringify(c),
      String(c),
      inspect(result, FULL),
      JSON.stringify(result),
      inspect(store, FULL),
      JSON.stringify(store),
      ...[c.auth, c.stats, c.reports, c.messages, c.conversations, c.customers].flatMap((r) => [
        inspect(r, FULL),
        JSON.stringify(r),
      ]),
    ];
    expect(findLeaks(views)).toEqual([]);
    expect(JSON.stringify(c)).toContain('[redacted]');
    produced.push(c, store);
  });
});

// Regression (found by this suite): a secret the server wrote escaped (non-ASCII as \uXXXX, as Python's json.dumps
// does; `"` as \"; `/` as \/) did not match the scrub of the raw text and came out decoded in the error's message.
// toApiError now parses the raw body and scrubs the decoded value, and scrub() knows the escaped forms.
describe('secrets the server echoes in an escaped form', () => {
  const escapedPasswords = {
    nonAscii: 'Pässwörd-9xQz-Лm2',
    quote: 'Tr0ub4dor"3-xQz\\k',
  };

  async function refusedLogin(password: string, handler: Handler): Promise<unknown[]> {
    const logged: unknown[] = [];
    const log = (...a: unknown[]) => void logged.push(a);
    behave = handler;
    const c = new PlatformClient({
      platformUrl: url,
      streamUrl: url,
      username: USERNAME,
      password,
      maxRetries: 0,
      logger: { debug: log, info: log, warn: log, error: log },
    });
    const error = await c.auth.login().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WaGatewayError);
    return [error, ...logged];
  }

  /** Python's json.dumps(ensure_ascii=True): non-ASCII characters as \uXXXX. */
  const pythonJson = (status: number, body: Record<string, unknown>) => (res: ServerResponse) =>
    void res
      .writeHead(status, { 'content-type': 'application/json' })
      .end(
        JSON.stringify(body).replace(
          /[\u0080-\uffff]/g,
          (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`,
        ),
      );

  it.each([401, 500])(
    'a login answered %i by a server that writes non-ASCII as \\u escapes, echoing the password',
    async (status) => {
      const password = escapedPasswords.nonAscii;
      const items = await refusedLogin(password, (_req, res, body) =>
        pythonJson(status, { detail: `Invalid password: ${JSON.parse(body).password}` })(res),
      );
      expect(findLeaks(items, { password })).toEqual([]);
    },
  );

  it('a login answered 500 whose JSON echoes a password holding a quote and a backslash', async () => {
    const password = escapedPasswords.quote;
    const items = await refusedLogin(password, (_req, res, body) =>
      json(res, 500, { detail: `Invalid password: ${JSON.parse(body).password}` }),
    );
    expect(findLeaks(items, { password })).toEqual([]);
  });

  // The same root cause on a non-JSON body: the scrub looks for the raw password only, so an HTML page that quotes
  // the JSON request body shows the password JSON-escaped (and HTML-escaped) in the excerpt.
  it('a login answered 500 by an HTML page that quotes the JSON request body', async () => {
    const password = escapedPasswords.quote;
    const items = await refusedLogin(password, htmlEcho(500));
    expect(findLeaks(items, { password })).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------------------------
// Webhook handlers
// ---------------------------------------------------------------------------------------------------------------

/** What the handlers produced: logger calls, SDK errors given to onError, responses. */
const hookProduced: unknown[] = [];
/** Errors the application threw itself, and what onError received for them. */
const ownErrors = new Set<unknown>();
const ownReported: unknown[] = [];

const hookLogger = {
  warn: (...a: unknown[]) => void hookProduced.push(['warn', ...a]),
  error: (...a: unknown[]) => void hookProduced.push(['error', ...a]),
};
const onError: WebhookHandlerOptions['onError'] = (error, info) => {
  if (ownErrors.has(error)) ownReported.push(error);
  else hookProduced.push(error, info);
};

/** onEvent that throws the application's own error, with secrets in its message, for the flagged events. */
function ownOnEvent(mode: 'error' | 'string' | 'ok'): WebhookHandlerOptions['onEvent'] {
  return () => {
    if (mode === 'ok') return;
    const thrown =
      mode === 'error'
        ? new Error(`db write failed for Bearer ${WEBHOOK_SECRET} (app secret ${APP_SECRET})`)
        : `failed: ${WEBHOOK_SECRET}`;
    ownErrors.add(thrown);
    throw thrown;
  };
}

const failingStore: IdempotencyStore = {
  claim: () => {
    const e = new Error(`connect ECONNREFUSED redis://default:${REDIS_PASSWORD}@cache:6379`);
    ownErrors.add(e);
    throw e;
  },
  release: () => {},
};

function options(extra: Partial<WebhookHandlerOptions> = {}): WebhookHandlerOptions {
  return {
    secret: [WEBHOOK_SECRET_OLD, WEBHOOK_SECRET],
    onEvent: ownOnEvent('ok'),
    logger: hookLogger,
    onError,
    maxBodyBytes: 4096,
    dedupe: false,
    ...extra,
  };
}

interface Delivery {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
}

const good = JSON.stringify(messageEnvelope([textMessage({ text: { body: 'Where is my order?' } })]));
const deliveries: [string, Delivery][] = [
  ['no Authorization', { headers: {}, body: good }],
  ['a secret one character short', { headers: { authorization: `Bearer ${WEBHOOK_SECRET.slice(0, -1)}` } }],
  ['a secret with one character more', { headers: { authorization: `Bearer ${WEBHOOK_SECRET}x` } }],
  ['the secret without the Bearer scheme', { headers: { authorization: WEBHOOK_SECRET } }],
  ['the secret under Basic', { headers: { authorization: `Basic ${btoa(`u:${WEBHOOK_SECRET}`)}` } }],
  ['the app secret as the Bearer token', { headers: { authorization: `Bearer ${APP_SECRET}` } }],
  ['a GET with the secret', { method: 'GET', headers: { authorization: `Bearer ${WEBHOOK_SECRET}` } }],
  ['a body that is not JSON, quoting the secret', { body: `{"entry": "Bearer ${WEBHOOK_SECRET}` }],
  ['JSON that is not an envelope', { body: JSON.stringify({ entry: `${WEBHOOK_SECRET} ${APP_SECRET}` }) }],
  ['the secret as a key', { body: JSON.stringify({ [WEBHOOK_SECRET]: APP_SECRET, entry: [APP_SECRET] }) }],
  ['a JSON string', { body: JSON.stringify(`${WEBHOOK_SECRET}`) }],
  [
    'a change whose value is the secret',
    {
      body: JSON.stringify({ entry: [{ id: '1', changes: [{ field: 'messages', value: WEBHOOK_SECRET }] }] }),
    },
  ],
  [
    'an oversize body full of secrets',
    { body: `{"entry":"${`${WEBHOOK_SECRET}${APP_SECRET}`.repeat(200)}"}` },
  ],
  ['an empty body', { body: '' }],
];

function withDefaults(d: Delivery): Required<Delivery> {
  return {
    method: d.method ?? 'POST',
    headers: d.headers ?? { authorization: `Bearer ${WEBHOOK_SECRET}`, 'content-type': 'application/json' },
    body: d.body ?? good,
  };
}

async function viaFetchHandler(handler: (r: Request) => Promise<Response>, d: Delivery) {
  const { method, headers, body } = withDefaults(d);
  const response = await handler(
    new Request('https://hooks.example.com/wa', { method, headers, ...(method === 'GET' ? {} : { body }) }),
  );
  const text = await response.text();
  hookProduced.push({ status: response.status, headers: Object.fromEntries(response.headers), body: text });
  return response.status;
}

let nodeUrl = '';
let nodeServer: ReturnType<typeof createServer>;
let nodeHandler: (req: IncomingMessage, res: ServerResponse) => unknown = (_req, res) => void res.end();
/** `express.json()` in spirit: when set, the body is read and parsed before the handler runs. */
let preParse = false;

beforeAll(async () => {
  nodeServer = createServer((req, res) => {
    if (!preParse) return void nodeHandler(req, res);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      (req as IncomingMessage & { body?: unknown }).body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      void nodeHandler(req, res);
    });
  });
  await new Promise<void>((resolve) => nodeServer.listen(0, '127.0.0.1', resolve));
  nodeUrl = `http://127.0.0.1:${(nodeServer.address() as AddressInfo).port}`;
});

async function viaNodeHandler(d: Delivery) {
  const { method, headers, body } = withDefaults(d);
  const response = await fetch(`${nodeUrl}/wa`, { method, headers, ...(method === 'GET' ? {} : { body }) });
  const text = await response.text();
  hookProduced.push({ status: response.status, headers: Object.fromEntries(response.headers), body: text });
  return response.status;
}

type Deliver = (extra: Partial<WebhookHandlerOptions>, d: Delivery) => Promise<number>;
const adapters: [string, Deliver][] = [
  ['createWebhookHandler', (extra, d) => viaFetchHandler(createWebhookHandler(options(extra)), d)],
  [
    'createNodeWebhookHandler over node:http',
    (extra, d) => {
      nodeHandler = createNodeWebhookHandler(options(extra));
      return viaNodeHandler(d);
    },
  ],
];

describe.each(adapters)('%s: no webhook or app secret in a log line, error or response', (_name, deliver) => {
  it.each(deliveries)('%s', async (_what, d) => {
    const status = await deliver({}, d);
    expect(status).toBeGreaterThanOrEqual(400);
  });

  it('a valid delivery is still accepted (the secrets above were the real ones)', async () => {
    expect(await deliver({}, {})).toBe(200);
    expect(
      await deliver(
        { secret: WEBHOOK_SECRET_OLD },
        { headers: { authorization: `Bearer ${WEBHOOK_SECRET_OLD}` } },
      ),
    ).toBe(200);
  });

  it("onEvent throwing the application's own error with secrets in it: 500, logged by name only, handed to onError", async () => {
    const before = ownReported.length;
    expect(await deliver({ onEvent: ownOnEvent('error') }, {})).toBe(500);
    expect(await deliver({ onEvent: ownOnEvent('string') }, {})).toBe(500);
    expect(await deliver({ onEvent: ownOnEvent('error'), dedupe: undefined }, {})).toBe(500);
    // onError got the very objects thrown: the application's to log as it sees fit.
    expect(ownReported.length - before).toBe(3);
    for (const e of ownReported.slice(before)) expect(ownErrors.has(e)).toBe(true);
  });

  it('a dedupe store failing with a password in its error: 500, the error only reaches onError', async () => {
    const before = ownReported.length;
    expect(await deliver({ dedupe: failingStore, onStoreUnavailable: 'fail' }, {})).toBe(500);
    expect(ownReported.length - before).toBe(1);
    // By default the event runs without deduplication: 200, and the error still reaches onError only.
    expect(await deliver({ dedupe: failingStore }, {})).toBe(200);
    expect(ownReported.length - before).toBe(2);
  });

  it('upstream signature: wrong, the app secret itself as the header, missing when required', async () => {
    const wrong = await signUpstreamBody(good, `${APP_SECRET}x`);
    const upstream = { upstreamAppSecret: APP_SECRET };
    expect(
      await deliver(upstream, {
        headers: { authorization: `Bearer ${WEBHOOK_SECRET}`, 'x-hub-signature-256': wrong },
      }),
    ).toBe(403);
    expect(
      await deliver(upstream, {
        headers: { authorization: `Bearer ${WEBHOOK_SECRET}`, 'x-hub-signature-256': `sha256=${APP_SECRET}` },
      }),
    ).toBe(403);
    expect(
      await deliver(
        { ...upstream, requireUpstreamSignature: true },
        { headers: { authorization: `Bearer ${WEBHOOK_SECRET}` } },
      ),
    ).toBe(401);
    const right = await signUpstreamBody(good, APP_SECRET);
    expect(
      await deliver(upstream, {
        headers: { authorization: `Bearer ${WEBHOOK_SECRET}`, 'x-hub-signature-256': right },
      }),
    ).toBe(200);
  });

  it('a deadline that passes: 503, logged without secrets', async () => {
    const slow = () => new Promise<void>((resolve) => setTimeout(resolve, 200));
    expect(await deliver({ onEvent: slow, deadlineMs: 30 }, {})).toBe(503);
  });
});

describe('webhooks: the rest of the surface', () => {
  it('a body parser that ran first, with the upstream check on: 500 raw_body_required, no secret logged', async () => {
    preParse = true;
    try {
      nodeHandler = createNodeWebhookHandler(options({ upstreamAppSecret: APP_SECRET }));
      const signature = await signUpstreamBody(good, APP_SECRET);
      const status = await viaNodeHandler({
        headers: {
          authorization: `Bearer ${WEBHOOK_SECRET}`,
          'content-type': 'application/json',
          'x-hub-signature-256': signature,
        },
      });
      expect(status).toBe(500);
    } finally {
      preParse = false;
    }
  });

  it('construction errors and warnings never quote a secret', () => {
    const attempts: Partial<WebhookHandlerOptions>[] = [
      { secret: `Bearer ${WEBHOOK_SECRET}` },
      { secret: `${WEBHOOK_SECRET}\n` },
      { secret: [WEBHOOK_SECRET, ` ${WEBHOOK_SECRET_OLD}`] },
      { upstreamAppSecret: `${APP_SECRET} ` },
      { upstreamAppSecret: [] as string[] },
      { requireUpstreamSignature: true, upstreamAppSecret: undefined },
    ];
    for (const extra of attempts) {
      for (const create of [createWebhookHandler, createNodeWebhookHandler]) {
        try {
          create(options(extra));
          throw new Error(`expected a ConfigurationError for ${Object.keys(extra).join(',')}`);
        } catch (error) {
          expect(error).toBeInstanceOf(WaGatewayError);
          hookProduced.push(error);
        }
      }
    }
    // A short secret is warned about by index, never quoted.
    createWebhookHandler(options({ secret: 'short-but-valid-secret' }));
    expect(hookProduced.at(-1)).toEqual(['warn', expect.stringMatching(/shorter than/), { index: 0 }]);
  });

  it('parseWebhook and verifyUpstreamSignature errors never quote the body', async () => {
    for (const body of [
      `{"entry": "${WEBHOOK_SECRET}`,
      JSON.stringify({ entry: APP_SECRET }),
      JSON.stringify({ entry: [{ changes: [{ value: [WEBHOOK_SECRET] }] }] }),
    ]) {
      try {
        parseWebhook(body);
      } catch (error) {
        hookProduced.push(error);
      }
    }
    const e = await verifyUpstreamSignature(
      { secret: APP_SECRET } as never,
      `sha256=${APP_SECRET}`,
      APP_SECRET,
    ).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(WaGatewayError);
    hookProduced.push(e);
  });
});

afterAll(async () => {
  await closeServer();
  await new Promise<void>((resolve) => {
    nodeServer.closeAllConnections();
    nodeServer.close(() => resolve());
  });
  // The secrets were really in play: sent on the wire and echoed back.
  expect(wire.loginBodies.some((b) => b.includes(PASSWORD))).toBe(true);
  for (const token of TOKENS) expect(wire.authorizations.has(`JWT ${token}`)).toBe(true);
  expect(wire.authorizations.has(`JWT ${READY_TOKEN}`)).toBe(true);
  expect(produced.length).toBeGreaterThan(100);
  expect(hookProduced.length).toBeGreaterThan(60);
  expect(ownReported.length).toBeGreaterThan(0);
  // Log lines: warnings of otp and retries at least were recorded.
  expect(produced.some((p) => Array.isArray(p))).toBe(true);
  expect(findLeaks(produced)).toEqual([]);
  expect(findLeaks(hookProduced)).toEqual([]);
});
