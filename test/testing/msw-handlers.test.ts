import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  AuthenticationError,
  ConflictError,
  GatewayClient,
  NotFoundError,
  PaymentRequiredError,
  PublicApiClient,
  RateLimitError,
  UnprocessableEntityError,
  UpstreamError,
  validateTemplate,
} from '../../src/index.js';
import { createGatewayHandlers, createPublicApiHandlers } from '../../src/testing/index.js';
import { captureLogger } from '../helpers/capture-logger.js';

const GW = 'https://gw.sim';
const gateway = createGatewayHandlers({
  baseUrl: GW,
  apiKeys: ['sk_test_a'],
  templates: { order_update: ['en_US'] },
  media: { m1: { contentType: 'image/png', body: 'PNG' } },
});
const api = createPublicApiHandlers({
  baseUrl: 'https://api.sim/api/v1',
  secretKeys: ['sk_org_a'],
  appIds: ['app_1'],
});
const server = setupServer(...gateway.handlers, ...api.handlers);
beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => gateway.simulator.reset());
afterAll(() => server.close());

const text = { to: '998901234567', type: 'text', text: { body: 'Hi' } } as const;
const gw = (o: object = {}) => new GatewayClient({ apiKey: 'sk_test_a', baseUrl: GW, ...o });
const post = (headers: Record<string, string>) =>
  fetch(`${GW}/v1/wa/message`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ messaging_product: 'whatsapp', ...text }),
  });

