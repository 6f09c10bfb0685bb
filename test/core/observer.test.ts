/**
 * Observer callbacks may be async: a promise they return that rejects is swallowed like a synchronous throw, never
 * left as an unhandled rejection (which ends a Node process).
 */
import { setImmediate as macrotask } from 'node:timers/promises';
import { HttpResponse, http } from 'msw';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { callObserver } from '../../src/core/observer.js';
import { GatewayClient } from '../../src/index.js';
import { createWebhookHandler, StatusTracker } from '../../src/webhooks/index.js';
import { API_KEY, GW, sendOk, useMswServer } from '../helpers/msw.js';

const server = useMswServer();
let unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => void unhandled.push(reason);

beforeEach(() => {
  unhandled = [];
  process.on('unhandledRejection', onUnhandled);
});
afterEach(() => {
  process.off('unhandledRejection', onUnhandled);
});

/** Lets a rejection that nobody handled reach the process's `unhandledRejection` event. */
async function settled(): Promise<void> {
  await macrotask();
  await macrotask();
}

describe('async observers that reject', () => {
  it('callObserver swallows a sync throw and an async rejection, reporting the error name only', async () => {
    const names: string[] = [];
    callObserver(
      () => {
        throw new TypeError('secret detail');
      },
      [],
      (name) => names.push(name),
    );
    callObserver(
      async () => Promise.reject(new RangeError('secret detail')),
      [],
      (name) => names.push(name),
    );
    await settled();
    expect(names).toEqual(['TypeError', 'RangeError']);
    expect(unhandled).toEqual([]);
  });

  it('GatewayClient: an async onRequest/onResponse that rejects leaves the send intact and nothing unhandled', async () => {
    server.use(http.post(`${GW}/v1/wa/message`, () => HttpResponse.json(sendOk('wamid.OBS'))));
    const gw = new GatewayClient({
      apiKey: API_KEY,
      baseUrl: GW,
      onRequest: async () => {
        throw new Error('metrics backend down');
      },
      onResponse: async () => {
        throw new Error('metrics backend down');
      },
    });
    await expect(
      gw.messages.send({ to: '998901234567', type: 'text', text: { body: 'Hi' } }),
    ).resolves.toMatchObject({ messageId: 'wamid.OBS' });
    await settled();
    expect(unhandled).toEqual([]);
  });

  it('sendMany: an async onProgress that rejects loses no result and leaves nothing unhandled', async () => {
    server.use(http.post(`${GW}/v1/wa/message`, () => HttpResponse.json(sendOk('wamid.MANY'))));
    const gw = new GatewayClient({ apiKey: API_KEY, baseUrl: GW });
    const results: unknown[] = [];
    const messages = [{ to: '998901234567', type: 'text' as const, text: { body: 'Hi' } }];
    const onProgress = async () => {
      throw new Error('progress bar down');
    };
    for await (const result of gw.messages.sendMany(messages, { onProgress })) results.push(result);
    expect(results).toMatchObject([{ ok: true }]);
    await settled();
    expect(unhandled).toEqual([]);
  });

  it('webhook handler: an async onError that rejects changes no answer and leaves nothing unhandled', async () => {
    const warnings: string[] = [];
    const handler = createWebhookHandler({
      secret: 'observer-secret-0123456789abcdefghij',
      logger: { warn: (message) => void warnings.push(message), error: () => {} },
      onEvent: () => {
        throw new Error('app failure');
      },
      onError: async () => {
        throw new Error('alerting down');
      },
    });
    const response = await handler(
      new Request('https://hook.test/', {
        method: 'POST',
        headers: { authorization: 'Bearer observer-secret-0123456789abcdefghij' },
        body: JSON.stringify({ object: 'whatsapp_business_account', entry: [] }),
      }),
    );
    expect(response.status).toBe(200); // no events: nothing failed
    const failing = await handler(
      new Request('https://hook.test/', {
        method: 'POST',
        headers: { authorization: 'Bearer observer-secret-0123456789abcdefghij' },
        body: '{',
      }),
    );
    expect(failing.status).toBe(400); // reported to onError (stage parse), which rejects
    await settled();
    expect(unhandled).toEqual([]);
    expect(warnings).toContain('onError failed');
  });

  it('StatusTracker: an async onChange that rejects reaches the awaiting caller, not the process', async () => {
    const tracker = new StatusTracker({
      onChange: async () => {
        throw new Error('db down');
      },
    });
    await expect(
      tracker.update({ id: 'wamid.OBS', status: 'delivered', timestamp: '1700000000', recipient_id: '1' }),
    ).rejects.toThrow('db down');
    await settled();
    expect(unhandled).toEqual([]);
  });

  it('a logger whose methods are async and reject: a refused webhook still gets its 401, a send its result, and nothing is unhandled', async () => {
    const shipped: string[] = [];
    // A logger that ships each line to a log service that is down: it type-checks as a `Logger`.
    const ship = async (message: string) => {
      shipped.push(message);
      throw new Error('log service unreachable');
    };
    const logger = { debug: ship, info: ship, warn: ship, error: ship };
    const handler = createWebhookHandler({
      secret: 'observer-secret-0123456789abcdefghij',
      logger,
      onEvent: () => {},
    });
    const refused = await handler(
      new Request('https://hook.test/', {
        method: 'POST',
        headers: { authorization: 'Bearer wrong-secret-0123456789abcdefghijkl' },
        body: '{}',
      }),
    );
    expect(refused.status).toBe(401);
    server.use(http.post(`${GW}/v1/wa/message`, () => HttpResponse.json(sendOk('wamid.LOG'))));
    const gw = new GatewayClient({ apiKey: API_KEY, baseUrl: GW, logger, logLevel: 'debug' });
    await expect(
      gw.messages.send({ to: '998901234567', type: 'text', text: { body: 'Hi' } }),
    ).resolves.toMatchObject({ messageId: 'wamid.LOG' });
    await settled();
    expect(shipped.length).toBeGreaterThan(1); // the 401's line and the send's debug lines were written
    expect(unhandled).toEqual([]);
  });
});
