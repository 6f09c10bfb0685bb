/**
 * PublicApiClient under transport faults, over real node:http sockets on 127.0.0.1. Every fault ends in its
 * documented typed error (docs/errors-and-retries.md) within the timeout, and the server's own count of the
 * requests it received proves that a request that is not idempotent (template create, a POST through
 * `request()`) never went out twice, while a GET reset before its answer is retried.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  ConnectionError,
  InternalServerError,
  InvalidResponseError,
  PublicApiClient,
  type PublicApiClientOptions,
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

const SECRET_KEY = 'sk_org_faults_R7m2Qx9Lp4Vt8Wn1Kc6Zb3Hy5Jd0';
const APP = 'app_faults';
const TIMEOUT_MS = 300;
// Only the tests about timeouts use TIMEOUT_MS: on a loaded machine a short one would turn a reset (or a slow
// healthy answer) into a TimeoutError. Bounds on elapsed time are a failure bound, not a speed test.
const GENEROUS_TIMEOUT_MS = 15_000;
const SLACK_MS = 5000;
const template = {
  name: 'order_shipped',
  language: 'en_US',
  category: 'UTILITY',
  body: { text: 'Order {{1}} shipped.', examples: ['#1'] },
} as const;
const CREATED = {
  data: { sourceId: '1', name: 'order_shipped', language: 'en_US', category: 'UTILITY', status: 'PENDING' },
  isSuccess: true,
};

let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  close = undefined;
});

/** A public API that behaves as `handler` says and counts the requests it received. */
async function api(handler: (n: number) => Handler) {
  const count = { requests: 0 };
  const s = await startServer((req, res, body) => {
    count.requests++;
    return handler(count.requests)(req, res, body);
  });
  close = s.close;
  return {
    count,
    client: (o: Partial<PublicApiClientOptions> = {}) =>
      new PublicApiClient({
        logger: sdkLog.logger,
        secretKey: SECRET_KEY,
        baseUrl: `${s.url}/api/v1`,
        timeoutMs: GENEROUS_TIMEOUT_MS,
        ...o,
      }),
  };
}

type Call = (client: PublicApiClient) => Promise<unknown>;
const nonIdempotent: [string, Call][] = [
  ['templates.create', (c) => c.templates.create(APP, template)],
  ["request('POST')", (c) => c.request('POST', `/wa/${APP}/templates/42/appeal`, { body: { reason: 'x' } })],
];

describe.each(nonIdempotent)(
  '%s: every fault is typed, and the request is never sent twice',
  (_name, call) => {
    it('connection reset before the answer → ConnectionError, mayHaveBeenSent, one request', async () => {
      const { count, client } = await api(() => resetBeforeAnswer);
      const { error } = await failure(() => call(client({ maxRetries: 3 })));
      expect(error).toBeInstanceOf(ConnectionError);
      expect(error).not.toBeInstanceOf(TimeoutError);
      expect(error).toMatchObject({ mayHaveBeenSent: true });
      expect((error as Error).message).toMatch(/may have reached the server, so it was not retried/);
      expect(count.requests).toBe(1);
    });

    it('connection reset mid-body → ConnectionError naming the cut, one request', async () => {
      const { count, client } = await api(() => resetMidBody('{"isSuccess":true,"data":{"sourceId":"12'));
      const { error } = await failure(() => call(client({ maxRetries: 3 })));
      expect(error).toBeInstanceOf(ConnectionError);
      expect(error).not.toBeInstanceOf(TimeoutError);
      expect((error as Error).message).toMatch(/cut while reading the answer/);
      expect(error).toMatchObject({ mayHaveBeenSent: true });
      expect(count.requests).toBe(1);
    });

    it('a server that never answers → TimeoutError within timeoutMs, one request', async () => {
      const { count, client } = await api(() => neverAnswers);
      const { error, ms } = await failure(() => call(client({ maxRetries: 3, timeoutMs: TIMEOUT_MS })));
      expect(error).toBeInstanceOf(TimeoutError);
      expect(error).toMatchObject({ timeoutMs: TIMEOUT_MS, mayHaveBeenSent: true });
      expect(ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 20);
      expect(ms).toBeLessThan(TIMEOUT_MS + SLACK_MS);
      expect(count.requests).toBe(1);
    });

    it('a slow trickle of a valid body → TimeoutError: the timeout covers reading the body', async () => {
      const { count, client } = await api(() => trickle(CREATED));
      const { error, ms } = await failure(() => call(client({ maxRetries: 3, timeoutMs: TIMEOUT_MS })));
      expect(error).toBeInstanceOf(TimeoutError);
      expect(ms).toBeLessThan(TIMEOUT_MS + SLACK_MS);
      expect(count.requests).toBe(1);
    });

    it('500 with an HTML body → InternalServerError with an excerpt, one request', async () => {
      const { count, client } = await api(() => html(500, 'Proxy Error'));
      const { error } = await failure(() => call(client({ maxRetries: 3 })));
      expect(error).toBeInstanceOf(InternalServerError);
      const e = error as InternalServerError;
      expect(e.status).toBe(500);
      expect(e.code).toBeNull();
      expect(e.description).toMatch(/non-JSON body \(text\/html\).*500 Proxy Error/);
      expect(e.body).toContain('500 Proxy Error');
      expect(count.requests).toBe(1);
    });

    it('503 with an HTML body → InternalServerError, one request', async () => {
      const { count, client } = await api(() => html(503, 'Proxy Error'));
      const { error } = await failure(() => call(client({ maxRetries: 3 })));
      expect(error).toBeInstanceOf(InternalServerError);
      expect(error).toMatchObject({ status: 503 });
      expect(count.requests).toBe(1);
    });

    it('502 with an HTML body → UpstreamError with an excerpt, one request', async () => {
      const { count, client } = await api(() => html(502, 'Proxy Error'));
      const { error } = await failure(() => call(client({ maxRetries: 3 })));
      expect(error).toBeInstanceOf(UpstreamError);
      expect((error as UpstreamError).description).toContain('502 Proxy Error');
      expect(count.requests).toBe(1);
    });

    it('truncated JSON in a 200 → InvalidResponseError saying not to resend blindly, one request', async () => {
      const { count, client } = await api(() => truncatedJson('{"isSuccess":true,"data":{"sour'));
      const { error } = await failure(() => call(client({ maxRetries: 3 })));
      expect(error).toBeInstanceOf(InvalidResponseError);
      const e = error as InvalidResponseError;
      expect(e).toMatchObject({ status: 200, mayHaveBeenSent: true });
      expect(e.bodyExcerpt).toBe('{"isSuccess":true,"data":{"sour');
      expect(e.message).toMatch(/do not resend it blindly/);
      expect(count.requests).toBe(1);
    });
  },
);