describe('createGatewayHandlers behaves like the gateway', () => {
  it('answers AUTH_002, AUTH_003 and AUTH_001 in the documented order', async () => {
    const codes = async (headers: Record<string, string>) =>
      ((await (await post(headers)).json()) as { errors: { code: string } }).errors.code;
    expect(await codes({})).toBe('AUTH_002');
    expect(await codes({ authorization: 'Token sk_test_a' })).toBe('AUTH_003');
    expect(await codes({ authorization: 'Bearer nope' })).toBe('AUTH_001');
    await expect(gw({ apiKey: 'sk_wrong_key' }).messages.send(text)).rejects.toBeInstanceOf(
      AuthenticationError,
    );
  });

  it('accepts a send with a generated wamid and records it', async () => {
    const r = await gw().messages.send(text);
    expect(r.messageId).toMatch(/^wamid\.SBX/);
    expect(gateway.simulator.sent).toMatchObject([
      { wamid: r.messageId, to: '998901234567', type: 'text', isFake: false },
    ]);
  });

  it('is_fake returns a fake wamid and produces no status events', async () => {
    const r = await gw().messages.send(text, { isFake: true });
    expect(r.messageId).toMatch(/^wamid\.FAKE/);
    expect(gateway.simulator.statusEventsFor(gateway.simulator.sent[0]!)).toEqual([]);
  });

  it('a real send produces sent, delivered (billable) and read, with increasing timestamps', async () => {
    await gw().messages.send(text);
    const events = gateway.simulator.statusEventsFor(gateway.simulator.sent[0]!);
    const statuses = events.map(
      (e) =>
        (
          e.entry[0]!.changes[0]!.value as {
            statuses: { status: string; timestamp: string; pricing?: { billable: boolean } }[];
          }
        ).statuses[0]!,
    );
    expect(statuses.map((s) => s.status)).toEqual(['sent', 'delivered', 'read']);
    expect(statuses[1]!.pricing?.billable).toBe(true);
    expect(Number(statuses[2]!.timestamp)).toBeGreaterThan(Number(statuses[0]!.timestamp));
  });

  it('BILL_001 when the balance is spent; the fee is deducted per billable delivery', async () => {
    gateway.simulator.balance = 1;
    gateway.simulator.chargeDelivery();
    await expect(gw().messages.send(text)).rejects.toBeInstanceOf(PaymentRequiredError);
    expect(gateway.simulator.sent).toHaveLength(0);
  });

  it('GW_001 for a template name or language that is not approved', async () => {
    const t = {
      to: '998901234567',
      type: 'template',
      template: { name: 'order_update', language: { code: 'de' } },
    } as const;
    await expect(gw().messages.send(t)).rejects.toBeInstanceOf(UpstreamError);
    await expect(
      gw().messages.send({ ...t, template: { ...t.template, language: { code: 'en_US' } } }),
    ).resolves.toBeDefined();
  });

  it('RATE_001 past the per-second limit, which the client waits out', async () => {
    const limited = createGatewayHandlers({
      baseUrl: 'https://gw.slow',
      apiKeys: ['k_rate_123'],
      ratePerSecond: 2,
    });
    server.use(...limited.handlers);
    const log = captureLogger();
    const client = new GatewayClient({
      apiKey: 'k_rate_123',
      baseUrl: 'https://gw.slow',
      rateLimit: false,
      logger: log.logger,
    });
    await Promise.all([client.messages.send(text), client.messages.send(text), client.messages.send(text)]);
    expect(limited.simulator.answered['RATE_001']).toBe(1);
    expect(limited.simulator.sent).toHaveLength(3);
    expect(log.lines).toEqual([
      {
        level: 'warn',
        message: 'wa-gateway-sdk: retrying request',
        meta: expect.objectContaining({ code: 'RATE_001' }),
      },
    ]);
    const strict = new GatewayClient({
      apiKey: 'k_rate_123',
      baseUrl: 'https://gw.slow',
      rateLimit: false,
      maxRetries: 0,
    });
    await expect(Promise.all([1, 2, 3].map(() => strict.messages.send(text)))).rejects.toBeInstanceOf(
      RateLimitError,
    );
  });

  it('serves registered media and 404s the rest', async () => {
    const file = await gw().media.download('m1', { phoneNumberId: 'p' });
    expect(file.contentType).toBe('image/png');
    expect(new TextDecoder().decode(await file.arrayBuffer())).toBe('PNG');
    await expect(gw().media.download('nope', { phoneNumberId: 'p' })).rejects.toBeInstanceOf(NotFoundError);
  });

  it('an id with a malformed % escape is a 400 in the envelope, as the sandbox answers: no URIError, no stack', async () => {
    const files = createGatewayHandlers({
      baseUrl: 'https://gw.escape/base',
      media: { 'a b': { contentType: 'text/plain', body: 'hello' } },
    });
    server.use(...files.handlers);
    const get = (path: string) =>
      fetch(`https://gw.escape/base/v1/wa/media/${path}?phone_number_id=1`, {
        headers: { authorization: 'Bearer sk_test_sandbox' },
      });
    // A 400 in the service's envelope, and no stack in it.
    const refused = async (answer: Response, errors: Record<string, string>) => {
      const body = await answer.text();
      expect([answer.status, JSON.parse(body)]).toEqual([400, { isSuccess: false, errors }]);
      expect(body).not.toMatch(/URIError|stack/);
    };
    await refused(await get('%E0'), {
      code: 'BAD_REQUEST',
      group: 'BAD_REQUEST',
      description: 'The media id in the path has a malformed percent-escape.',
    });
    // A well-formed escape still names its media, with or without a trailing slash; other ids are still 404.
    for (const path of ['a%20b', 'a%20b/']) {
      const served = await get(path);
      expect([served.status, await served.text()]).toEqual([200, 'hello']);
    }
    expect((await get('m1')).status).toBe(404);

    const template = await fetch('https://api.sim/api/v1/wa/app%ZZ/templates', {
      method: 'POST',
      headers: { authorization: 'Bearer sk_org_a', 'content-type': 'application/json' },
      body: '{}',
    });
    await refused(template, {
      code: 'REQ_001',
      group: 'VALIDATION',
      description: 'Malformed request: the app id in the path has a malformed percent-escape.',
    });
    expect(api.created).toHaveLength(0);
  });
});

