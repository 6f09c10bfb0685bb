/**
 * PlatformClient under transport faults, over real node:http sockets on 127.0.0.1. Every fault ends in its
 * documented typed error (docs/errors-and-retries.md) within the timeout; the server's own count per
 * `METHOD path` proves that a POST (messages.send, conversations.archive, messages.batchSend,
 * customers.update) never went out twice, and that a GET (reports, stats, the stream) reset before its answer
 * is retried.
 *
 * The login (`POST /jwt/`) is retried on a reset, a timeout and a 5xx: logging in twice has no effect beyond
 * a second valid token, while not retrying would fail the caller's own call. It is not retried once the server
 * answered it (400 refused credentials, 401, a 2xx that is not JSON), and the call that needed the token is
 * never sent, nor repeated, when the login fails.
 *
 * Covered elsewhere, not repeated here: a stream connection destroyed mid-record (StreamInterruptedError after
 * the complete records) and a stream that stalls past idleTimeoutMs, in test/e2e/platform-stream.test.ts.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  AuthenticationError,
  ConnectionError,
  InternalServerError,
  InvalidResponseError,
  LoginFailedError,
  MemoryTokenStore,
  PlatformClient,
  type PlatformClientOptions,
  StreamError,
  StreamInterruptedError,
  TimeoutError,
  UpstreamError,
} from '../../src/index.js';
import { captureLogger } from '../helpers/capture-logger.js';
import {
  failure,
  html,
  neverAnswers,
  resetBeforeAnswer,
  resetMidBody,
  trickle,
  truncatedJson,
} from '../helpers/faults.js';
import { type Handler, startServer } from '../helpers/http-server.js';

/** The SDK's lines in this file: the retries the faults provoke, and nothing else. */
const sdkLog = captureLogger();
afterEach(() => {
  for (const message of sdkLog.messages()) expect(message).toMatch(/^wa-gateway-sdk: retrying request/);
  sdkLog.lines.length = 0;
});

const TOKEN = 'eyJhbGciOiJIUzI1NiJ9.faults-platform.c2ln';
const CONV = '3f2b8c1e-4d5a-4b6c-9e7f-0a1b2c3d4e5f';
const CONV2 = '0c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f';
const TIMEOUT_MS = 150;
// Only the tests about timeouts use TIMEOUT_MS: on a loaded machine a short one would turn a reset (or a slow
// healthy answer) into a TimeoutError. Bounds on elapsed time are a failure bound, not a speed test.
const GENEROUS_TIMEOUT_MS = 15_000;
const SLACK_MS = 5000;

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

let issued = 0;
/** Each login issues a new token, as a platform whose JWT carries a login time to the millisecond would. */
const login: Handler = (_req, res) =>
  void res.writeHead(200, { 'content-type': 'application/json' }).end(
    JSON.stringify({
      token: `${TOKEN}.${++issued}`,
      account: { uuid: CONV },
      otp: false,
      client: { device_id: 1 },
    }),
  );

function record(i: number): string {
  return `${JSON.stringify({ id: i, created_at: `2024-05-01T00:00:0${i}Z`, content: `m${i}`, type: 'text' })}\n`;
}

/** What a healthy platform answers. */
const healthy: Handler = (req, res) => {
  const path = new URL(req.url ?? '/', 'http://x').pathname;
  if (req.method === 'POST' && path === '/jwt/') return login(req, res, '');
  if (!req.headers.authorization?.startsWith(`JWT ${TOKEN}.`)) {
    return void res
      .writeHead(401, { 'content-type': 'application/json' })
      .end('{"detail":"Invalid Authorization header."}');
  }
  const json = (body: unknown) =>
    void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  if (path === '/reports/') return json({ messages: [] });
  if (path === '/stats') return json([]);
  if (path === '/stream/messages/') {
    return void res.writeHead(200, { 'content-type': 'application/x-ndjson' }).end(record(1) + record(2));
  }
  if (path === '/batch_send_message/') return void res.writeHead(200).end();
  if (req.method === 'POST') return json({ detail: 'ok' });
  res.writeHead(404).end();
};

