import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { messageEnvelope, textMessage } from '../../src/testing/webhook-fixtures.js';
import {
  createNodeWebhookHandler,
  type NodeWebhookRequest,
  type NodeWebhookResponse,
  signUpstreamBody,
  type WebhookEvent,
  type WebhookHandlerOptions,
} from '../../src/webhooks/index.js';

const SECRET = 'wh_node_secret_0123456789abcdefghijk';

class FakeResponse implements NodeWebhookResponse {
  statusCode = 200;
  headers: Record<string, string> = {};
  body: string | undefined;
  ended = 0;
  headersSent = false;
  writableEnded = false;
  setHeader(name: string, value: string): void {
    this.headers[name] = value;
  }
  end(body?: string): void {
    this.ended++;
    this.body = body;
    this.headersSent = true;
    this.writableEnded = true;
  }
}

function streamRequest(
  body: string | null,
  extra: Partial<NodeWebhookRequest> & { headers?: Record<string, string> } = {},
): PassThrough & NodeWebhookRequest {
  const stream = new PassThrough() as PassThrough & NodeWebhookRequest;
  Object.assign(stream, {
    method: 'POST',
    ...extra,
    headers: { authorization: `Bearer ${SECRET}`, 'content-type': 'application/json', ...extra.headers },
  });
  if (body !== null) stream.end(body);
  return stream;
}

/** A request whose stream a body parser already read to the end (`readableEnded` is then true, as in Node). */
async function consumedRequest(
  extra: Partial<NodeWebhookRequest> & { headers?: Record<string, string> } = {},
): Promise<PassThrough & NodeWebhookRequest> {
  const req = streamRequest('{"entry":[]}', extra);
  req.resume();
  await new Promise((resolve) => req.once('end', resolve));
  expect(req.readableEnded).toBe(true);
  return req;
}

function setup(options: Partial<WebhookHandlerOptions> = {}) {
  const seen: WebhookEvent[] = [];
  const logs: string[] = [];
  const handler = createNodeWebhookHandler({
    secret: SECRET,
    onEvent: (event) => {
      seen.push(event);
    },
    logger: { warn: (m) => logs.push(m), error: (m) => logs.push(m) },
    deadlineMs: 500,
    ...options,
  });
  return { handler, seen, logs };
}

const body = () => JSON.stringify(messageEnvelope(textMessage()));