describe('GatewaySimulator.reset', () => {
  it('forgets sends, answers and spent balance', async () => {
    const sim = createGatewayHandlers({ baseUrl: 'https://gw.reset', apiKeys: ['k_reset_1'], balance: 1 });
    server.use(...sim.handlers);
    await new GatewayClient({ apiKey: 'k_reset_1', baseUrl: 'https://gw.reset' }).messages.send(text);
    sim.simulator.chargeDelivery();
    expect([sim.simulator.sent.length, sim.simulator.answered['OK'], sim.simulator.balance]).toEqual([
      1, 1, 0,
    ]);
    sim.simulator.reset();
    expect([sim.simulator.sent.length, sim.simulator.answered['OK'], sim.simulator.balance]).toEqual([
      0,
      undefined,
      1,
    ]);
  });
});

describe('createPublicApiHandlers behaves like template create', () => {
  const client = new PublicApiClient({ secretKey: 'sk_org_a', baseUrl: 'https://api.sim/api/v1' });
  const template = {
    name: 'welcome',
    language: 'en_US',
    category: 'UTILITY',
    body: { text: 'Welcome {{1}}!', examples: ['Ali'] },
  } as const;

  it('creates, then answers 409 UPSTREAM_017 for the same name and language', async () => {
    const created = await client.templates.create('app_1', template);
    expect(created).toMatchObject({ name: 'welcome', status: 'PENDING' });
    await expect(client.templates.create('app_1', template)).rejects.toBeInstanceOf(ConflictError);
  });

  it('answers 422 with the same fields the local validator reports', async () => {
    const bad = { ...template, name: 'bad name', body: { text: '{{1}} hi', examples: [] } };
    const e = await client.templates.create('app_1', bad, { validate: false }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(UnprocessableEntityError);
    const fields = (e as UnprocessableEntityError).issues.map((i) => i.field).sort();
    expect(fields).toEqual([...new Set(validateTemplate(bad).issues.map((i) => i.field))].sort());
  });

  it('401 for a wrong key, 404 APPLICATION_004 for a foreign app', async () => {
    const wrong = new PublicApiClient({ secretKey: 'sk_org_wrong', baseUrl: 'https://api.sim/api/v1' });
    await expect(wrong.templates.create('app_1', template)).rejects.toMatchObject({
      code: 'ORGANIZATION_SECRET_011',
    });
    await expect(client.templates.create('app_9', template)).rejects.toMatchObject({
      code: 'APPLICATION_004',
      status: 404,
    });
  });
});

describe('createPublicApiHandlers never invents a code', () => {
  const base = 'https://api.codes.test/api/v1';
  const { handlers } = createPublicApiHandlers({ baseUrl: base, secretKeys: ['sk_org_codes'] });
  beforeEach(() => server.use(...handlers));
  const client = new PublicApiClient({ secretKey: 'sk_org_codes', baseUrl: base });
  const valid = {
    name: 'order_update',
    language: 'en_US',
    category: 'UTILITY',
    body: { text: 'Your order {{1}} has shipped.', examples: ['#1234'] },
  };

  it('a rule the spec names no code for: no code in the answer or its field, never VAL_001', async () => {
    const e = await client.templates
      .create('app_1', { ...valid, language: 'xx_XX' } as never, { validate: false })
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(UnprocessableEntityError);
    const err = e as UnprocessableEntityError;
    expect(err.code).toBeNull();
    expect(err.fields?.['language']).toBeDefined();
    expect(err.fields?.['language']?.code).toBeUndefined();
    expect(JSON.stringify(err.body)).not.toContain('VAL_');
  });

  it('a rule with a spec code keeps it, at the top level and on its field', async () => {
    const e = await client.templates
      .create('app_1', { ...valid, name: 'Bad Name', language: 'xx_XX' } as never, { validate: false })
      .catch((x: unknown) => x);
    const err = e as UnprocessableEntityError;
    expect(err.code).toBe('WA_TPL_034');
    expect(err.fields?.['name']?.code).toBe('WA_TPL_034');
    expect(err.fields?.['language']?.code).toBeUndefined();
  });
});
