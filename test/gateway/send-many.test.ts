import { HttpResponse, http } from 'msw';
import { describe, expect, it } from 'vitest';
import {
  GatewayClient,
  MessageValidationError,
  NotSentError,
  type OutboundMessage,
  PaymentRequiredError,
  RateLimitError,
  type SendLimiter,
  type SendManyProgress,
  type SendManyResult,
} from '../../src/index.js';
import { captureLogger } from '../helpers/capture-logger.js';
import { API_KEY, envelope, GW, useMswServer } from '../helpers/msw.js';

const server = useMswServer();
const msg = (i: number): OutboundMessage => ({
  to: `99890${String(1_000_000 + i)}`,
  type: 'text',
  text: { body: `m${i}` },
});

async function collect(it: AsyncIterable<SendManyResult>): Promise<SendManyResult[]> {
  const out: SendManyResult[] = [];
  for await (const r of it) out.push(r);
  return out;
}

/** A gateway that answers with the message body's text as the wamid, after a random delay. */
function echoGateway(
  decide: (n: number, body: { text: { body: string } }) => Response | undefined = () => undefined,
) {
  const stats = { requests: 0, inFlight: 0, maxInFlight: 0 };
  server.use(
    http.post(`${GW}/v1/wa/message`, async ({ request }) => {
      const n = ++stats.requests;
      stats.inFlight++;
      stats.maxInFlight = Math.max(stats.maxInFlight, stats.inFlight);
      const body = (await request.json()) as { to: string; text: { body: string } };
      await new Promise((r) => setTimeout(r, Math.random() * 15));
      stats.inFlight--;
      return (
        decide(n, body) ??
        HttpResponse.json({
          isSuccess: true,
          data: {
            contacts: [{ input: body.to, wa_id: body.to }],
            messages: [{ id: `wamid.${body.text.body}` }],
          },
        })
      );
    }),
  );
  return stats;
}