/**
 * A platform whose `target` (`'POST /v2/messages/'`) answers as `fault(n)` says for its n-th request (every
 * other path is healthy), counting every request per `METHOD path`.
 */
async function platform(target: string, fault: (n: number) => Handler | undefined) {
  const count: Record<string, number> = {};
  const s = await startServer((req, res, body) => {
    const key = `${req.method} ${new URL(req.url ?? '/', 'http://x').pathname}`;
    count[key] = (count[key] ?? 0) + 1;
    const handler = key === target ? fault(count[key]) : undefined;
    return (handler ?? healthy)(req, res, body);
  });
  close = s.close;
  const tokenStore = new MemoryTokenStore();
  const client = (o: Partial<PlatformClientOptions> = {}) =>
    new PlatformClient({
      logger: sdkLog.logger,
      platformUrl: s.url,
      streamUrl: s.url,
      username: 'ops@example.com',
      password: 'faults-password-123',
      timeoutMs: GENEROUS_TIMEOUT_MS,
      tokenStore,
      ...o,
    });
  return {
    count,
    client,
    /**
     * A client whose token is already in the shared store (logged in by a client with a generous timeout), so a
     * short `timeoutMs` bounds the call under test and not a login slowed down by a busy machine.
     */
    loggedIn: async (o: { maxRetries?: number; timeoutMs?: number }) => {
      await client().auth.login();
      return client(o);
    },
  };
}

type Call = (client: PlatformClient) => Promise<unknown>;
const posts: [string, string, Call][] = [
  [
    'messages.send',
    'POST /v2/messages/',
    (c) => c.messages.send(CONV, [{ type: 'text', content: 'Your order has shipped.' }]),
  ],
  ['conversations.archive', 'POST /v2/conversations/archive/', (c) => c.conversations.archive(CONV)],
  [
    'messages.batchSend',
    'POST /batch_send_message/',
    (c) => c.messages.batchSend({ message: 'Closed today.', conversations: [CONV, CONV2] }),
  ],
  ['customers.update', 'POST /v2/customers/', (c) => c.customers.update(CONV, { name: 'Ada' })],
];