describe("request('GET'): repeating has no effect, so faults before a complete answer are retried", () => {
  const get = (c: PublicApiClient) =>
    c.request('GET', `/wa/${APP}/templates`, { query: { language: 'en_US' } });

  it('a reset before the answer is retried, and the third attempt succeeds', async () => {
    const { count, client } = await api((n) =>
      n < 3 ? resetBeforeAnswer : (_req, res) => void res.end('[]'),
    );
    await expect(get(client({ maxRetries: 2 }))).resolves.toEqual([]);
    expect(count.requests).toBe(3);
  });

  it('a reset mid-body is retried too', async () => {
    const { count, client } = await api((n) =>
      n < 2
        ? resetMidBody('{"isSuccess":true,"data":{"sourceId":"12')
        : (_req, res) => void res.end('{"a":1}'),
    );
    await expect(get(client({ maxRetries: 1 }))).resolves.toEqual({ a: 1 });
    expect(count.requests).toBe(2);
  });

  it('resets on every attempt end in ConnectionError after maxRetries + 1 requests', async () => {
    const { count, client } = await api(() => resetBeforeAnswer);
    const { error } = await failure(() => get(client({ maxRetries: 1 })));
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as Error).message).not.toMatch(/not retried/);
    expect(count.requests).toBe(2);
  });

  it('a 503 HTML page is retried, then InternalServerError', async () => {
    const { count, client } = await api(() => html(503, 'Proxy Error'));
    const { error } = await failure(() => get(client({ maxRetries: 1 })));
    expect(error).toBeInstanceOf(InternalServerError);
    expect(count.requests).toBe(2);
  });

  it('a server that never answers → TimeoutError within timeoutMs (maxRetries 0)', async () => {
    const { count, client } = await api(() => neverAnswers);
    const { error, ms } = await failure(() => get(client({ maxRetries: 0, timeoutMs: TIMEOUT_MS })));
    expect(error).toBeInstanceOf(TimeoutError);
    expect(ms).toBeLessThan(TIMEOUT_MS + SLACK_MS);
    expect(count.requests).toBe(1);
  });

  // Repeating a GET has no effect, so whether an attempt reached the server does not matter: the caller's
  // reason is the answer, as it is for any abort.
  it.each([503, 502])(
    "the caller's signal during the wait after a %i: rejects with the caller's reason",
    async (status) => {
      const { count, client } = await api(() => html(status, 'Proxy Error'));
      const controller = new AbortController();
      const reason = new Error('shutting down');
      // Aborted the moment the transport decides to wait and retry: the wait is what the abort ends.
      const waiting = client({
        maxRetries: 2,
        onResponse: (e) => {
          if (e.retryInMs !== undefined) controller.abort(reason);
        },
      });
      const { error } = await failure(() =>
        waiting.request('GET', `/wa/${APP}/templates`, { signal: controller.signal }),
      );
      expect(error).toBe(reason);
      expect(count.requests).toBe(1);
    },
  );

  it('truncated JSON in a 200 → InvalidResponseError, not retried (the answer was complete)', async () => {
    const { count, client } = await api(() => truncatedJson('{"isSuccess":true,"data":{"sour'));
    const { error } = await failure(() => get(client({ maxRetries: 2 })));
    expect(error).toBeInstanceOf(InvalidResponseError);
    expect(count.requests).toBe(1);
  });
});
