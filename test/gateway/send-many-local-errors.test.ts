/**
 * A failure before any request is "not sent", whatever raised it: `sendMany` reports `notSent: true` for every
 * error met before the send's request went out (a template the catalogue cannot read, a store that throws, a
 * campaign store down, a bad call option), with a typed error; and a template message a catalogue cannot check
 * is a `MessageValidationError` in `send` too, never a bare `TypeError`.
 */
import { HttpResponse, http } from 'msw';
import { describe, expect, it } from 'vitest';
import {
  CampaignTracker,
  ConfigurationError,
  GatewayClient,
  type GatewayClientOptions,
  MemoryCampaignStore,
  MessageValidationError,
  NotSentError,
  type OutboundMessage,
  type SendManyResult,
  TemplateCatalog,
  type TemplateRecord,
  type TemplateStore,
  WaGatewayError,
  type WindowStore,
} from '../../src/index.js';
import { API_KEY, GW, sendOk, useMswServer } from '../helpers/msw.js';

const server = useMswServer();
const TO = '998901234567';

/** Counts the sends that reached the gateway (each answered with success). */
function gateway() {
  const seen = { requests: 0 };
  server.use(
    http.post(`${GW}/v1/wa/message`, () => {
      seen.requests++;
      return HttpResponse.json(sendOk());
    }),
  );
  return seen;
}

const client = (extra: Partial<GatewayClientOptions> = {}) =>
  new GatewayClient({ apiKey: API_KEY, baseUrl: GW, rateLimit: false, ...extra });

async function collect(it: AsyncIterable<SendManyResult>): Promise<SendManyResult[]> {
  const out: SendManyResult[] = [];
  for await (const r of it) out.push(r);
  return out;
}

/** A template message without `language`, as `validate: false` lets through. */
const noLanguage = { to: TO, type: 'template', template: { name: 'order_shipped' } } as const;

describe('a template message the catalogue cannot read, sent with validate: false', () => {
  it('send: MessageValidationError naming template.language.code, no request', async () => {
    const seen = gateway();
    const e = await client({ templates: new TemplateCatalog() })
      .messages.send(noLanguage, { validate: false })
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(MessageValidationError);
    expect((e as MessageValidationError).issues).toEqual([
      expect.objectContaining({
        path: ['template', 'language', 'code'],
        rule: 'template.language.code.required',
      }),
    ]);
    expect((e as Error).message).toMatch(/catalogue/);
    expect(seen.requests).toBe(0);
  });

  it.each([
    ['no template at all', { to: TO, type: 'template' }, ['template']],
    [
      'a template without a name',
      { to: TO, type: 'template', template: { language: { code: 'en' } } },
      ['template', 'name'],
    ],
    [
      'a language given as a string',
      { to: TO, type: 'template', template: { name: 'x', language: 'en' } },
      ['template', 'language', 'code'],
    ],
  ])('send: %s → MessageValidationError at %j', async (_, message, path) => {
    gateway();
    const e = await client({ templates: new TemplateCatalog() })
      .messages.send(message as unknown as OutboundMessage, { validate: false })
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(MessageValidationError);
    expect((e as MessageValidationError).issues[0]?.path).toEqual(path);
  });

  it('sendMany: reported notSent with the MessageValidationError; the other messages go out', async () => {
    const seen = gateway();
    const results = await collect(
      client({ templates: new TemplateCatalog() }).messages.sendMany(
        [noLanguage as unknown as OutboundMessage, { to: TO, type: 'text', text: { body: 'hi' } }],
        { validate: false },
      ),
    );
    expect(results[0]).toMatchObject({ ok: false, notSent: true });
    expect(results[0]?.ok === false && results[0].error).toBeInstanceOf(MessageValidationError);
    expect(results[1]).toMatchObject({ ok: true });
    expect(seen.requests).toBe(1);
  });
});

describe('sendMany: any error before the request is notSent: true, and typed', () => {
  const text: OutboundMessage = { to: TO, type: 'text', text: { body: 'hi' } };

  it('a template store that throws a plain Error: NotSentError with it as the cause', async () => {
    const seen = gateway();
    const broken = new Error('store down');
    const store: TemplateStore = {
      get: async (): Promise<TemplateRecord | undefined> => {
        throw broken;
      },
      update: async () => {
        throw broken;
      },
      list: async () => [],
    };
    const template: OutboundMessage = {
      to: TO,
      type: 'template',
      template: { name: 'order_shipped', language: { code: 'en_US' } },
    };
    const [r] = await collect(
      client({ templates: new TemplateCatalog({ store }) }).messages.sendMany([template]),
    );
    expect(r).toMatchObject({ ok: false, notSent: true });
    const error = r?.ok === false ? r.error : undefined;
    expect(error).toBeInstanceOf(NotSentError);
    expect(error?.cause).toBe(broken);
    expect(error?.message).toMatch(/before its request was made/);
    expect(seen.requests).toBe(0);
  });

  it('a window store that throws a plain Error', async () => {
    const seen = gateway();
    const serviceWindow: WindowStore = {
      lastInbound: async () => {
        throw new TypeError('window store broke');
      },
      recordInbound: async () => {},
    } as unknown as WindowStore;
    const [r] = await collect(client({ serviceWindow }).messages.sendMany([text]));
    expect(r).toMatchObject({ ok: false, notSent: true });
    expect(r?.ok === false && r.error).toBeInstanceOf(WaGatewayError);
    expect(seen.requests).toBe(0);
  });

  it('a campaign store that cannot be reached: NotSentError, notSent: true', async () => {
    const seen = gateway();
    const store = new MemoryCampaignStore();
    store.sending = async () => {
      throw new Error('campaign store unreachable');
    };
    const campaigns = new CampaignTracker({ store });
    const results = await collect(client({ campaigns }).messages.sendMany([text], { campaign: 'spring' }));
    expect(results[0]).toMatchObject({ ok: false, notSent: true });
    expect(results[0]?.ok === false && results[0].error).toBeInstanceOf(NotSentError);
    expect(seen.requests).toBe(0);
  });

  it('a call option the transport refuses (timeoutMs: -1): ConfigurationError, notSent: true', async () => {
    const seen = gateway();
    const [r] = await collect(client().messages.sendMany([text], { timeoutMs: -1 }));
    expect(r).toMatchObject({ ok: false, notSent: true });
    expect(r?.ok === false && r.error).toBeInstanceOf(ConfigurationError);
    expect(seen.requests).toBe(0);
  });

  it('a failure after the request went out keeps the was-it-sent rule (a reset: notSent: false)', async () => {
    server.use(http.post(`${GW}/v1/wa/message`, () => HttpResponse.error()));
    const [r] = await collect(client().messages.sendMany([text]));
    expect(r).toMatchObject({ ok: false, notSent: false });
  });
});