describe.each(posts)('%s: every fault is typed and the POST is never sent twice', (_name, target, call) => {
  it('connection reset before the answer → ConnectionError, mayHaveBeenSent, one POST', async () => {
    const { count, client } = await platform(target, () => resetBeforeAnswer);
    const { error } = await failure(() => call(client({ maxRetries: 3 })));
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error).not.toBeInstanceOf(TimeoutError);
    expect(error).toMatchObject({ mayHaveBeenSent: true });
    expect((error as Error).message).toMatch(/not retried automatically/);
    expect(count[target]).toBe(1);
    // A fault of the call is not a refused token: no second login.
    expect(count['POST /jwt/']).toBe(1);
  });

  it('connection reset mid-body → ConnectionError naming the cut, one POST', async () => {
    const { count, client } = await platform(target, () => resetMidBody('{"detail":"Mess'));
    const { error } = await failure(() => call(client({ maxRetries: 3 })));
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as Error).message).toMatch(/cut while reading the answer/);
    expect(error).toMatchObject({ mayHaveBeenSent: true });
    expect(count[target]).toBe(1);
  });

  it('a server that never answers → TimeoutError within timeoutMs, one POST', async () => {
    const { count, loggedIn } = await platform(target, () => neverAnswers);
    const timed = await loggedIn({ maxRetries: 3, timeoutMs: TIMEOUT_MS });
    const { error, ms } = await failure(() => call(timed));
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error).toMatchObject({ timeoutMs: TIMEOUT_MS, mayHaveBeenSent: true });
    // Logged in beforehand: the call itself gets timeoutMs.
    expect(ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 20);
    expect(ms).toBeLessThan(TIMEOUT_MS + SLACK_MS);
    expect(count[target]).toBe(1);
  });

  it('a slow trickle of a valid body → TimeoutError: the timeout covers the body, one POST', async () => {
    const { count, loggedIn } = await platform(target, () =>
      trickle({ detail: 'Messages sent successfully to the conversation.' }),
    );
    const timed = await loggedIn({ maxRetries: 3, timeoutMs: TIMEOUT_MS });
    const { error, ms } = await failure(() => call(timed));
    expect(error).toBeInstanceOf(TimeoutError);
    expect(ms).toBeLessThan(TIMEOUT_MS + SLACK_MS);
    expect(count[target]).toBe(1);
  });

  it('500 with an HTML body → InternalServerError with an excerpt, one POST', async () => {
    const { count, client } = await platform(target, () => html(500, 'Bad Gateway'));
    const { error } = await failure(() => call(client({ maxRetries: 3 })));
    expect(error).toBeInstanceOf(InternalServerError);
    expect((error as InternalServerError).description).toMatch(
      /non-JSON body \(text\/html\).*500 Bad Gateway/,
    );
    expect(count[target]).toBe(1);
  });

  it('502 with an HTML body → UpstreamError with an excerpt, one POST', async () => {
    const { count, client } = await platform(target, () => html(502, 'Bad Gateway'));
    const { error } = await failure(() => call(client({ maxRetries: 3 })));
    expect(error).toBeInstanceOf(UpstreamError);
    expect((error as UpstreamError).description).toContain('502 Bad Gateway');
    expect(count[target]).toBe(1);
  });

  it('truncated JSON in a 200 → InvalidResponseError, one POST', async () => {
    const { count, client } = await platform(target, () => truncatedJson('{"detail":"Messages se'));
    const { error } = await failure(() => call(client({ maxRetries: 3 })));
    expect(error).toBeInstanceOf(InvalidResponseError);
    expect(error).toMatchObject({ status: 200, mayHaveBeenSent: true });
    expect((error as Error).message).toMatch(/do not resend it blindly/);
    expect(count[target]).toBe(1);
  });
});

describe('batchSendAll: a fault in flight marks the chunk uncertain and sends nothing twice', () => {
  it('a reset on the first chunk: uncertain, the rest skipped, one POST', async () => {
    const { count, client } = await platform('POST /batch_send_message/', () => resetBeforeAnswer);
    const result = await client({ maxRetries: 3 }).messages.batchSendAll(
      { message: 'Maintenance tonight.', conversations: [CONV, CONV2] },
      { chunkSize: 1 },
    );
    expect(result.uncertain).toEqual([CONV]);
    expect(result.skipped).toEqual([CONV2]);
    expect(result.sent).toEqual([]);
    expect(result.chunks[0]).toMatchObject({ status: 'failed', mayHaveBeenSent: true });
    expect((result.chunks[0] as { error: Error }).error).toBeInstanceOf(ConnectionError);
    expect(count['POST /batch_send_message/']).toBe(1);
  });
});

type GetCall = (client: PlatformClient, options?: { signal?: AbortSignal }) => Promise<unknown>;
const gets: [string, string, GetCall][] = [
  ['reports.get', 'GET /reports/', (c, o) => c.reports.get({ data: 'messages' }, o)],
  ['stats.get', 'GET /stats', (c, o) => c.stats.get(o)],
];

