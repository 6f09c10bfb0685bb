import { HttpResponse, http } from 'msw';
import { describe, expect, it } from 'vitest';
import {
  GatewayClient,
  type OutboundMessage,
  PaymentRequiredError,
  type SendManyResult,
} from '../../src/index.js';
import { API_KEY, envelope, GW, useMswServer } from '../helpers/msw.js';

// sendMany over a source whose next read never comes (a live feed, a stuck cursor): the caller's abort, or leaving
// the loop, must end the loop once the sends in flight are reported, whatever the source does. Ordered by deferred
// promises only: a loop that waits for the read never ends, and the test fails on its timeout.

const server = useMswServer();
const msg = (i: number): OutboundMessage => ({
  to: `99890${String(1_000_000 + i)}`,
  type: 'text',
  text: { body: `m${i}` },
});

function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** A gateway answering each message with `wamid.<body>`; a body in `held` waits for its release. */
function gateway(held: Record<string, Promise<void>> = {}) {
  const requested: string[] = [];
  const arrived: Record<string, () => void> = {};
  const arrivals = (body: string) => new Promise<void>((r) => (arrived[body] = r));
  server.use(
    http.post(`${GW}/v1/wa/message`, async ({ request }) => {
      const body = (await request.json()) as { to: string; text: { body: string } };
      requested.push(body.text.body);
      arrived[body.text.body]?.();
      await held[body.text.body];
      return HttpResponse.json({
        isSuccess: true,
        data: {
          contacts: [{ input: body.to, wa_id: body.to }],
          messages: [{ id: `wamid.${body.text.body}` }],
        },
      });
    }),
  );
  return { requested, arrivals };
}

/**
 * An async source of `count` messages whose next read then hangs until `late` is resolved by the test; `reading`
 * settles when that read starts; `onReturn` is what its `return()` does.
 */
function stuckSource(count: number, onReturn: () => Promise<IteratorResult<OutboundMessage>>) {
  const reading = deferred();
  const late = deferred<IteratorResult<OutboundMessage>>();
  const calls = { return: 0 };
  let i = 0;
  const iterator: AsyncIterator<OutboundMessage> = {
    next: () => {
      if (i < count) return Promise.resolve({ done: false, value: msg(i++) });
      reading.resolve();
      return late.promise;
    },
    return: () => {
      calls.return++;
      return onReturn();
    },
  };
  const source: AsyncIterable<OutboundMessage> = { [Symbol.asyncIterator]: () => iterator };
  return { source, reading: reading.promise, late: late.resolve, calls };
}

async function collect(it: AsyncIterable<SendManyResult>): Promise<SendManyResult[]> {
  const out: SendManyResult[] = [];
  for await (const r of it) out.push(r);
  return out;
}

describe('sendMany over a source whose next read never comes', () => {
  it('the signal ends the loop once the send in flight is reported; the source is told to stop; a late message is not taken', async () => {
    const release = deferred();
    const gw0 = gateway({ m1: release.promise });
    const m1Arrived = gw0.arrivals('m1');
    const { source, reading, late, calls } = stuckSource(2, async () => ({ done: true, value: undefined }));
    const gw = new GatewayClient({ apiKey: API_KEY, baseUrl: GW, rateLimit: false });
    const stop = new AbortController();
    const loop = collect(gw.messages.sendMany(source, { concurrency: 4, signal: stop.signal }));
    // m1 is in flight and the third read hangs: abort, then let m1 answer.
    await Promise.all([reading, m1Arrived]);
    stop.abort(new Error('shutting down'));
    release.resolve();
    const results = await loop;
    // What was in flight finished with its real result; nothing else is reported.
    expect(results.map((r) => (r.ok ? r.messageId : r.error.name))).toEqual(['wamid.m0', 'wamid.m1']);
    expect(calls.return).toBe(1);
    // The read hanging at the abort hands over a message after the loop ended: nothing is sent for it.
    late({ done: false, value: msg(9) });
    await new Promise((r) => setImmediate(r));
    expect(gw0.requested.sort()).toEqual(['m0', 'm1']);
  });

  it('the signal ends the loop with nothing in flight (the first read hangs)', async () => {
    gateway();
    const { source, reading, calls } = stuckSource(0, async () => ({ done: true, value: undefined }));
    const gw = new GatewayClient({ apiKey: API_KEY, baseUrl: GW, rateLimit: false });
    const stop = new AbortController();
    const loop = collect(gw.messages.sendMany(source, { signal: stop.signal }));
    await reading;
    stop.abort();
    expect(await loop).toEqual([]);
    expect(calls.return).toBe(1);
  });

  it.each([
    ['hangs', () => new Promise<never>(() => {})],
    ['rejects', () => Promise.reject(new Error('cursor close failed'))],
    [
      'throws',
      () => {
        throw new Error('cursor close failed');
      },
    ],
  ] as const)(
    'the loop ends when the source’s return() also %s, without an unhandled rejection',
    async (_, onReturn) => {
      gateway();
      const { source, reading, calls } = stuckSource(1, onReturn);
      const gw = new GatewayClient({ apiKey: API_KEY, baseUrl: GW, rateLimit: false });
      const stop = new AbortController();
      const results: SendManyResult[] = [];
      const loop = (async () => {
        for await (const r of gw.messages.sendMany(source, { signal: stop.signal })) results.push(r);
      })();
      await reading;
      stop.abort();
      await loop;
      expect(results.map((r) => r.ok)).toEqual([true]);
      expect(calls.return).toBe(1);
      // A rejection nobody handled is reported after the microtasks run (and fails the run).
      await new Promise((r) => setImmediate(r));
    },
  );

  it('breaking out of the loop while a read of an async generator is pending ends at once', async () => {
    gateway();
    const reading = deferred();
    async function* feed() {
      yield msg(0);
      reading.resolve();
      await new Promise<never>(() => {}); // the next row never comes
    }
    const gw = new GatewayClient({ apiKey: API_KEY, baseUrl: GW, rateLimit: false });
    const seen: SendManyResult[] = [];
    for await (const r of gw.messages.sendMany(feed())) {
      seen.push(r);
      // The generator's `return()` waits behind its pending `next()`: leaving must not wait for it.
      await reading.promise;
      break;
    }
    expect(seen.map((r) => r.ok)).toEqual([true]);
  });

  it('after BILL_001 the source is still read (each message reported notSent); the signal ends a read that hangs', async () => {
    server.use(
      http.post(`${GW}/v1/wa/message`, () =>
        HttpResponse.json(envelope('BILL_001', 'BILLING', 'balance exhausted'), { status: 402 }),
      ),
    );
    const { source, reading, calls } = stuckSource(3, async () => ({ done: true, value: undefined }));
    const gw = new GatewayClient({ apiKey: API_KEY, baseUrl: GW, rateLimit: false });
    const stop = new AbortController();
    // One at a time: m0's BILL_001 stops the batch before m1 is read.
    const loop = collect(gw.messages.sendMany(source, { concurrency: 1, signal: stop.signal }));
    await reading;
    stop.abort();
    const results = await loop;
    expect(
      results.map((r) => [r.index, !r.ok && r.notSent, !r.ok && r.error instanceof PaymentRequiredError]),
    ).toEqual([
      [0, true, true],
      [1, true, true],
      [2, true, true],
    ]);
    expect(calls.return).toBe(1);
  });
});
