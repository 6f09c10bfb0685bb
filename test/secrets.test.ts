/**
 * The secrets bar: no key, secret, password or token in any error message, `JSON.stringify(error)`,
 * `util.inspect` output or logger call, on every failure path of every client. Real-looking secrets, servers
 * that echo them back, and a scan of everything the SDK produced.
 */
import { inspect } from 'node:util';
import { HttpResponse, http } from 'msw';
import { afterAll, describe, expect, it } from 'vitest';
import { GatewayClient, PublicApiClient } from '../src/index.js';
import { useMswServer } from './helpers/msw.js';

const server = useMswServer();
const GATEWAY_KEY = 'pk_live_7Hq2mX9vL4kP8sR1tY6wZ3bN5cJ0fG2d';
const SECRET_KEY = 'sk_org_Qm4Rt7Yp2Lk9Wx5Zc8Vb1Nf6Hd3Js0Ga';
const SECRETS = [GATEWAY_KEY, SECRET_KEY];
const PHONE = '998901234567';
const BODY = 'the private text of a message';
const debugLines: unknown[] = [];

const produced: unknown[] = [];
const logger = {
  debug: (...a: unknown[]) => produced.push(a),
  info: (...a: unknown[]) => produced.push(a),
  warn: (...a: unknown[]) => produced.push(a),
  error: (...a: unknown[]) => produced.push(a),
};

/** Every rendering of a value a person or a log pipeline could see. */
function renderings(value: unknown): string[] {
  const out = [inspect(value, { depth: Number.POSITIVE_INFINITY, showHidden: true }), String(value)];
  try {
    out.push(JSON.stringify(value) ?? '');
  } catch {
    // circular: inspect covers it
  }
  if (value instanceof Error) out.push(value.message, value.stack ?? '');
  return out;
}

/** Answers that echo the credential back, as a careless proxy or error page might. */
const echoing =
  (status: number) =>
  ({ request }: { request: Request }) => {
    const auth = request.headers.get('authorization') ?? '';
    return status === 200
      ? new HttpResponse(`{"truncated": "${auth}`, { status: 200 })
      : HttpResponse.json(
          {
            isSuccess: false,
            errors: { code: 'X_001', group: 'G', description: `rejected ${auth}`, params: { header: auth } },
          },
          { status, headers: { 'x-echo': auth } },
        );
  };

async function failures(run: () => Promise<unknown>) {
  try {
    await run();
  } catch (error) {
    produced.push(error);
    return;
  }
  throw new Error('expected a failure');
}

describe('no secret in any error, inspect output or log line', () => {
  it.each([400, 401, 402, 403, 404, 409, 422, 429, 500, 502, 200])(
    'gateway answering %i with the key echoed',
    async (status) => {
      server.use(http.post('https://gw.test/v1/wa/message', echoing(status)));
      const gw = new GatewayClient({
        apiKey: GATEWAY_KEY,
        baseUrl: 'https://gw.test',
        maxRetries: 0,
        logger,
        logLevel: 'debug',
      });
      produced.push(gw);
      await failures(() => gw.messages.send({ to: '998901234567', type: 'text', text: { body: 'x' } }));
    },
  );

  it('gateway connection error, timeout and media failure', async () => {
    server.use(
      http.post('https://gw.test/v1/wa/message', () => HttpResponse.error()),
      http.get('https://gw.test/v1/wa/media/:id', echoing(404)),
    );
    const gw = new GatewayClient({
      apiKey: GATEWAY_KEY,
      baseUrl: 'https://gw.test',
      logger,
      logLevel: 'debug',
    });
    await failures(() => gw.messages.send({ to: '998901234567', type: 'text', text: { body: 'x' } }));
    await failures(() => gw.media.download('m', { phoneNumberId: 'p' }));
    await failures(() =>
      gw.messages.send({ to: 'bad', type: 'text', text: { body: GATEWAY_KEY.slice(0, 5) } }),
    );
    server.use(http.post('https://gw.test/v1/wa/message', () => new Promise<Response>(() => {})));
    await failures(() =>
      gw.messages.send({ to: '998901234567', type: 'text', text: { body: BODY } }, { timeoutMs: 20 }),
    );
  });

  it('a construction error with a malformed key does not quote it', () => {
    try {
      new GatewayClient({ apiKey: `${GATEWAY_KEY}\n`, baseUrl: 'https://gw.test' });
    } catch (error) {
      produced.push(error);
    }
  });

  it.each([401, 409, 422, 429, 502, 200])(
    'public API answering %i with the secret echoed',
    async (status) => {
      server.use(http.post('https://api.test/api/v1/wa/:app/templates', echoing(status)));
      const api = new PublicApiClient({
        secretKey: SECRET_KEY,
        baseUrl: 'https://api.test/api/v1',
        maxRetries: 0,
        logger,
        logLevel: 'debug',
      });
      produced.push(api);
      await failures(() =>
        api.templates.create('a1', {
          name: 'order_shipped',
          language: 'en_US',
          category: 'UTILITY',
          body: { text: 'Order {{1}} shipped.', examples: ['1'] },
        }),
      );
      server.use(http.get('https://api.test/api/v1/x', echoing(status === 200 ? 500 : status)));
      await failures(() => api.request('GET', '/x'));
    },
  );

  it('successes and retries at every log level, with per-call and default headers', async () => {
    let calls = 0;
    server.use(
      http.post('https://gw.test/v1/wa/message', () =>
        ++calls === 1
          ? HttpResponse.json(
              {
                isSuccess: false,
                errors: { code: 'RATE_001', group: 'RATE', description: 'slow', params: { retry_after: 0 } },
              },
              { status: 429, headers: { 'x-request-id': 'req-1' } },
            )
          : HttpResponse.json(
              {
                isSuccess: true,
                data: { messages: [{ id: 'wamid.1' }], contacts: [{ input: PHONE, wa_id: PHONE }] },
              },
              { headers: { 'x-request-id': 'req-2' } },
            ),
      ),
    );
    const gw = new GatewayClient({
      apiKey: GATEWAY_KEY,
      baseUrl: 'https://gw.test',
      logger: { ...logger, debug: (...a: unknown[]) => debugLines.push(a) },
      logLevel: 'debug',
      defaultHeaders: { 'x-tenant': 'acme' },
    });
    const { response } = await gw.messages
      .send({ to: PHONE, type: 'text', text: { body: BODY } }, { headers: { 'x-trace': 't1' } })
      .withResponse();
    expect(response.requestId).toBe('req-2');
    // The debug level says enough to chase a lost delivery: method, path, status, attempt, request id, timing.
    expect(debugLines).toContainEqual([
      'wa-gateway-sdk: request succeeded',
      expect.objectContaining({
        method: 'POST',
        path: '/v1/wa/message',
        status: 200,
        attempt: 2,
        requestId: 'req-2',
      }),
    ]);
    produced.push(...debugLines);
  });

  afterAll(() => {
    expect(produced.length).toBeGreaterThan(30);
    // Log lines never carry a phone number or a message body either.
    const logged = produced.filter(Array.isArray).flatMap(renderings);
    expect(logged.filter((text) => text.includes(PHONE) || text.includes(BODY))).toEqual([]);
    const leaks = produced.flatMap(renderings).filter((text) => SECRETS.some((s) => text.includes(s)));
    expect(leaks).toEqual([]);
  });
});