describe.each(gets)('%s: repeating a GET has no effect, so it is retried', (_name, target, call) => {
  it('a reset before the answer is retried, and the second attempt succeeds', async () => {
    const { count, client } = await platform(target, (n) => (n < 2 ? resetBeforeAnswer : undefined));
    await expect(call(client({ maxRetries: 1 }))).resolves.toBeDefined();
    expect(count[target]).toBe(2);
    expect(count['POST /jwt/']).toBe(1);
  });

  it('a 5xx HTML page on every attempt: retried, then InternalServerError', async () => {
    const { count, client } = await platform(target, () => html(503, 'Bad Gateway'));
    const { error } = await failure(() => call(client({ maxRetries: 1 })));
    expect(error).toBeInstanceOf(InternalServerError);
    expect(count[target]).toBe(2);
  });

  it('truncated JSON in a 200 → InvalidResponseError, not retried', async () => {
    const { count, client } = await platform(target, () => truncatedJson('{"detail":"Messages se'));
    const { error } = await failure(() => call(client({ maxRetries: 2 })));
    expect(error).toBeInstanceOf(InvalidResponseError);
    expect(count[target]).toBe(1);
  });

  // Repeating a GET has no effect, so whether an attempt reached the server does not matter: the caller's
  // reason is the answer, as it is for any abort.
  it.each([503, 502])(
    "the caller's signal during the wait after a %i: rejects with the caller's reason",
    async (status) => {
      const { count, client } = await platform(target, () => html(status, 'Bad Gateway'));
      const controller = new AbortController();
      const reason = new Error('shutting down');
      // Aborted the moment the transport decides to wait and retry: the wait is what the abort ends.
      const waiting = client({
        maxRetries: 2,
        onResponse: (e) => {
          if (e.path === target.split(' ')[1] && e.retryInMs !== undefined) controller.abort(reason);
        },
      });
      const { error } = await failure(() => call(waiting, { signal: controller.signal }));
      expect(error).toBe(reason);
      expect(count[target]).toBe(1);
    },
  );

  it('a server that never answers → TimeoutError within timeoutMs (maxRetries 0)', async () => {
    const { count, loggedIn } = await platform(target, () => neverAnswers);
    const timed = await loggedIn({ maxRetries: 0, timeoutMs: TIMEOUT_MS });
    const { error, ms } = await failure(() => call(timed));
    expect(error).toBeInstanceOf(TimeoutError);
    expect(ms).toBeLessThan(TIMEOUT_MS + SLACK_MS);
    expect(count[target]).toBe(1);
  });
});

describe('the message stream', () => {
  const collect = async (c: PlatformClient) => {
    const ids: number[] = [];
    const error = await (async () => {
      for await (const m of c.messages.stream()) ids.push(m.id);
    })().catch((e: unknown) => e);
    return { ids, error };
  };

  it('a reset before the answer is retried (the stream is a GET)', async () => {
    const { count, client } = await platform('GET /stream/messages/', (n) =>
      n < 2 ? resetBeforeAnswer : undefined,
    );
    const { ids, error } = await collect(client({ maxRetries: 1 }));
    expect(error).toBeUndefined();
    expect(ids).toEqual([1, 2]);
    expect(count['GET /stream/messages/']).toBe(2);
  });

  it('a body that ends cleanly in the middle of a record → StreamInterruptedError after the complete records', async () => {
    // The socket-destroyed cut is in platform-stream.test.ts; here the server ends the chunked body properly,
    // so only the decoder can tell the last record is incomplete.
    const { count, client } = await platform('GET /stream/messages/', () => (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/x-ndjson' });
      res.end(record(1) + record(2) + record(3).slice(0, 25));
    });
    const { ids, error } = await collect(client());
    expect(ids).toEqual([1, 2]);
    expect(error).toBeInstanceOf(StreamInterruptedError);
    expect(error).toBeInstanceOf(StreamError);
    expect(error).toMatchObject({ recordsDelivered: 2, lastCreatedAt: '2024-05-01T00:00:02Z' });
    expect((error as Error).message).toMatch(/ended in the middle of line 3, after 2 complete records/);
    expect(count['GET /stream/messages/']).toBe(1);
  });

  it('a 5xx HTML page before the stream starts → InternalServerError after the retries', async () => {
    const { count, client } = await platform('GET /stream/messages/', () => html(500, 'Bad Gateway'));
    const { ids, error } = await collect(client({ maxRetries: 1 }));
    expect(ids).toEqual([]);
    expect(error).toBeInstanceOf(InternalServerError);
    expect(count['GET /stream/messages/']).toBe(2);
  });
});