describe('messages.sendMany', () => {
  it('yields one result per message in input order, with bounded concurrency', async () => {
    const stats = echoGateway();
    const gw = new GatewayClient({ apiKey: API_KEY, baseUrl: GW, rateLimit: false });
    const results = await collect(
      gw.messages.sendMany(
        Array.from({ length: 60 }, (_, i) => msg(i)),
        { concurrency: 5 },
      ),
    );
    expect(results.map((r) => r.index)).toEqual(Array.from({ length: 60 }, (_, i) => i));
    expect(results.every((r) => r.ok && r.messageId === `wamid.m${r.index}`)).toBe(true);
    expect(stats.requests).toBe(60);
    expect(stats.maxInFlight).toBeLessThanOrEqual(5);
    expect(stats.maxInFlight).toBeGreaterThan(1);
  });

  it('reads an async iterable lazily', async () => {
    echoGateway();
    let produced = 0;
    async function* source() {
      for (let i = 0; i < 50; i++) {
        produced++;
        yield msg(i);
      }
    }
    const gw = new GatewayClient({ apiKey: API_KEY, baseUrl: GW, rateLimit: false });
    const it = gw.messages.sendMany(source(), { concurrency: 2 });
    const first = await it.next();
    expect(first.value).toMatchObject({ index: 0, ok: true });
    // Read ahead at most concurrency × 4 messages (+1 being read), not the whole source.
    expect(produced).toBeLessThanOrEqual(2 * 4 + 1);
    await it.return(undefined);
  });

  it('reports an invalid message without a request and goes on with the rest', async () => {
    const stats = echoGateway();
    const gw = new GatewayClient({ apiKey: API_KEY, baseUrl: GW, rateLimit: false });
    const bad = { to: '+1 555', type: 'text', text: { body: 'x' } } as OutboundMessage;
    const results = await collect(gw.messages.sendMany([msg(0), bad, msg(2)]));
    expect(results[1]).toMatchObject({ index: 1, ok: false, notSent: true });
    expect(results[1]!.ok === false && results[1]!.error).toBeInstanceOf(MessageValidationError);
    expect(results.filter((r) => r.ok)).toHaveLength(2);
    expect(stats.requests).toBe(2);
  });

  // The second row is the failure envelope on a success status: the code, not the status, says the balance is gone.
  it.each([
    ['a 402', 402],
    ['a 200 carrying the envelope', 200],
  ])(
    'BILL_001 in %s stops starting new sends and reports every remaining message as not sent',
    async (_, status) => {
      const stats = echoGateway((n) =>
        n === 5
          ? HttpResponse.json(envelope('BILL_001', 'PAYMENT_REQUIRED', 'Balance is zero'), { status })
          : undefined,
      );
      const gw = new GatewayClient({ apiKey: API_KEY, baseUrl: GW, rateLimit: false });
      const results = await collect(
        gw.messages.sendMany(
          Array.from({ length: 40 }, (_, i) => msg(i)),
          { concurrency: 1 },
        ),
      );
      expect(results).toHaveLength(40);
      expect(results.filter((r) => r.ok)).toHaveLength(4);
      const failed = results.filter((r) => !r.ok);
      expect(failed).toHaveLength(36);
      for (const r of failed) {
        expect(r.ok === false && r.error).toBeInstanceOf(PaymentRequiredError);
        expect(r.ok === false && r.notSent).toBe(true);
      }
      expect(stats.requests).toBe(5);
    },
  );

  it('BILL_001 after an attempt cut in flight: that send may be out, the messages never started certainly are not', async () => {
    const stats = echoGateway((n) => {
      if (n === 1) return HttpResponse.error(); // m0's first attempt, cut in flight
      if (n === 2)
        return HttpResponse.json(envelope('BILL_001', 'PAYMENT_REQUIRED', 'Balance is zero'), {
          status: 402,
        });
      return undefined;
    });
    const log = captureLogger();
    const gw = new GatewayClient({
      apiKey: API_KEY,
      baseUrl: GW,
      rateLimit: false,
      retryInFlightSends: true,
      logger: log.logger,
    });
    const results = await collect(
      gw.messages.sendMany(
        Array.from({ length: 5 }, (_, i) => msg(i)),
        { concurrency: 1 },
      ),
    );
    expect(stats.requests).toBe(2);
    expect(log.messages()).toEqual(['wa-gateway-sdk: retrying request']);
    const [first, ...rest] = results;
    // m0: refused on its repeat, but its first attempt may have reached the gateway.
    expect(first).toMatchObject({ index: 0, ok: false, notSent: false });
    expect(first?.ok === false && first.error).toMatchObject({ code: 'BILL_001', mayHaveBeenSent: true });
    expect(rest).toHaveLength(4);
    for (const r of rest) {
      expect(r).toMatchObject({ ok: false, notSent: true });
      const e = r.ok === false ? r.error : undefined;
      expect(e).toBeInstanceOf(PaymentRequiredError);
      // The gateway's refusal, without what m0's own attempts add to m0's error.
      expect(e).toMatchObject({ code: 'BILL_001', mayHaveBeenSent: false });
      expect((e as { earlierAttemptMayHaveBeenSent?: true }).earlierAttemptMayHaveBeenSent).toBeUndefined();
      expect(e?.message).not.toMatch(/earlier attempt/);
    }
  });

  it('BILL_001 also stops sends already queued at the rate limiter', async () => {
    const stats = echoGateway((n) =>
      n === 1
        ? HttpResponse.json(envelope('BILL_001', 'PAYMENT_REQUIRED', 'Balance is zero'), { status: 402 })
        : undefined,
    );
    const gw = new GatewayClient({ apiKey: API_KEY, baseUrl: GW, rateLimit: { perSecond: 1 } });
    const results = await collect(
      gw.messages.sendMany(
        Array.from({ length: 6 }, (_, i) => msg(i)),
        { concurrency: 6 },
      ),
    );
    expect(stats.requests).toBe(1);
    expect(results.every((r) => !r.ok && r.notSent)).toBe(true);
  });

  it('RATE_001 pauses every worker for retry_after, then all messages go out once', async () => {
    const starts: number[] = [];
    let limitedAt = 0;
    server.events.on('request:start', () => starts.push(performance.now()));
    const stats = echoGateway((n) => {
      if (n === 3) limitedAt = performance.now();
      return n === 3
        ? HttpResponse.json(
            envelope('RATE_001', 'TOO_MANY_REQUESTS', 'slow', { limit_type: 'sec', retry_after: '1s' }),
            {
              status: 429,
            },
          )
        : undefined;
    });
    const log = captureLogger();
    const gw = new GatewayClient({ apiKey: API_KEY, baseUrl: GW, logger: log.logger });
    const results = await collect(
      gw.messages.sendMany(
        Array.from({ length: 12 }, (_, i) => msg(i)),
        { concurrency: 4 },
      ),
    );
    expect(results.every((r) => r.ok)).toBe(true);
    expect(new Set(results.map((r) => r.ok && r.messageId)).size).toBe(12);
    expect(stats.requests).toBe(13);
    server.events.removeAllListeners();
    // After the 429 no request started for about a second: the limiter held every worker, not just one.
    const next = Math.min(...starts.filter((t) => t > limitedAt));
    expect(next - limitedAt).toBeGreaterThanOrEqual(990);
    expect(starts.filter((t) => t > limitedAt).length).toBeGreaterThan(0);
    // The retry is logged; so is, once per process, a RATE_001 met while other clients of this file (each with a
    // limiter of its own) used the same key.
    expect(log.messages()[0]).toBe('wa-gateway-sdk: retrying request');
    for (const message of log.messages()) {
      expect(message).toMatch(/^wa-gateway-sdk: (retrying request$|RATE_001, and \d+ GatewayClients)/);
    }
  });

  it('a RATE_001 that ends its call (no retry left) still holds every other send for retry_after', async () => {
    const starts: number[] = [];
    let limitedAt = 0;
    server.events.on('request:start', () => starts.push(performance.now()));
    const stats = echoGateway((n) => {
      if (n === 1) limitedAt = performance.now();
      return n === 1
        ? HttpResponse.json(
            envelope('RATE_001', 'TOO_MANY_REQUESTS', 'slow', { limit_type: 'sec', retry_after: '1s' }),
            { status: 429 },
          )
        : undefined;
    });
    const gw = new GatewayClient({ apiKey: API_KEY, baseUrl: GW, maxRetries: 0 });
    const results = await collect(
      gw.messages.sendMany(
        Array.from({ length: 4 }, (_, i) => msg(i)),
        { concurrency: 1 },
      ),
    );
    server.events.removeAllListeners();
    expect(stats.requests).toBe(4);
    const refused = results.flatMap((r) => (r.ok ? [] : [r.error]));
    expect(refused).toHaveLength(1);
    expect(refused[0]).toBeInstanceOf(RateLimitError);
    // The refused message is not retried, but the gateway's retry_after is the account's: the next send waited it
    // out, as after a retried RATE_001 (one at a time, so every later send starts after the refusal).
    const after = starts.filter((t) => t > limitedAt);
    expect(after.length).toBeGreaterThan(0);
    expect(Math.min(...after) - limitedAt).toBeGreaterThanOrEqual(990);
  });

  it('a RATE_001 whose retry_after is longer than maxRetryWaitMs pauses nothing: it is the caller’s to schedule', async () => {
    const pauses: number[] = [];
    // A limiter of the caller's own (any SendLimiter): it records what the transport asks of it.
    const limiter: SendLimiter = {
      perSecond: 1000,
      acquire: async () => () => {},
      pause: (ms) => pauses.push(ms),
    };
    server.use(
      http.post(`${GW}/v1/wa/message`, () =>
        HttpResponse.json(
          envelope('RATE_001', 'TOO_MANY_REQUESTS', 'slow', { limit_type: 'sec', retry_after: '2s' }),
          { status: 429 },
        ),
      ),
    );
    const long = new GatewayClient({
      apiKey: API_KEY,
      baseUrl: GW,
      rateLimit: limiter,
      maxRetryWaitMs: 1000,
    });
    await expect(long.messages.send(msg(1))).rejects.toBeInstanceOf(RateLimitError);
    expect(pauses).toEqual([]);
    const last = new GatewayClient({ apiKey: API_KEY, baseUrl: GW, rateLimit: limiter, maxRetries: 0 });
    await expect(last.messages.send(msg(2))).rejects.toBeInstanceOf(RateLimitError);
    expect(pauses).toEqual([2000]);
  });

  it("a limiter of the user's that throws when told of a RATE_001 or BILL_001 changes no call's outcome", async () => {
    const told: string[] = [];
    const limiter: SendLimiter = {
      perSecond: 1000,
      acquire: async () => () => {},
      pause: (ms) => {
        told.push(`pause ${ms}`);
        throw new Error('limiter store down');
      },
      paymentRequired: () => {
        told.push('paymentRequired');
        return Promise.reject(new Error('limiter store down')) as unknown as undefined;
      },
    };
    let n = 0;
    server.use(
      http.post(`${GW}/v1/wa/message`, () =>
        ++n <= 2
          ? HttpResponse.json(
              envelope('RATE_001', 'TOO_MANY_REQUESTS', 'slow', { limit_type: 'sec', retry_after: '10ms' }),
              { status: 429 },
            )
          : HttpResponse.json(envelope('BILL_001', 'PAYMENT_REQUIRED', 'top up'), { status: 402 }),
      ),
    );
    const log = captureLogger();
    const gw = new GatewayClient({
      apiKey: API_KEY,
      baseUrl: GW,
      rateLimit: limiter,
      maxRetries: 1,
      logger: log.logger,
    });
    // The first call: a RATE_001 retried (pause on the retry path), then a final one (pause on the way out).
    await expect(gw.messages.send(msg(1))).rejects.toBeInstanceOf(RateLimitError);
    await expect(gw.messages.send(msg(2), { maxRetries: 0 })).rejects.toBeInstanceOf(PaymentRequiredError);
    expect(told).toEqual(['pause 10', 'pause 10', 'paymentRequired']);
    // The rejected promise is settled before the test ends. A warning names the error, never its message (the three
    // failures fall in one folding window: one line, the others counted).
    await new Promise((r) => setTimeout(r, 0));
    const warned = log.lines.filter((l) => /rate limiter failed/.test(l.message));
    expect(warned[0]?.meta).toMatchObject({ errorName: 'Error' });
    expect(JSON.stringify(log.lines)).not.toContain('limiter store down');
  });

  it('breaking out of the loop stops the sends queued at the rate limiter: nothing goes out unreported', async () => {
    const stats = echoGateway();
    const gw = new GatewayClient({ apiKey: API_KEY, baseUrl: GW, rateLimit: { perSecond: 5 } });
    for await (const r of gw.messages.sendMany(
      Array.from({ length: 40 }, (_, i) => msg(i)),
      { concurrency: 16 },
    )) {
      expect(r.ok).toBe(true);
      break;
    }
    const afterBreak = stats.requests;
    await new Promise((r) => setTimeout(r, 1500));
    // Only the sends already started (at most a handful at 5/s) may complete; the queued ones never go out.
    expect(stats.requests).toBe(afterBreak);
    expect(afterBreak).toBeLessThanOrEqual(5);
  });

  it('the signal stops starting sends (reported notSent) but never cuts one in flight', async () => {
    const stats = echoGateway();
    const gw = new GatewayClient({ apiKey: API_KEY, baseUrl: GW, rateLimit: { perSecond: 2 } });
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('shutting down')), 100);
    const results = await collect(
      gw.messages.sendMany(
        Array.from({ length: 6 }, (_, i) => msg(i)),
        { concurrency: 6, signal: controller.signal },
      ),
    );
    const sent = results.filter((r) => r.ok);
    expect(sent.length).toBe(stats.requests);
    expect(sent.length).toBeGreaterThan(0);
    const stopped = results.filter((r) => !r.ok);
    expect(stopped.length).toBe(6 - sent.length);
    for (const r of stopped) {
      expect(r.ok === false && r.notSent).toBe(true);
      // An SDK error that certainly was not sent, carrying the caller's reason.
      expect(r.ok === false && r.error).toBeInstanceOf(NotSentError);
      expect(r.ok === false && (r.error.cause as Error).message).toBe('shutting down');
    }
  });

  it('notSent is true exactly when the gateway or the upstream refused it (GW_001); a bare 502 may be out', async () => {
    const answers: Record<string, [number, string, string]> = {
      m0: [401, 'AUTH_001', 'UNAUTHORIZED'],
      m1: [400, 'BILL_002', 'BAD_REQUEST'],
      m2: [401, 'WABA_001', 'UNAUTHORIZED'],
      m3: [502, 'GW_001', 'UPSTREAM_ERROR'],
    };
    echoGateway((_n, body) => {
      if (body.text.body === 'm4') return new HttpResponse('Bad Gateway', { status: 502 });
      const a = answers[body.text.body];
      return a ? HttpResponse.json(envelope(a[1], a[2], 'no'), { status: a[0] }) : undefined;
    });
    const gw = new GatewayClient({ apiKey: API_KEY, baseUrl: GW, rateLimit: false });
    const results = await collect(gw.messages.sendMany([0, 1, 2, 3, 4, 5].map(msg)));
    expect(results.map((r) => (r.ok ? 'ok' : r.notSent))).toEqual([true, true, true, true, false, 'ok']);
  });

  it('a slow send does not hold the others back; results still come in input order', async () => {
    const stats = echoGateway();
    // m0 answers only once 16 sends have gone out: the pool must go on without it (or this never answers and
    // the test fails on its timeout). A condition, not a delay, so a busy machine changes nothing.
    let othersWentOn: () => void = () => {};
    const sixteenRequests = new Promise<void>((resolve) => {
      othersWentOn = resolve;
    });
    server.use(
      http.post(`${GW}/v1/wa/message`, async ({ request }) => {
        const body = (await request.json()) as { to: string; text: { body: string } };
        stats.requests++;
        if (stats.requests === 16) othersWentOn();
        if (body.text.body === 'm0') await sixteenRequests;
        return HttpResponse.json({
          isSuccess: true,
          data: {
            contacts: [{ input: body.to, wa_id: body.to }],
            messages: [{ id: `wamid.${body.text.body}` }],
          },
        });
      }),
    );
    const gw = new GatewayClient({ apiKey: API_KEY, baseUrl: GW, rateLimit: false });
    let requestsAtFirst = 0;
    const results: SendManyResult[] = [];
    for await (const r of gw.messages.sendMany(
      Array.from({ length: 30 }, (_, i) => msg(i)),
      { concurrency: 4 },
    )) {
      if (results.length === 0) requestsAtFirst = stats.requests;
      results.push(r);
    }
    expect(results.map((r) => r.index)).toEqual(Array.from({ length: 30 }, (_, i) => i));
    // While m0 was slow the pool went on, up to concurrency × 4 = 16 messages ahead (a window stops at 4).
    expect(requestsAtFirst).toBe(16);
    expect(stats.requests).toBe(30);
  });

  it('onProgress names the messages a crash leaves in doubt: none at or past inDoubtUntil was requested', async () => {
    // Message 0 is held until the pool is full, so results wait for it: the window is concurrency * 4, not
    // concurrency. Every request must be for a message below the last report's bound.
    const concurrency = 2;
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const requested: number[] = [];
    let bound = concurrency * 4;
    const beyond: number[] = [];
    server.use(
      http.post(`${GW}/v1/wa/message`, async ({ request }) => {
        const body = (await request.json()) as { to: string; text: { body: string } };
        const index = Number(body.text.body.slice(1));
        requested.push(index);
        if (index >= bound) beyond.push(index);
        if (requested.length === concurrency * 4) release();
        if (index === 0) await held;
        return HttpResponse.json({
          isSuccess: true,
          data: { contacts: [], messages: [{ id: `wamid.${body.text.body}` }] },
        });
      }),
    );
    const gw = new GatewayClient({ apiKey: API_KEY, baseUrl: GW, rateLimit: false });
    const reports: SendManyProgress[] = [];
    const results = await collect(
      gw.messages.sendMany(
        Array.from({ length: 30 }, (_, i) => msg(i)),
        {
          concurrency,
          onProgress: (p) => {
            reports.push(p);
            bound = p.inDoubtUntil;
          },
        },
      ),
    );
    expect(results.every((r) => r.ok)).toBe(true);
    // Before the first report, the pool had taken 8 messages: more than `done + concurrency` (2).
    expect(requested.slice(0, 8).sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(beyond).toEqual([]);
    expect(reports[0]).toMatchObject({ done: 1, inDoubtUntil: 1 + concurrency * 4 });
    expect(reports.at(-1)).toMatchObject({ done: 30, inDoubtUntil: 30 });
  });

  it('a slow source does not hold back results that are ready: each is yielded before the next item is read', async () => {
    echoGateway();
    const gw = new GatewayClient({ apiKey: API_KEY, baseUrl: GW, rateLimit: false });
    // The source gives its next item only once the loop has yielded the previous one's result: a loop that waits
    // for the source before it yields never gets there (and the test fails on its timeout). A condition, not a delay.
    let yielded = -1;
    let resultSeen: () => void = () => {};
    async function* cursor() {
      for (let i = 0; i < 5; i++) {
        if (i > 0) {
          await new Promise<void>((resolve) => {
            resultSeen = resolve;
            if (yielded >= i - 1) resolve();
          });
        }
        yield msg(i);
      }
    }
    const indices: number[] = [];
    for await (const r of gw.messages.sendMany(cursor(), { concurrency: 4 })) {
      indices.push(r.index);
      yielded = r.index;
      resultSeen();
    }
    expect(indices).toEqual([0, 1, 2, 3, 4]);
  });

  it('a source that throws ends the loop with its error, after the results of what it gave', async () => {
    echoGateway();
    const gw = new GatewayClient({ apiKey: API_KEY, baseUrl: GW, rateLimit: false });
    async function* broken() {
      yield msg(0);
      yield msg(1);
      throw new Error('cursor lost');
    }
    const indices: number[] = [];
    const error = await (async () => {
      for await (const r of gw.messages.sendMany(broken(), { concurrency: 4 })) indices.push(r.index);
    })().catch((e: unknown) => e);
    expect((error as Error).message).toBe('cursor lost');
    expect(indices).toEqual([0, 1]);
  });

  it('rejects a bad concurrency', async () => {
    const gw = new GatewayClient({ apiKey: API_KEY, baseUrl: GW });
    await expect(collect(gw.messages.sendMany([msg(0)], { concurrency: 0 }))).rejects.toThrow(/concurrency/);
  });
});
