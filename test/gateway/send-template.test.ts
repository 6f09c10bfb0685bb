import { describe, expect, it } from 'vitest';
import {
  ConfigurationError,
  defineTemplate,
  MemoryTemplateStore,
  MessageValidationError,
  NotSentError,
  TemplateCatalog,
  TemplateValidationError,
} from '../../src/index.js';
import { templateStatusEnvelope } from '../../src/testing/webhook-fixtures.js';
import { parseWebhook, type TemplateStatusValue } from '../../src/webhooks/index.js';
import { useMswServer } from '../helpers/msw.js';
import { templateSendRefusal } from '../helpers/refusal.js';
import { helloDefinition, orderShippedDefinition, promoDefinition } from '../helpers/template-definitions.js';
import { recordSends, templateClient } from '../helpers/template-sends.js';

const server = useMswServer();
const templateStatusEvent = (value: TemplateStatusValue) => parseWebhook(templateStatusEnvelope(value))[0]!;

const orderShipped = defineTemplate(orderShippedDefinition);
const promo = defineTemplate(promoDefinition);
const hello = defineTemplate(helloDefinition);

const gateway = () => recordSends(server);
const client = templateClient;

describe('defineTemplate', () => {
  it('returns the definition as given, and refuses an invalid one with every issue', () => {
    expect(orderShipped.name).toBe('order_shipped');
    expect(() =>
      defineTemplate({
        name: 'bad',
        language: 'en_US',
        category: 'UTILITY',
        body: { text: 'Hi {{1}} and {{2}}' },
      }),
    ).toThrow(TemplateValidationError);
  });
});

describe('sendTemplate builds the components', () => {
  it('header, body, URL and quick-reply buttons with their index', async () => {
    const bodies = gateway();
    await client().messages.sendTemplate('998901234567', orderShipped, {
      header: '#1042',
      body: ['Ali', '#1042'],
      buttons: { 0: '1042', 1: 'stop-updates' },
    });
    await client().messages.sendTemplate('998901234567', promo, {
      header: { link: 'https://x.test/a.png' },
      body: ['shoes'],
    });
    await client().messages.sendTemplate('998901234567', hello, {});
    const text = (t: string) => ({ type: 'text', text: t });
    expect(bodies.map((b) => b['template'])).toEqual([
      {
        name: 'order_shipped',
        language: { code: 'en_US' },
        components: [
          { type: 'header', parameters: [text('#1042')] },
          { type: 'body', parameters: [text('Ali'), text('#1042')] },
          { type: 'button', sub_type: 'url', index: '0', parameters: [text('1042')] },
          { type: 'button', sub_type: 'quick_reply', index: '1', parameters: [text('stop-updates')] },
        ],
      },
      {
        name: 'promo',
        language: { code: 'en_US' },
        components: [
          { type: 'header', parameters: [{ type: 'image', image: { link: 'https://x.test/a.png' } }] },
          { type: 'body', parameters: [text('shoes')] },
        ],
      },
      { name: 'hello', language: { code: 'en_US' } },
    ]);
  });
});