describe('the login (POST /jwt/) failing', () => {
  it('reset on every attempt → ConnectionError after maxRetries + 1 logins; the send is never made', async () => {
    const { count, client } = await platform('POST /jwt/', () => resetBeforeAnswer);
    // A call budget that fits the login's backoff: the call's timeout bounds the login it waits on.
    const { error } = await failure(() =>
      client({ maxRetries: 1, timeoutMs: 5000 }).messages.send(CONV, [{ type: 'text', content: 'hi' }]),
    );
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error).toMatchObject({ mayHaveBeenSent: true });
    // The login's own retries only: the call does not repeat a failure that was not its own.
    expect(count['POST /jwt/']).toBe(2);
    expect(count['POST /v2/messages/']).toBeUndefined();
  });

  it('reset once, then answered → the retried login succeeds and the send goes out exactly once', async () => {
    const { count, client } = await platform('POST /jwt/', (n) => (n === 1 ? resetBeforeAnswer : undefined));
    await expect(
      client({ maxRetries: 1 }).messages.send(CONV, [{ type: 'text', content: 'hi' }]),
    ).resolves.toEqual({ detail: 'ok' });
    expect(count['POST /jwt/']).toBe(2);
    expect(count['POST /v2/messages/']).toBe(1);
  });

  it('a 502 HTML page → UpstreamError after the login retries; the report is never requested', async () => {
    const { count, client } = await platform('POST /jwt/', () => html(502, 'Bad Gateway'));
    const { error } = await failure(() => client({ maxRetries: 1, timeoutMs: 5000 }).reports.get());
    expect(error).toBeInstanceOf(UpstreamError);
    expect(error).toMatchObject({ status: 502, request: { method: 'POST', path: '/jwt/' } });
    expect((error as UpstreamError).description).toContain('502 Bad Gateway');
    expect(count['POST /jwt/']).toBe(2);
    expect(count['GET /reports/']).toBeUndefined();
  });

  it('a 500 HTML page → InternalServerError; auth.login() too', async () => {
    const { count, client } = await platform('POST /jwt/', () => html(500, 'Bad Gateway'));
    const { error } = await failure(() => client({ maxRetries: 0 }).auth.login());
    expect(error).toBeInstanceOf(InternalServerError);
    expect(count['POST /jwt/']).toBe(1);
  });

  it('a 200 HTML page → InvalidResponseError with no excerpt (it could hold a token); not retried', async () => {
    const { count, client } = await platform('POST /jwt/', () => (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' }).end('<html>Welcome! token=abc</html>');
    });
    const { error } = await failure(() => client({ maxRetries: 2 }).stats.get());
    expect(error).toBeInstanceOf(InvalidResponseError);
    expect(error).toMatchObject({ status: 200, bodyExcerpt: '', request: { method: 'POST', path: '/jwt/' } });
    expect(count['POST /jwt/']).toBe(1);
    expect(count['GET /stats']).toBeUndefined();
  });

  it('truncated JSON in a 200 → InvalidResponseError with no excerpt; not retried', async () => {
    const { count, client } = await platform('POST /jwt/', () => (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' }).end(`{"token":"${TOKEN.slice(0, 12)}`);
    });
    const { error } = await failure(() => client({ maxRetries: 2 }).auth.login());
    expect(error).toBeInstanceOf(InvalidResponseError);
    expect(error).toMatchObject({ bodyExcerpt: '' });
    expect(count['POST /jwt/']).toBe(1);
  });

  it('a login that never answers → TimeoutError within timeoutMs (maxRetries 0); the send is never made', async () => {
    const { count, client } = await platform('POST /jwt/', () => neverAnswers);
    const { error, ms } = await failure(() =>
      client({ maxRetries: 0, timeoutMs: TIMEOUT_MS }).messages.send(CONV, [{ type: 'text', content: 'hi' }]),
    );
    expect(error).toBeInstanceOf(TimeoutError);
    expect(ms).toBeLessThan(TIMEOUT_MS + SLACK_MS);
    expect(count['POST /jwt/']).toBe(1);
    expect(count['POST /v2/messages/']).toBeUndefined();
  });

  // Regression (found by this suite): the lazy login ran inside authorization() before the call's timer started,
  // with the client's timeout and retries, so a call asking for 150 ms waited the client's 900 ms (up to ~91 s
  // with the defaults).
  it("a call's own timeoutMs also bounds the login it waits on", async () => {
    const { count, client } = await platform('POST /jwt/', () => neverAnswers);
    const { error, ms } = await failure(() =>
      client({ maxRetries: 0, timeoutMs: GENEROUS_TIMEOUT_MS }).messages.send(
        CONV,
        [{ type: 'text', content: 'hi' }],
        { timeoutMs: 150 },
      ),
    );
    expect(error).toBeInstanceOf(TimeoutError);
    expect(count['POST /v2/messages/']).toBeUndefined();
    // Far below the client's own timeout: the call's 150 ms bounded the login.
    expect(ms).toBeLessThan(150 + SLACK_MS);
  });

  it('refused credentials (400) → LoginFailedError, tried once: a retry could count towards a lockout', async () => {
    const { count, client } = await platform('POST /jwt/', () => (_req, res) => {
      res
        .writeHead(400, { 'content-type': 'application/json' })
        .end('{"non_field_errors":["Unable to log in with provided credentials."]}');
    });
    const { error } = await failure(() =>
      client({ maxRetries: 3 }).messages.send(CONV, [{ type: 'text', content: 'hi' }]),
    );
    expect(error).toBeInstanceOf(LoginFailedError);
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(count['POST /jwt/']).toBe(1);
    expect(count['POST /v2/messages/']).toBeUndefined();
  });

  it('a 401 on a POST after login: one re-login and the POST repeated (a 401 was refused before any effect)', async () => {
    const { count, client } = await platform('POST /v2/messages/', (n) =>
      n === 1
        ? (_req, res) =>
            void res
              .writeHead(401, { 'content-type': 'application/json' })
              .end('{"detail":"Invalid auth key."}')
        : undefined,
    );
    await expect(client().messages.send(CONV, [{ type: 'text', content: 'hi' }])).resolves.toEqual({
      detail: 'ok',
    });
    expect(count['POST /jwt/']).toBe(2);
    expect(count['POST /v2/messages/']).toBe(2);
  });

  // Regression (found by this suite): a platform whose JWT payload has one-second resolution issues an
  // identical token to two logins in the same second; refresh() took it for "still the rejected token" and
  // logged in twice more.
  it('a 401 whose re-login returns the same token string still costs a single re-login', async () => {
    const counts = { logins: 0, sends: 0 };
    const s = await startServer((req, res) => {
      const json = (status: number, body: unknown) =>
        void res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      if (req.url === '/jwt/') {
        counts.logins++;
        return json(200, { token: `${TOKEN}.same`, account: { uuid: CONV }, otp: false });
      }
      counts.sends++;
      // The first send meets a transient 401; the same token is accepted afterwards.
      return counts.sends === 1 ? json(401, { detail: 'Invalid auth key.' }) : json(200, { detail: 'ok' });
    });
    close = s.close;
    const c = new PlatformClient({
      platformUrl: s.url,
      streamUrl: s.url,
      username: 'ops',
      password: 'pw-123456',
    });
    await expect(c.messages.send(CONV, [{ type: 'text', content: 'hi' }])).resolves.toEqual({ detail: 'ok' });
    expect(counts.sends).toBe(2);
    expect(counts.logins).toBe(2);
  });
});
