/**
 * The testing kit against the spec, where an audit found it apart from the real gateway (the testing-kit audit):
 * msw handlers. A test that passes against the kit should pass against the gateway, and a gateway failure should be reproducible.
 */
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { GatewayClient, PaymentRequiredError } from '../../src/index.js';
import { createGatewayHandlers, createPublicApiHandlers } from '../../src/testing/index.js';

const GW = 'https://gw.fidelity';
const gateway = createGatewayHandlers({
  baseUrl: GW,
  apiKeys: ['sk_test_f'],
  templates: { order_update: ['en_US'] },
});
const API = 'https://api.fidelity/api/v1';
const api = createPublicApiHandlers({ baseUrl: API, secretKeys: ['sk_org_f'] });
const GW2 = 'https://gw2.fidelity';
const numbered = createGatewayHandlers({
  baseUrl: GW2,
  phoneNumberId: '111111111111111',
  media: { m1: { contentType: 'image/png', body: 'PNG' } },
});
const server = setupServer(...gateway.handlers, ...api.handlers, ...numbered.handlers);
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => gateway.simulator.reset());
afterAll(() => server.close());

const gw = new GatewayClient({ apiKey: 'sk_test_f', baseUrl: GW });
const to = '998901234567';
const text = { to, type: 'text', text: { body: 'Smoke test' } } as const;

describe('is_fake skips the upstream and only the upstream', () => {
  it('a template name the upstream would refuse gets a fake wamid (no GW_001)', async () => {
    const typo = {
      to,
      type: 'template',
      template: { name: 'order_updte', language: { code: 'en_US' } },
    } as const;
    await expect(gw.messages.send(typo)).rejects.toMatchObject({ code: 'GW_001' });
    const { messageId } = await gw.messages.send(typo, { isFake: true });
    expect(messageId).toMatch(/^wamid\.FAKE/);
  });

  it('a recipient outside the 24-hour window gets a fake wamid (no GW_001)', async () => {
    gateway.simulator.closedWindows.add(to);
    await expect(gw.messages.send(text)).rejects.toMatchObject({ code: 'GW_001' });
    const { messageId } = await gw.messages.send(text, { isFake: true });
    expect(messageId).toMatch(/^wamid\.FAKE/);
    expect(gateway.simulator.sent).toMatchObject([{ to, isFake: true }]);
  });

  it('billing still runs: BILL_001 at a spent balance', async () => {
    gateway.simulator.balance = 0;
    await expect(gw.messages.send(text, { isFake: true })).rejects.toBeInstanceOf(PaymentRequiredError);
  });
});

/** A hand-written client's send: what code that bypasses the SDK posts. */
const post = (
  body: string,
  { query = '', headers = {} }: { query?: string; headers?: Record<string, string> } = {},
) =>
  fetch(`${GW}/v1/wa/message${query}`, {
    method: 'POST',
    headers: { authorization: 'Bearer sk_test_f', 'content-type': 'application/json', ...headers },
    body,
  });
const errorOf = async (response: Response) => ({
  status: response.status,
  ...((await response.json()) as { errors?: object }).errors,
});

describe('mmlite', () => {
  it('a non-template body on the marketing-lite route gets GW_001, as the SDK says the gateway answers', async () => {
    const answer = await post(JSON.stringify({ messaging_product: 'whatsapp', ...text }), {
      query: '?mmlite=true',
    });
    expect(await errorOf(answer)).toMatchObject({ status: 502, code: 'GW_001', group: 'UPSTREAM_ERROR' });
    expect(gateway.simulator.sent).toHaveLength(0);
    const template = {
      to,
      type: 'template',
      template: { name: 'order_update', language: { code: 'en_US' } },
    };
    const ok = await post(JSON.stringify({ messaging_product: 'whatsapp', ...template }), {
      query: '?mmlite=true',
    });
    expect(ok.status).toBe(200);
    expect(gateway.simulator.sent).toMatchObject([{ type: 'template', mmlite: true }]);
  });
});

describe('the public API handlers', () => {
  const create = (authorization?: string) =>
    fetch(`${API}/wa/app_1/templates`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(authorization ? { authorization } : {}) },
      body: JSON.stringify({
        name: 'promo',
        language: 'en_US',
        category: 'UTILITY',
        body: { text: 'Hello' },
      }),
    });

  it('need the Bearer scheme before the secret key: a bare key, or another scheme, is 401 ORGANIZATION_SECRET_011', async () => {
    for (const header of ['sk_org_f', 'bearer sk_org_f', 'Basic sk_org_f', 'Bearer ']) {
      expect(await errorOf(await create(header))).toMatchObject({
        status: 401,
        code: 'ORGANIZATION_SECRET_011',
      });
    }
    expect(await errorOf(await create())).toMatchObject({ status: 401, code: 'ORGANIZATION_SECRET_010' });
    expect(api.created).toHaveLength(0);
    expect((await create('Bearer sk_org_f')).status).toBe(200);
    expect(api.created).toHaveLength(1);
  });
});

