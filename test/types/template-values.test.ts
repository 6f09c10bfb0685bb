/**
 * A definition's values are typed wherever a template message is sent or built: `messages.sendTemplate`,
 * `templateMessage` (what `sendMany` takes), `filledTemplate` (a `template` object: `messages.send`, the router's
 * `fallbackTemplate`) and `ctx.replyTemplate`. Checked by the compiler (`npm run typecheck`, and TypeScript 7 in
 * CI's ts-matrix): each `@ts-expect-error` must be an error, each line without one must compile. The functions
 * are never called; `template-errors.test.ts` checks what the errors say.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import { createRouter, type MessageContext, type ReplyTemplate } from '../../src/conversations/index.js';
import {
  defineTemplate,
  filledTemplate,
  type GatewayClient,
  type OutboundTemplateMessage,
  type TemplateDefinition,
  type TemplateValues,
  templateMessage,
  type UntypedTemplateSendValues,
} from '../../src/index.js';
import {
  helloDefinition,
  loginCodeDefinition,
  orderShippedDefinition,
  promoDefinition,
} from '../helpers/template-definitions.js';

const orderShipped = defineTemplate(orderShippedDefinition);
const promo = defineTemplate(promoDefinition);
const hello = defineTemplate(helloDefinition);
const loginCode = defineTemplate(loginCodeDefinition);
const to = '998901234567';
declare const gw: GatewayClient;
declare const ctx: MessageContext<Record<string, unknown>>;
const link = { link: 'https://x.test/a.png' };

describe('typed template values, in every place a template message is sent or built', () => {
  it('messages.sendTemplate', () => {
    const typeChecks = () => [
      gw.messages.sendTemplate(to, orderShipped, { header: '#1', body: ['Ali', '#1'], buttons: { 0: '1' } }),
      gw.messages.sendTemplate(to, orderShipped, {
        header: '#1',
        body: ['Ali', { type: 'currency', currency: { amount_1000: 1 } }],
        buttons: { 0: '1042', 1: 'stop' },
        language: 'en_US',
      }),
      gw.messages.sendTemplate(to, promo, { header: link, body: ['shoes'] }),
      gw.messages.sendTemplate(to, hello, {}),
      gw.messages.sendTemplate(to, hello), // nothing to fill: the values may be left out
      gw.messages.sendTemplate(to, hello, {}, { isFake: true }),
      gw.messages.sendTemplate(to, 'order_shipped', { body: ['any', 'count'] }), // by name: untyped
      // AUTHENTICATION: the body is generated upstream; the code may go in the body and on the OTP button
      gw.messages.sendTemplate(to, loginCode, { body: ['482913'], buttons: { 0: '482913' } }),
      gw.messages.sendTemplate(to, loginCode),
      // @ts-expect-error the OTP template has one button: index 1 takes nothing
      gw.messages.sendTemplate(to, loginCode, { body: ['482913'], buttons: { 1: '482913' } }),
      // @ts-expect-error an AUTHENTICATION template has no header
      gw.messages.sendTemplate(to, loginCode, { header: 'x' }),
      // @ts-expect-error two body variables, one value
      gw.messages.sendTemplate(to, orderShipped, { header: '#1', body: ['Ali'], buttons: { 0: '1' } }),
      // @ts-expect-error a body value is a string or a parameter object, not a number
      gw.messages.sendTemplate(to, orderShipped, { header: '#1', body: ['Ali', 2], buttons: { 0: '1' } }),
      // @ts-expect-error the URL button's value is missing
      gw.messages.sendTemplate(to, orderShipped, { header: '#1', body: ['Ali', '#1'] }),
      // @ts-expect-error the header's variable is missing
      gw.messages.sendTemplate(to, orderShipped, { body: ['Ali', '#1'], buttons: { 0: '1' } }),
      // @ts-expect-error the values are required when the definition has something to fill
      gw.messages.sendTemplate(to, orderShipped),
      // @ts-expect-error an image header takes a link, not text
      gw.messages.sendTemplate(to, promo, { header: 'x', body: ['shoes'] }),
      // @ts-expect-error a template without variables takes no header
      gw.messages.sendTemplate(to, hello, { header: 'x' }),
      gw.messages.sendTemplate(to, orderShipped, {
        header: '#',
        body: ['a', 'b'],
        // @ts-expect-error button 1 is a quick reply: its payload is a string
        buttons: { 0: '1', 1: 2 },
      }),
    ];
    expect(typeof typeChecks).toBe('function');
  });

  it('templateMessage, the typed message for sendMany (and messages.send)', () => {
    const typeChecks = () => {
      const message = templateMessage(to, orderShipped, {
        header: '#1',
        body: ['Ali', '#1'],
        buttons: { 0: '1' },
      });
      expectTypeOf(message).toEqualTypeOf<OutboundTemplateMessage>();
      gw.messages.sendMany([
        message,
        templateMessage(to, hello),
        templateMessage(to, promo, { header: link, body: ['x'] }),
      ]);
      gw.messages.send(templateMessage(to, hello));
      return [
        // @ts-expect-error two body variables, one value
        templateMessage(to, orderShipped, { header: '#1', body: ['Ali'], buttons: { 0: '1' } }),
        // @ts-expect-error a body value of the wrong type
        templateMessage(to, promo, { header: link, body: [42] }),
        // @ts-expect-error the values are required
        templateMessage(to, promo),
        // @ts-expect-error a template without variables takes no body values
        templateMessage(to, hello, { body: ['x'] }),
        // @ts-expect-error `language` belongs to sendTemplate (from a catalogue): here the definition is the language
        templateMessage(to, hello, { language: 'uz' }),
        gw.messages.sendMany([
          // @ts-expect-error inside sendMany's input too
          templateMessage(to, orderShipped, { header: '#1', body: ['Ali'], buttons: { 0: '1' } }),
        ]),
      ];
    };
    expect(typeof typeChecks).toBe('function');
  });

  it('filledTemplate, the typed template object', () => {
    const typeChecks = () => {
      const template = filledTemplate(promo, { header: link, body: ['shoes'] });
      expectTypeOf(template).toEqualTypeOf<ReplyTemplate>();
      gw.messages.send({ to, type: 'template', template });
      return [
        // @ts-expect-error two body variables, one value
        filledTemplate(orderShipped, { header: '#1', body: ['Ali'], buttons: { 0: '1' } }),
        // @ts-expect-error an image header takes a link
        filledTemplate(promo, { header: 'x', body: ['shoes'] }),
      ];
    };
    expect(typeof typeChecks).toBe('function');
  });

  it('ctx.replyTemplate, with a definition or a template object', () => {
    const typeChecks = () => [
      ctx.replyTemplate(orderShipped, { header: '#1', body: ['Ali', '#1'], buttons: { 0: '1' } }),
      ctx.replyTemplate(hello),
      ctx.replyTemplate({ name: 'reminder', language: { code: 'en_US' } }),
      ctx.replyTemplate(filledTemplate(promo, { header: link, body: ['shoes'] })),
      // @ts-expect-error two body variables, one value
      ctx.replyTemplate(orderShipped, { header: '#1', body: ['Ali'], buttons: { 0: '1' } }),
      // @ts-expect-error a body value of the wrong type
      ctx.replyTemplate(promo, { header: link, body: [true] }),
      // @ts-expect-error the values are required
      ctx.replyTemplate(orderShipped),
      // @ts-expect-error a template object takes no values: they are in its components
      ctx.replyTemplate({ name: 'reminder', language: { code: 'en_US' } }, { body: ['x'] }),
      // @ts-expect-error a template object's language is `{ code }`
      ctx.replyTemplate({ name: 'reminder', language: 'en_US' }),
    ];
    expect(typeof typeChecks).toBe('function');
  });

  it("the router's fallbackTemplate, built with filledTemplate", () => {
    const typeChecks = () => [
      createRouter<{ name?: string }>({
        gateway: gw,
        fallbackTemplate: (c) => filledTemplate(promo, { header: link, body: [c.session.name ?? 'there'] }),
      }),
      createRouter({
        gateway: gw,
        // @ts-expect-error one body variable, two values
        fallbackTemplate: () => filledTemplate(promo, { header: link, body: ['a', 'b'] }),
      }),
    ];
    expect(typeof typeChecks).toBe('function');
  });

  it('a definition the compiler does not know (JSON) takes the untyped values', () => {
    expectTypeOf<TemplateValues<TemplateDefinition>>().toEqualTypeOf<
      Omit<UntypedTemplateSendValues, 'language'>
    >();
    const typeChecks = (json: TemplateDefinition) => [
      templateMessage(to, json, { header: 'x', body: ['a', 'b', 'c'], buttons: { 3: 'y' } }),
      gw.messages.sendTemplate(to, json, { body: [], language: 'uz' }),
      // @ts-expect-error still values, not anything
      templateMessage(to, json, { body: 'x' }),
    ];
    expect(typeof typeChecks).toBe('function');
  });
});
