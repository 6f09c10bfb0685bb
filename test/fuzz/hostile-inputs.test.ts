/**
 * Property runs over hostile object inputs (getters, proxies, shared and cyclic references, BigInt, symbols,
 * non-plain prototypes; see hostile-values.ts) for every public function that takes `unknown`: nothing but the
 * documented error classes escapes, and no single input takes 100 ms. FUZZ_RUNS per property (default 1,000;
 * `npm run test:fuzz` runs 100,000).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  assertValidTemplate,
  GatewayClient,
  MessageValidationError,
  TemplateValidationError,
  validateMessage,
  validateMessageItems,
  validateTemplate,
  WaGatewayError,
  WebhookParseError,
} from '../../src/index.js';
import {
  accountUpdateEnvelope,
  everyMessageType,
  messageEnvelope,
  statusEnvelope,
  statusObject,
  templateStatusEnvelope,
  textMessage,
} from '../../src/testing/webhook-fixtures.js';
import { parseWebhook } from '../../src/webhooks/index.js';
import { hostileFrom, slowestMs } from './hostile-values.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 1000);
// Generous: on a shared 2-core machine under load, 1,000 inputs took 20 s of wall time (3 s idle).
const TIMEOUT = Math.max(120_000, RUNS * 20);
/** CPU ms per input, re-measured when over (see slowestMs): far above a normal input, far below a hang. */
const BOUND_MS = 100;

const envelopes = [
  messageEnvelope(textMessage()),
  ...Object.values(everyMessageType()).map((m) => messageEnvelope(m as never)),
  statusEnvelope(['sent', 'delivered', 'read', 'failed'].map((s) => statusObject(s))),
  templateStatusEnvelope(),
  accountUpdateEnvelope(),
];
const messages = [
  { to: '998901234567', type: 'text', text: { body: 'hi', preview_url: true } },
  { to: '998901234567', type: 'image', image: { link: 'https://example.com/a.jpg', caption: 'c' } },
  {
    to: '998901234567',
    type: 'interactive',
    interactive: {
      type: 'button',
      body: { text: 'Pick' },
      action: { buttons: [{ type: 'reply', reply: { id: 'a', title: 'A' } }] },
    },
  },
  { to: '998901234567', type: 'template', template: { name: 'order', language: { code: 'en' } } },
];
const templates = [
  {
    name: 'order_update',
    language: 'en_US',
    category: 'UTILITY',
    body: { text: 'Your order {{1}} has shipped.', examples: ['#1234'] },
    buttons: [
      { type: 'URL', text: 'Track', url: 'https://example.com/{{1}}', example: 'https://example.com/1' },
    ],
  },
  {
    name: 'promo',
    language: 'en',
    category: 'MARKETING',
    header: { format: 'TEXT', text: 'Sale' },
    body: { text: 'Hello' },
    footer: { text: 'Bye' },
  },
];

/** Runs `fn` on every generated input: only `allowed` errors may escape, and the slowest input stays under the bound. */
function property(
  seeds: readonly unknown[],
  allowed: (error: unknown) => boolean,
  fn: (input: unknown) => unknown,
) {
  const timing = slowestMs(BOUND_MS);
  fc.assert(
    fc.property(hostileFrom(seeds), (input) => {
      timing.measure(() => {
        try {
          fn(input);
        } catch (error) {
          if (!allowed(error))
            throw new Error(`untyped throw: ${Object.prototype.toString.call(error)} ${String(error)}`);
        }
      });
    }),
    { numRuns: RUNS },
  );
  expect(timing.slowest).toBeLessThan(BOUND_MS);
}

const never = () => false;

describe('hostile object inputs', () => {
  it(
    'parseWebhook: events or WebhookParseError',
    () =>
      property(
        envelopes,
        (e) => e instanceof WebhookParseError,
        (x) => parseWebhook(x as object),
      ),
    TIMEOUT,
  );
  it('validateTemplate never throws', () => property(templates, never, validateTemplate), TIMEOUT);
  it(
    'assertValidTemplate throws only TemplateValidationError',
    () =>
      property(
        templates,
        (e) => e instanceof TemplateValidationError,
        (x) => assertValidTemplate(x),
      ),
    TIMEOUT,
  );
  it('validateMessage never throws', () => property(messages, never, validateMessage), TIMEOUT);
  it(
    'validateMessageItems never throws',
    () => property(messages, never, (x) => validateMessageItems([x, x])),
    TIMEOUT,
  );

  it(
    'messages.send rejects only with SDK errors, and only MessageValidationError before a request',
    async () => {
      let requests = 0;
      const gw = new GatewayClient({
        apiKey: 'gw_key_0123456789abcdef',
        baseUrl: 'https://gw.test',
        maxRetries: 0,
        fetch: async () => {
          requests++;
          return new Response(
            JSON.stringify({ isSuccess: true, data: { messages: [{ id: 'wamid.1' }], contacts: [] } }),
          );
        },
      });
      await fc.assert(
        fc.asyncProperty(hostileFrom(messages), async (input) => {
          const before = requests;
          try {
            await gw.messages.send(input as never);
          } catch (error) {
            if (!(error instanceof WaGatewayError)) throw new Error(`untyped rejection: ${String(error)}`);
            if (!(error instanceof MessageValidationError) || requests !== before) {
              throw new Error(`unexpected ${error.name} after ${requests - before} request(s)`);
            }
          }
        }),
        { numRuns: Math.min(RUNS, 5000) },
      );
    },
    TIMEOUT,
  );
});
