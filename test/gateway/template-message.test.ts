/**
 * `templateMessage` and `filledTemplate`: a definition and its values as a template message (for `sendMany`,
 * `messages.send`, the router), built and checked by the code `sendTemplate` uses, so what they build is what
 * `sendTemplate` sends, and what they refuse it refuses.
 */
import { describe, expect, it } from 'vitest';
import {
  ConfigurationError,
  defineTemplate,
  filledTemplate,
  type SendManyResult,
  TemplateCatalog,
  TemplateSendError,
  templateMessage,
} from '../../src/index.js';
import { useMswServer } from '../helpers/msw.js';
import { rejectionOf } from '../helpers/refusal.js';
import { helloDefinition, orderShippedDefinition, promoDefinition } from '../helpers/template-definitions.js';
import { recordSends, templateClient } from '../helpers/template-sends.js';

const server = useMswServer();
const orderShipped = defineTemplate(orderShippedDefinition);
const promo = defineTemplate(promoDefinition);
const hello = defineTemplate(helloDefinition);
const to = '998901234567';

const gateway = () => recordSends(server);
const client = templateClient;

const shipped = {
  header: '#1042',
  body: ['Ali', { type: 'currency', currency: { fallback_value: '$5', code: 'USD', amount_1000: 5000 } }],
  buttons: { 0: '1042', 1: 'stop-updates' },
} as const;
const promoValues = { header: { link: 'https://x.test/a.png' }, body: ['shoes'] } as const;

/** The `template` object `sendTemplate` sends for each case, read from the request it makes. */
async function sentBySendTemplate(): Promise<unknown[]> {
  const bodies = gateway();
  const gw = client();
  await gw.messages.sendTemplate(to, orderShipped, shipped);
  await gw.messages.sendTemplate(to, promo, promoValues);
  await gw.messages.sendTemplate(to, hello);
  return bodies.map((b) => b['template']);
}

describe('templateMessage and filledTemplate build what sendTemplate sends', () => {
  it('the same template object, header, body, URL and quick-reply buttons included', async () => {
    const expected = await sentBySendTemplate();
    expect(expected).toHaveLength(3);
    expect([
      filledTemplate(orderShipped, shipped),
      filledTemplate(promo, promoValues),
      filledTemplate(hello),
    ]).toEqual(expected);
    expect([
      templateMessage(to, orderShipped, shipped),
      templateMessage(to, promo, promoValues),
      templateMessage(to, hello, {}),
    ]).toEqual(expected.map((template) => ({ to, type: 'template', template })));
  });

  it('sendMany of templateMessage sends the same bodies as sendTemplate, and messages.send of one too', async () => {
    const expected = await sentBySendTemplate();
    const bodies = gateway();
    const gw = client();
    const results: SendManyResult[] = [];
    for await (const r of gw.messages.sendMany([
      templateMessage(to, orderShipped, shipped),
      templateMessage(to, promo, promoValues),
      templateMessage(to, hello),
    ]))
      results.push(r);
    expect(results.map((r) => r.ok)).toEqual([true, true, true]);
    await gw.messages.send(templateMessage(to, promo, promoValues));
    expect(bodies.map((b) => b['template'])).toEqual([...expected, expected[1]]);
  });

  it("sendMany still checks each against the client's catalogue: a template not approved is not sent", async () => {
    const bodies = gateway();
    const catalog = new TemplateCatalog({ definitions: [orderShipped, hello] });
    await catalog.record({ name: 'hello', language: 'en_US', status: 'APPROVED' });
    await catalog.record({ name: 'order_shipped', language: 'en_US', status: 'PAUSED' });
    const results: SendManyResult[] = [];
    for await (const r of client(catalog).messages.sendMany([
      templateMessage(to, orderShipped, shipped),
      templateMessage(to, hello),
    ]))
      results.push(r);
    expect(results[0]).toMatchObject({ ok: false, notSent: true });
    expect(results[0]!.ok ? undefined : results[0]!.error).toMatchObject({
      rule: 'template.status',
      status: 'PAUSED',
    });
    expect(results[1]).toMatchObject({ ok: true });
    expect(bodies).toHaveLength(1);
  });
});

describe('they refuse what sendTemplate refuses, where they are called', () => {
  /** The TemplateSendError `build` throws, and the one sendTemplate rejects with for the same values. */
  async function bothRefusals(values: object, definition: object = orderShipped) {
    gateway();
    const untypedBuild = templateMessage as unknown as (to: string, d: object, v: object) => unknown;
    let built: unknown;
    try {
      untypedBuild(to, definition, values);
    } catch (error) {
      built = error;
    }
    const untypedSend = client().messages.sendTemplate as unknown as (
      to: string,
      d: object,
      v: object,
    ) => Promise<unknown>;
    const sent = await rejectionOf(TemplateSendError, () =>
      untypedSend.call(client().messages, to, definition, values),
    );
    expect(built).toBeInstanceOf(TemplateSendError);
    return { built: built as TemplateSendError, sent };
  }

  it.each([
    ['a body value short', { header: '#', body: ['Ali'], buttons: { 0: '1' } }, 'template.parameters.count'],
    [
      'a body value of the wrong type',
      { header: '#', body: ['Ali', 5], buttons: { 0: '1' } },
      'template.parameters.type',
    ],
    ['the URL button value missing', { header: '#', body: ['Ali', '#'] }, 'template.parameters.count'],
    ['another language than the definition', { ...shipped, language: 'uz' }, 'template.language'],
  ])('%s', async (_, values, rule) => {
    const { built, sent } = await bothRefusals(values);
    expect(built.rule).toBe(rule);
    expect({ ...built, message: built.message }).toEqual({ ...sent, message: sent.message });
  });

  it('a header the template has no place for', async () => {
    const { built } = await bothRefusals({ header: 'x' }, hello);
    expect(built).toMatchObject({ rule: 'template.parameters.unexpected', component: 'header' });
  });

  it('arguments it cannot read are a ConfigurationError naming the function, never a bare TypeError', () => {
    const untyped = filledTemplate as unknown as (d: unknown, v?: unknown) => unknown;
    const throwing = new Proxy(
      {},
      {
        get() {
          throw new Error('boom');
        },
      },
    );
    for (const [definition, values] of [
      [hello, { body: 'Ali' }],
      [hello, { buttons: 'x' }],
      [hello, throwing],
      [hello, null],
      [42, {}],
      [{ name: 'x' }, {}],
      [throwing, {}],
    ] as const) {
      expect(() => untyped(definition, values)).toThrow(ConfigurationError);
      expect(() => untyped(definition, values)).toThrow(/^filledTemplate /);
    }
  });
});