describe('checked sends, before any request', () => {
  it('without a catalogue: the definition decides counts and types, and the language', async () => {
    const bodies = gateway();
    const gw = client();
    const untyped = gw.messages.sendTemplate.bind(gw.messages) as unknown as (
      ...a: unknown[]
    ) => Promise<unknown>;
    const short = await templateSendRefusal(() =>
      untyped('998901234567', orderShipped, { header: '#1', body: ['Ali'], buttons: { 0: '1' } }),
    );
    expect(short).toMatchObject({
      rule: 'template.parameters.count',
      template: { name: 'order_shipped', language: 'en_US' },
      component: 'body',
      expected: 2,
      given: 1,
    });
    expect(short.message).toContain('order_shipped (en_US)');
    expect(short.message).toContain('body expects 2 parameter(s), got 1');
    const typed = await templateSendRefusal(() =>
      untyped('998901234567', promo, { header: { link: 'https://x' }, body: [3] }),
    );
    expect(typed).toMatchObject({ rule: 'template.parameters.type', given: 'number' });
    const extra = await templateSendRefusal(() => untyped('998901234567', hello, { header: 'x' }));
    expect(extra).toMatchObject({ rule: 'template.parameters.unexpected', component: 'header' });
    const language = await templateSendRefusal(() => untyped('998901234567', hello, { language: 'uz' }));
    expect(language).toMatchObject({ rule: 'template.language', expected: ['en_US'], given: 'uz' });
    expect(bodies).toEqual([]);
  });

  it('with a catalogue: unknown, language, status (with a rejection reason), then parameters', async () => {
    const bodies = gateway();
    const catalog = new TemplateCatalog({ definitions: [orderShipped, hello] });
    const gw = client(catalog);
    const good = { header: '#1', body: ['Ali', '#1'], buttons: { 0: '1' } } as const;

    expect(await templateSendRefusal(() => gw.messages.sendTemplate('998901234567', 'nope'))).toMatchObject({
      rule: 'template.unknown',
      given: 'nope',
    });
    expect(
      await templateSendRefusal(() =>
        gw.messages.sendTemplate('998901234567', orderShipped, { ...good, language: 'uz' }),
      ),
    ).toMatchObject({ rule: 'template.language', expected: ['en_US'], given: 'uz' });
    // A definition with no status learnt yet is not known to be approved.
    expect(
      await templateSendRefusal(() => gw.messages.sendTemplate('998901234567', orderShipped, good)),
    ).toMatchObject({
      rule: 'template.status',
      status: 'UNKNOWN',
    });
    await catalog.apply(
      templateStatusEvent({
        event: 'REJECTED',
        message_template_id: 7,
        message_template_name: 'order_shipped',
        message_template_language: 'en_US',
        reason: 'INVALID_FORMAT',
      }),
    );
    const rejected = await templateSendRefusal(() =>
      gw.messages.sendTemplate('998901234567', orderShipped, good),
    );
    expect(rejected).toMatchObject({ rule: 'template.status', status: 'REJECTED', reason: 'INVALID_FORMAT' });
    expect(rejected.message).toContain('REJECTED');
    expect(rejected.message).toContain('INVALID_FORMAT');
    await catalog.apply(
      templateStatusEvent({
        event: 'APPROVED',
        message_template_id: 7,
        message_template_name: 'order_shipped',
        message_template_language: 'en_US',
        reason: null,
      }),
    );
    expect(await catalog.get('order_shipped', 'en_US')).toMatchObject({ status: 'APPROVED', sourceId: '7' });
    expect(bodies).toEqual([]);
    await gw.messages.sendTemplate('998901234567', orderShipped, good);
    // By name, with the catalogue's one language.
    await gw.messages.sendTemplate('998901234567', 'order_shipped', good);
    expect(bodies).toHaveLength(2);
    expect(bodies[1]).toEqual(bodies[0]);
  });

  it('messages.send of a raw template body is checked the same way when the client has a catalogue', async () => {
    const bodies = gateway();
    const catalog = new TemplateCatalog({ definitions: [hello] });
    await catalog.record({ name: 'hello', language: 'en_US', status: 'PAUSED' });
    const raw = {
      to: '998901234567',
      type: 'template',
      template: { name: 'hello', language: { code: 'en_US' } },
    } as const;
    expect(await templateSendRefusal(() => client(catalog).messages.send(raw))).toMatchObject({
      rule: 'template.status',
      status: 'PAUSED',
    });
    // Without a catalogue, send is unchanged: the gateway stays the judge.
    await client().messages.send(raw);
    await catalog.record({ name: 'hello', language: 'en_US', status: 'APPROVED' });
    await client(catalog).messages.send(raw);
    const withBody = {
      ...raw,
      template: {
        ...raw.template,
        components: [{ type: 'body', parameters: [{ type: 'text', text: 'x' }] }],
      },
    } as const;
    expect(await templateSendRefusal(() => client(catalog).messages.send(withBody))).toMatchObject({
      rule: 'template.parameters.unexpected',
    });
    expect(bodies).toHaveLength(2);
  });

  it('a bad recipient is still a MessageValidationError, and by name without a catalogue is a configuration error', async () => {
    gateway();
    await expect(client().messages.sendTemplate('not a number', hello, {})).rejects.toBeInstanceOf(
      MessageValidationError,
    );
    await expect(client().messages.sendTemplate('998901234567', 'hello')).rejects.toThrow(
      /needs a catalogue/,
    );
  });

  it('hostile values end in a typed error, never a bare TypeError, and nothing is sent', async () => {
    const bodies = gateway();
    const untyped = client().messages.sendTemplate.bind(client().messages) as unknown as (
      ...a: unknown[]
    ) => Promise<unknown>;
    const throwing = new Proxy(
      {},
      {
        get() {
          throw new Error('boom');
        },
      },
    );
    for (const values of [{ body: 'Ali' }, { buttons: 'x' }, throwing, null]) {
      await expect(untyped('998901234567', hello, values)).rejects.toBeInstanceOf(ConfigurationError);
    }
    await expect(untyped('998901234567', 42, {})).rejects.toBeInstanceOf(ConfigurationError);
    expect(bodies).toEqual([]);
  });
});