describe('media download', () => {
  const gw2 = new GatewayClient({ apiKey: 'sk_test_sandbox', baseUrl: GW2 });

  it("refuses another phone_number_id than the business number's, as the missing one is refused", async () => {
    for (const phoneNumberId of ['15550000000', 'someone-elses-number-id']) {
      await expect(gw2.media.download('m1', { phoneNumberId })).rejects.toMatchObject({
        status: 400,
        code: 'BAD_REQUEST',
      });
    }
    const file = await gw2.media.download('m1', { phoneNumberId: '111111111111111' });
    expect(file.contentType).toBe('image/png');
  });

  it('without phoneNumberId the handlers know no number, and take any', async () => {
    const gw3 = new GatewayClient({ apiKey: 'sk_test_f', baseUrl: GW });
    await expect(gw3.media.download('nope', { phoneNumberId: 'any' })).rejects.toMatchObject({ status: 404 });
  });
});

describe("a request the gateway cannot forward: 400, not the upstream's 502", () => {
  const whatsapp = (fields: object) => JSON.stringify({ messaging_product: 'whatsapp', ...fields });

  it.each([
    ['a body that is not JSON', '{"to": "998901234567",', {}],
    ['a JSON array', '[]', {}],
    ['no `to`', whatsapp({ type: 'text', text: { body: 'Hi' } }), {}],
    ['no `type`', whatsapp({ to, text: { body: 'Hi' } }), {}],
    ['Content-Type text/plain', whatsapp(text), { 'content-type': 'text/plain' }],
    ['is_fake with no `to`', whatsapp({ type: 'text', text: { body: 'Hi' } }), {}, '?is_fake=true'],
  ])('%s: 400 BAD_REQUEST, nothing sent', async (_, body, headers, query = '') => {
    const answer = await post(body, { headers, query });
    expect(await errorOf(answer)).toMatchObject({ status: 400, code: 'BAD_REQUEST', group: 'BAD_REQUEST' });
    expect(gateway.simulator.sent).toHaveLength(0);
  });

  it('no Content-Type at all: 400', async () => {
    const answer = await fetch(`${GW}/v1/wa/message`, {
      method: 'POST',
      headers: { authorization: 'Bearer sk_test_f' },
      body: new Blob([JSON.stringify({ messaging_product: 'whatsapp', ...text })]),
    });
    expect(await errorOf(answer)).toMatchObject({ status: 400, code: 'BAD_REQUEST' });
  });

  it("application/json with a charset is JSON; a field rule broken is still the upstream's GW_001, said once", async () => {
    const ok = await post(whatsapp(text), { headers: { 'content-type': 'application/json; charset=utf-8' } });
    expect(ok.status).toBe(200);
    const long = await post(whatsapp({ to, type: 'text', text: { body: 'x'.repeat(4097) } }));
    const error = await errorOf(long);
    expect(error).toMatchObject({ status: 502, code: 'GW_001', group: 'UPSTREAM_ERROR' });
    expect((error as { description?: string }).description).toMatch(
      /^Upstream rejected the message: text\.body has 4097/,
    );
    const unknownType = await errorOf(await post(whatsapp({ to, type: 'poll' })));
    expect(unknownType).toMatchObject({ status: 502, code: 'GW_001' });
    expect((unknownType as { description?: string }).description).not.toMatch(/type type/);
  });
});

describe("serviceWindow: 'enforced'", () => {
  const GW3 = 'https://gw3.fidelity';
  let clock = Date.parse('2024-05-01T09:00:00Z');
  const strict = createGatewayHandlers({ baseUrl: GW3, serviceWindow: 'enforced', now: () => clock });
  const gw3 = new GatewayClient({ apiKey: 'sk_test_sandbox', baseUrl: GW3 });
  beforeAll(() => server.use(...strict.handlers));
  afterEach(() => strict.simulator.reset());
  const HOUR = 3600_000;

  it('a text to a customer who never wrote gets GW_001 "outside the 24-hour window"; a template goes', async () => {
    await expect(gw3.messages.send(text)).rejects.toMatchObject({
      status: 502,
      code: 'GW_001',
      message: expect.stringContaining('outside the 24-hour service window'),
    });
    const template = {
      to,
      type: 'template',
      template: { name: 'welcome', language: { code: 'en_US' } },
    } as const;
    expect((await gw3.messages.send(template)).messageId).toMatch(/^wamid\./);
    // is_fake skips the upstream, and so the window.
    expect((await gw3.messages.send(text, { isFake: true })).messageId).toMatch(/^wamid\.FAKE/);
  });

  it('the window opens when the customer writes and closes 24 hours later, by the clock the test sets', async () => {
    strict.simulator.openWindow(to);
    expect((await gw3.messages.send(text)).messageId).toMatch(/^wamid\./);
    clock += 24 * HOUR - 1;
    expect((await gw3.messages.send(text)).messageId).toMatch(/^wamid\./);
    clock += 1;
    await expect(gw3.messages.send(text)).rejects.toMatchObject({ code: 'GW_001' });
    // Seeded at a time of the test's choosing: the customer wrote an hour ago.
    strict.simulator.openWindow(to, clock - HOUR);
    expect(strict.simulator.windowOpen(to)).toBe(true);
    expect((await gw3.messages.send(text)).messageId).toMatch(/^wamid\./);
  });

  it('the default stays open for every recipient; a wrong option is a ConfigurationError', () => {
    expect(gateway.simulator.windowOpen('998900000000')).toBe(true);
    expect(() => createGatewayHandlers({ baseUrl: GW3, serviceWindow: 'strict' as 'enforced' })).toThrowError(
      /serviceWindow/,
    );
  });
});
