/**
 * Careless input a JS caller can give (null options, a null-prototype object, a string where a number goes, a 10 MB
 * id) meets a typed error with a short message, or the answer "none": never a plain TypeError from the SDK's own
 * code, and never the whole value echoed into a message (a key pasted into the wrong option would reach the logs).
 */
import { HttpResponse, http } from 'msw';
import { describe, expect, it } from 'vitest';
import { ApiError, ConfigurationError } from '../../src/core/errors.js';
import { GatewayClient } from '../../src/index.js';
import {
  createWebhookHandler,
  customerOf,
  MemoryIdempotencyStore,
  StatusTracker,
} from '../../src/webhooks/index.js';
import { API_KEY, GW, useMswServer } from '../helpers/msw.js';

const server = useMswServer();
const text = { to: '998901234567', type: 'text', text: { body: 'Hi' } } as const;
const gateway = () => new GatewayClient({ apiKey: API_KEY, baseUrl: GW, rateLimit: false });
const nullProto = Object.create(null) as unknown;
const throwingToString = {
  toString: () => {
    throw new Error('no');
  },
};

describe('careless input', () => {
  it('null options are no options, as undefined is', () => {
    expect(() => new StatusTracker(null as never)).not.toThrow();
    expect(new MemoryIdempotencyStore(null as never).ttlMs).toBeGreaterThan(0);
  });

  it('customerOf(undefined) has no customer', () => {
    expect(customerOf(undefined as never)).toBeUndefined();
  });

  it.each([
    ['timeoutMs', nullProto, 'got an object'],
    ['timeoutMs', throwingToString, 'got an object'],
    ['timeoutMs', 'x'.repeat(100_000), 'got a string'],
    ['maxRetries', nullProto, 'got an object'],
    ['maxRetries', '2', 'got a string'],
  ])(
    'a per-call %s of a bad kind is a ConfigurationError saying its type, not its content',
    async (name, value, said) => {
      const error = await gateway()
        .messages.send(text, { [name]: value } as never)
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ConfigurationError);
      expect((error as Error).message).toContain(said);
      expect((error as Error).message.length).toBeLessThan(200);
    },
  );

  it('a logLevel of a bad kind is a ConfigurationError, a string shown short', () => {
    const onEvent = () => {};
    const secret = 'wh_test_secret_0123456789abcdefghijkl';
    expect(() => createWebhookHandler({ secret, onEvent, logLevel: nullProto as never })).toThrow(
      ConfigurationError,
    );
    expect(() => createWebhookHandler({ secret, onEvent, logLevel: 'v'.repeat(10_000) as never })).toThrow(
      /got 'v{20}'\.$/,
    );
  });

  it("an answer to a request with a huge id shows the request's path shortened", async () => {
    server.use(http.get(`${GW}/v1/wa/media/:id`, () => new HttpResponse(null, { status: 431 })));
    const id = 'x'.repeat(1_000_000);
    const error = await gateway()
      .media.download(id, { phoneNumberId: '1' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as Error).message.length).toBeLessThan(1_000);
    expect((error as ApiError).request?.path.length).toBeGreaterThan(1_000_000);
  });
});