describe('a catalogue that cannot say how to send', () => {
  it("a failing store is the send's NotSentError with the store's error as cause, not an argument error", async () => {
    const bodies = gateway();
    const down = new Error('db down');
    // Fails every read after the definition is given; MemoryTemplateStore otherwise.
    const store = Object.assign(new MemoryTemplateStore(), {
      get: () => Promise.reject(down),
      list: () => Promise.reject(down),
    });
    const gw = client(new TemplateCatalog({ definitions: [hello], store }));
    for (const send of [
      () => gw.messages.sendTemplate('998901234567', hello, {}),
      () => gw.messages.sendTemplate('998901234567', 'hello', {}),
      () => gw.messages.sendTemplate('998901234567', 'hello', { language: 'en_US' }),
      () =>
        gw.messages.send({
          to: '998901234567',
          type: 'template',
          template: { name: 'hello', language: { code: 'en_US' } },
        }),
    ]) {
      const error = await send().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(NotSentError);
      expect(error).toMatchObject({ cause: down });
      expect((error as Error).message).not.toContain('could not read its arguments');
    }
    expect(bodies).toEqual([]);
  });

  it('by name, a template known only by its state takes body values; header or button values are refused', async () => {
    const bodies = gateway();
    const catalog = new TemplateCatalog();
    await catalog.record({ name: 'promo', language: 'en_US', status: 'APPROVED' });
    const gw = client(catalog);
    for (const values of [
      { header: { link: 'https://x.test/a.png' }, body: ['shoes'] },
      { body: ['shoes'], buttons: { 0: 'STOP' } },
    ]) {
      const error = await gw.messages.sendTemplate('998901234567', 'promo', values).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(ConfigurationError);
      expect((error as Error).message).toContain('the catalogue has no definition of promo (en_US)');
    }
    // The catalogue's own verdicts still come first: an unapproved template is refused for its status.
    await catalog.record({ name: 'paused', language: 'en_US', status: 'PAUSED' });
    expect(
      await templateSendRefusal(() => gw.messages.sendTemplate('998901234567', 'paused', { header: 'x' })),
    ).toMatchObject({ rule: 'template.status' });
    expect(bodies).toEqual([]);
    await gw.messages.sendTemplate('998901234567', 'promo', { body: ['shoes'] });
    expect(bodies.map((b) => b['template'])).toEqual([
      {
        name: 'promo',
        language: { code: 'en_US' },
        components: [{ type: 'body', parameters: [{ type: 'text', text: 'shoes' }] }],
      },
    ]);
  });

  it('a raw send with a component twice, or a button sent as the other kind, is refused by the catalogue', async () => {
    const bodies = gateway();
    const catalog = new TemplateCatalog({ definitions: [orderShipped] });
    await catalog.record({ name: 'order_shipped', language: 'en_US', status: 'APPROVED' });
    const text = (t: string) => ({ type: 'text', text: t });
    const header = { type: 'header', parameters: [text('#1')] };
    const body = { type: 'body', parameters: [text('Ali'), text('#1')] };
    const url = { type: 'button', sub_type: 'url', index: '0', parameters: [text('1')] };
    const send = (components: object[]) =>
      client(catalog).messages.send({
        to: '998901234567',
        type: 'template',
        template: { name: 'order_shipped', language: { code: 'en_US' }, components },
      } as never);
    expect(await templateSendRefusal(() => send([header, body, body, url]))).toMatchObject({
      rule: 'template.parameters.unexpected',
      component: 'body',
      expected: 1,
      given: 2,
    });
    expect(await templateSendRefusal(() => send([header, body, url, url]))).toMatchObject({
      rule: 'template.parameters.unexpected',
      component: 'button 0',
    });
    expect(
      await templateSendRefusal(() => send([header, body, { ...url, sub_type: 'quick_reply' }])),
    ).toMatchObject({
      rule: 'template.parameters.type',
      component: 'button 0 (url)',
      expected: ['url'],
      given: 'quick_reply',
    });
    const payload = { type: 'button', sub_type: 'url', index: '1', parameters: [text('STOP')] };
    expect(await templateSendRefusal(() => send([header, body, url, payload]))).toMatchObject({
      rule: 'template.parameters.type',
      component: 'button 1 (quick_reply)',
      given: 'url',
    });
    expect(bodies).toEqual([]);
    await send([header, body, url, { ...payload, sub_type: 'quick_reply' }]);
    expect(bodies).toHaveLength(1);
  });
});
