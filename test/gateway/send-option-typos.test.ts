import { HttpResponse, http } from 'msw';
import { describe, expect, it } from 'vitest';
import { ConfigurationError, defineTemplate, GatewayClient } from '../../src/index.js';
import { API_KEY, GW, sendOk, useMswServer } from '../helpers/msw.js';
import { helloDefinition } from '../helpers/template-definitions.js';

const server = useMswServer();
const hello = defineTemplate(helloDefinition);
const text = { to: '998901234567', type: 'text', text: { body: 'Hi' } } as const;

/** A gateway that counts the sends it receives. */
function gateway() {
  const seen = { sends: 0 };
  server.use(
    http.post(`${GW}/v1/wa/message`, () => {
      seen.sends++;
      return HttpResponse.json(sendOk());
    }),
  );
  return { seen, gw: new GatewayClient({ apiKey: API_KEY, baseUrl: GW, rateLimit: false }) };
}

const refusal = (error: unknown) => [(error as Error).constructor, (error as Error).message];

describe("a send option's near-miss key, from a caller with no type checker", () => {
  // `isfake: true` ignored would send a real message and spend money.
  it.each([
    ['isfake', 'isFake'],
    ['is_fake', 'isFake'],
    ['timeout_ms', 'timeoutMs'],
    ['max_retries', 'maxRetries'],
    ['header', 'headers'],
    ['Validate', 'validate'],
    ['extrafields', 'extraFields'],
    ['timeout', 'timeoutMs'],
    ['retries', 'maxRetries'],
  ])('send(message, { %s }) is refused, naming %s, and nothing is sent', async (key, meant) => {
    const { seen, gw } = gateway();
    const error = await gw.messages.send(text, { [key]: true } as never).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(refusal(error)).toEqual([
      ConfigurationError,
      `messages.send: unknown option '${key}': did you mean '${meant}'?`,
    ]);
    expect(seen.sends).toBe(0);
  });

  it('sendTemplate and sendMany check their own options', async () => {
    const { seen, gw } = gateway();
    const template = await gw.messages
      .sendTemplate('998901234567', hello, undefined, { isfake: true } as never)
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(refusal(template)).toEqual([
      ConfigurationError,
      "messages.sendTemplate: unknown option 'isfake': did you mean 'isFake'?",
    ]);
    const many = gw.messages.sendMany([text], { concurency: 4 } as never);
    await expect(many.next()).rejects.toThrow(
      new ConfigurationError("sendMany: unknown option 'concurency': did you mean 'concurrency'?"),
    );
    expect(seen.sends).toBe(0);
  });

  it("a key close to no option is left alone (an object of the caller's spread in), and known keys pass", async () => {
    const { seen, gw } = gateway();
    // Words of the caller's own two edits from an option (`batch`/`fetch`, `final`/`signal`) are not typos of it.
    const options = { isFake: true, timeoutMs: 5000, requestContext: { user: 7 }, batch: 1, final: true };
    await expect(gw.messages.send(text, options as never)).resolves.toMatchObject({
      messageId: 'wamid.HBgM0001',
    });
    const results = [];
    for await (const r of gw.messages.sendMany([text], { concurrency: 2, traceLabel: 'x' } as never))
      results.push(r);
    expect(results).toMatchObject([{ ok: true }]);
    expect(seen.sends).toBe(2);
  });

  it('a long key is never taken for a near miss: left alone, as any unrelated key', async () => {
    const { gw } = gateway();
    const key = `isFake${'x'.repeat(100)}`;
    await expect(gw.messages.send(text, { [key]: true } as never)).resolves.toBeDefined();
  });
});

describe("new GatewayClient: an option's near-miss key", () => {
  it.each([
    ['baseURL', 'baseUrl'],
    ['apikey', 'apiKey'],
    ['rateLimits', 'rateLimit'],
    ['retry_in_flight_sends', 'retryInFlightSends'],
  ])('%s is refused, naming %s (before the missing option it stood for is)', (key, meant) => {
    const options = { apiKey: API_KEY, baseUrl: GW, [key]: key === 'rateLimits' ? false : GW };
    expect(() => new GatewayClient(options as never)).toThrow(
      new ConfigurationError(`new GatewayClient: unknown option '${key}': did you mean '${meant}'?`),
    );
  });

  it('a key close to no option is left alone', () => {
    const config = { apiKey: API_KEY, baseUrl: GW, region: 'eu', databaseUrl: 'postgres://x' };
    expect(new GatewayClient(config as never).baseUrl).toBe(GW);
  });
});
