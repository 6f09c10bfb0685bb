/**
 * `sendGated` (what the campaign queue's workers send with): the request goes out only once the gate resolves,
 * after the rate limiter; a gate that refuses, or that outlasts the send's deadline, sends nothing and the result is
 * `notSent` with a typed error; a fault in flight is never repeated, whatever the client's retry settings.
 */
import { HttpResponse, http } from 'msw';
import { expect, it } from 'vitest';
import { sendGated } from '../../src/gateway/gated-send.js';
import {
  ConnectionError,
  GatewayClient,
  NotSentError,
  TimeoutError,
  WaGatewayError,
} from '../../src/index.js';
import { API_KEY, GW, sendOk, useMswServer } from '../helpers/msw.js';

const server = useMswServer();
const message = { to: '998901234567', type: 'text', text: { body: 'hi' } };

function counting(answer: () => Response) {
  const seen: number[] = [];
  server.use(
    http.post(`${GW}/v1/wa/message`, () => {
      seen.push(Date.now());
      return answer();
    }),
  );
  return seen;
}

it('sends once the gate resolves, and the gate runs after the limiter granted the send', async () => {
  const seen = counting(() => HttpResponse.json(sendOk('wamid.G1')));
  const order: string[] = [];
  const gw = new GatewayClient({
    apiKey: API_KEY,
    baseUrl: GW,
    rateLimit: {
      perSecond: 80,
      acquire: async () => {
        order.push('limiter');
        return () => {};
      },
      pause: () => {},
    },
  });
  const { result, requested } = await sendGated(gw.messages, message, {
    gate: async () => void order.push(`gate (requests so far: ${seen.length})`),
  });
  expect(result).toMatchObject({ ok: true, messageId: 'wamid.G1' });
  expect(requested).toBe(true);
  expect(order).toEqual(['limiter', 'gate (requests so far: 0)']);
  expect(seen).toHaveLength(1);
});

it('a gate that refuses sends nothing: notSent, with its error', async () => {
  const seen = counting(() => HttpResponse.json(sendOk()));
  const gw = new GatewayClient({ apiKey: API_KEY, baseUrl: GW, rateLimit: false });
  const refusal = Object.assign(new WaGatewayError('paused'), { mayHaveBeenSent: false });
  const { result, requested } = await sendGated(gw.messages, message, {
    gate: () => Promise.reject(refusal),
  });
  expect(result).toMatchObject({ ok: false, notSent: true, error: refusal });
  expect(requested).toBe(false);
  expect(seen).toEqual([]);
});

it('a gate that outlasts the deadline sends nothing: a TimeoutError that was certainly not sent', async () => {
  const seen = counting(() => HttpResponse.json(sendOk()));
  // No retry, so that the one attempt's error is the result.
  const gw = new GatewayClient({ apiKey: API_KEY, baseUrl: GW, rateLimit: false, maxRetries: 0 });
  let release!: () => void;
  const { result } = await sendGated(gw.messages, message, {
    timeoutMs: 50,
    // Due after the 50 ms deadline: Node fires timers in the order they fall due, however slow the machine.
    gate: () =>
      new Promise<void>((resolve) => {
        release = resolve;
        setTimeout(() => release(), 200);
      }),
  });
  expect(result.ok).toBe(false);
  if (result.ok) return;
  expect(result.notSent).toBe(true);
  expect(result.error).toBeInstanceOf(TimeoutError);
  expect((result.error as TimeoutError).mayHaveBeenSent).toBe(false);
  expect(result.error.message).toContain('its gate did not answer within 50 ms');
  expect(seen).toEqual([]);
});

it('a fault in flight is one attempt and may have been sent, even with retries on', async () => {
  const seen = counting(() => HttpResponse.error());
  const gw = new GatewayClient({
    apiKey: API_KEY,
    baseUrl: GW,
    rateLimit: false,
    maxRetries: 3,
    retryInFlightSends: true,
  });
  let gates = 0;
  const { result, requested } = await sendGated(gw.messages, message, { gate: async () => void gates++ });
  expect(result).toMatchObject({ ok: false, notSent: false });
  if (!result.ok) expect(result.error).toBeInstanceOf(ConnectionError);
  expect(requested).toBe(true);
  expect(seen).toHaveLength(1);
  expect(gates).toBe(1);
});

it('takes only the messages of a GatewayClient, and an invalid message is notSent before any gate', async () => {
  const gw = new GatewayClient({ apiKey: API_KEY, baseUrl: GW, rateLimit: false });
  await expect(sendGated({} as never, message, { gate: async () => {} })).rejects.toThrow(
    /messages` of a GatewayClient/,
  );
  let gates = 0;
  const { result } = await sendGated(
    gw.messages,
    { to: 'x', type: 'text' },
    { gate: async () => void gates++ },
  );
  expect(result).toMatchObject({ ok: false, notSent: true });
  expect(gates).toBe(0);
});

it('stopped during the wait after a refusal that sent nothing: NotSentError (with the reason), not maybe sent', async () => {
  const seen = counting(() =>
    HttpResponse.json(
      {
        isSuccess: false,
        errors: { code: 'AUTH_004', group: 'INTERNAL_ERROR', description: 'Auth service.' },
      },
      { status: 500 },
    ),
  );
  const stop = new AbortController();
  const reason = new Error('the worker is closing');
  const warnings: string[] = [];
  const gw = new GatewayClient({
    apiKey: API_KEY,
    baseUrl: GW,
    rateLimit: false,
    // The retry's wait is announced (logged) as it starts: the stop comes then, as a worker's close would.
    logger: {
      warn: (line: string) => {
        warnings.push(line);
        stop.abort(reason);
      },
      error: (line: string) => void warnings.push(line),
    },
  });
  const { result, requested } = await sendGated(gw.messages, message, {
    gate: async () => {},
    signal: stop.signal,
  });
  expect(warnings).toEqual(['wa-gateway-sdk: retrying request']);
  expect(seen).toHaveLength(1);
  expect(requested).toBe(true);
  expect(result).toMatchObject({ ok: false, notSent: true });
  const error = (result as { error: WaGatewayError }).error;
  expect(error).toBeInstanceOf(NotSentError);
  expect(error.cause).toBe(reason);
});

it('a stop while the request is out lets it finish: its answer is the result, never a cut left in doubt', async () => {
  const stop = new AbortController();
  const seen = counting(() => {
    stop.abort(new Error('the worker is closing'));
    return HttpResponse.json(sendOk('wamid.G2'));
  });
  const gw = new GatewayClient({ apiKey: API_KEY, baseUrl: GW, rateLimit: false });
  const { result, requested } = await sendGated(gw.messages, message, {
    gate: async () => {},
    signal: stop.signal,
  });
  expect(seen).toHaveLength(1);
  expect(requested).toBe(true);
  expect(result).toMatchObject({ ok: true, messageId: 'wamid.G2' });
});