describe('createNodeWebhookHandler', () => {
  it('reads the raw body from the stream', async () => {
    const { handler, seen } = setup();
    const res = new FakeResponse();
    await handler(streamRequest(body()), res);
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe('{"ok":true}');
    expect(res.headers['content-type']).toBe('application/json');
    expect(seen).toHaveLength(1);
  });

  it('uses a body parser result: parsed object on a consumed stream, Buffer, or string', async () => {
    const { handler, seen } = setup();
    const consumed = await consumedRequest({ body: JSON.parse(body()) as object });
    const asBuffer = streamRequest(null, { body: Buffer.from(body()) });
    const asString = streamRequest(null, { body: body() });
    for (const req of [consumed, asBuffer, asString]) {
      const res = new FakeResponse();
      await handler(req, res);
      expect(res.statusCode).toBe(200);
    }
    expect(seen).toHaveLength(3);
  });

  it('reads the stream when req.body is an object but the stream was not consumed (a parser that skipped)', async () => {
    const { handler, seen } = setup();
    const msg = textMessage();
    const req = streamRequest(JSON.stringify(messageEnvelope(msg)), { body: {} });
    const res = new FakeResponse();
    await handler(req, res);
    expect(res.statusCode).toBe(200);
    expect(seen.map((e) => e.idempotencyKey)).toEqual([msg.id]);
  });

  it('does not hang on a consumed stream without req.body: answers 500 and says why', async () => {
    const { handler, logs } = setup();
    const req = await consumedRequest();
    const res = new FakeResponse();
    await handler(req, res);
    expect(res.statusCode).toBe(500);
    expect(logs.join('\n')).toMatch(/already read/);
  });

  it('upstream signature with a pre-parsed body: 500 and a log naming the fix (not a silent 4xx)', async () => {
    const raw = body();
    const stages: string[] = [];
    const { handler, logs, seen } = setup({
      upstreamAppSecret: 'app_secret',
      onError: (_error, info) => void stages.push(info.stage),
    });
    const req = await consumedRequest({
      body: JSON.parse(raw) as object,
      headers: { 'x-hub-signature-256': await signUpstreamBody(raw, 'app_secret') },
    });
    const res = new FakeResponse();
    await handler(req, res);
    expect(res.statusCode).toBe(500);
    expect(res.body).toBe('{"ok":false,"error":"raw_body_required"}');
    expect(logs.join('\n')).toMatch(/body parser/);
    expect(stages).toEqual(['signature']); // a set-up to fix: onError (alerting) hears of it, not the log alone
    expect(seen).toHaveLength(0);
    // The same request with raw bytes (express.raw()) verifies.
    const ok = new FakeResponse();
    await handler(
      streamRequest(null, {
        body: Buffer.from(raw),
        headers: { 'x-hub-signature-256': await signUpstreamBody(raw, 'app_secret') },
      }),
      ok,
    );
    expect(ok.statusCode).toBe(200);
  });

  it('works with a request that is only async-iterable', async () => {
    const { handler, seen } = setup();
    const text = body();
    const req: NodeWebhookRequest = {
      method: 'POST',
      headers: { authorization: `Bearer ${SECRET}` },
      async *[Symbol.asyncIterator]() {
        yield new TextEncoder().encode(text.slice(0, 10));
        yield text.slice(10);
      },
    };
    const res = new FakeResponse();
    await handler(req, res);
    expect(res.statusCode).toBe(200);
    expect(seen).toHaveLength(1);
  });

  it('answers 413 over the cap, 401 and 405 like the Fetch handler', async () => {
    const { handler } = setup({ maxBodyBytes: 100 });
    const big = new FakeResponse();
    await handler(streamRequest(body()), big);
    expect(big.statusCode).toBe(413);
    const declared = new FakeResponse();
    await handler(streamRequest(null, { headers: { 'content-length': '5000' } }), declared);
    expect(declared.statusCode).toBe(413);
    const unauth = new FakeResponse();
    await handler(streamRequest(body(), { headers: { authorization: 'Bearer nope' } }), unauth);
    expect(unauth.statusCode).toBe(401);
    const get = new FakeResponse();
    await handler(streamRequest(null, { method: 'GET' }), get);
    expect(get.statusCode).toBe(405);
    expect(get.headers['allow']).toBe('POST');
  });

  it('a stream that errors or closes early is answered, not left hanging', async () => {
    const { handler } = setup();
    const erroring = streamRequest(null);
    const res1 = new FakeResponse();
    const p1 = handler(erroring, res1);
    erroring.write('{"entry":');
    erroring.destroy(new Error('socket hang up'));
    await p1;
    expect(res1.statusCode).toBe(500);
    const closing = streamRequest(null);
    const res2 = new FakeResponse();
    const p2 = handler(closing, res2);
    closing.write('{"entry":');
    closing.destroy();
    await p2;
    expect(res2.statusCode).toBe(500);
  });

  it('never throws out of (req, res): broken response objects and hostile requests are survived', async () => {
    const { handler } = setup();
    const throwingRes: NodeWebhookResponse = {
      statusCode: 200,
      setHeader() {
        throw new Error('headers already sent');
      },
      end() {
        throw new Error('write after end');
      },
    };
    await expect(handler(streamRequest(body()), throwingRes)).resolves.toBeUndefined();
    const hostile = {
      method: 'POST',
      get headers(): Record<string, string> {
        throw new Error('hostile');
      },
    } as NodeWebhookRequest;
    const res = new FakeResponse();
    await expect(handler(hostile, res)).resolves.toBeUndefined();
    expect(res.statusCode).toBe(500);
    expect(res.ended).toBe(1);
  });

  it('does not call next', async () => {
    const { handler } = setup();
    let nextCalled = false;
    await handler(streamRequest(body()), new FakeResponse(), () => {
      nextCalled = true;
    });
    expect(nextCalled).toBe(false);
  });
});
