/** `wa-gateway-sdk/schemas` gives the SDK's own verdict: the same answer as the check the SDK runs itself. */
import { describe, expect, it } from 'vitest';
import { validateMessage } from '../src/gateway/validate-message.js';
import * as schemas from '../src/schemas.js';
import { validateTemplate } from '../src/templates/index.js';

const CONV = '3f2b8c1e-4d5a-4b6c-9e7f-0a1b2c3d4e5f';

/** A template `validateTemplate` finds 8 issues in, though every field has the right shape. */
const bad = {
  name: 'Bad Name!',
  language: 'en_US',
  category: 'AUTHENTICATION',
  body: { text: `{{1}} ${'x'.repeat(1100)}`, examples: ['123'] },
  buttons: [{ type: 'URL', text: 'Open', url: 'http://example.com' }],
};
const good = {
  name: 'order_update',
  language: 'en_US',
  category: 'UTILITY',
  body: { text: 'Your order {{1}} has shipped.', examples: ['A-1'] },
};

describe('TemplateCreateRequestSchema', () => {
  it.each([
    ['the reviewer’s template', bad],
    ['a valid template', good],
    ['a named variable', { ...good, body: { text: 'Hi {{name}}.' } }],
    ['a bad category', { ...good, category: 'PROMO' }],
    ['not an object', 'x'],
  ])('%s: safeParse agrees with validateTemplate, issue for issue', (_, t) => {
    const verdict = validateTemplate(t);
    const r = schemas.TemplateCreateRequestSchema.safeParse(t);
    expect(r.success).toBe(verdict.valid);
    if (!r.success) {
      expect(r.error.issues.map((i) => [i.path, (i as { params?: { rule?: string } }).params?.rule])).toEqual(
        verdict.issues.map((i) => [i.path, i.rule]),
      );
    }
  });

  it('refuses the reviewer’s template with every issue validateTemplate finds', () => {
    expect(validateTemplate(bad).issues.length).toBeGreaterThanOrEqual(4);
    expect(schemas.TemplateCreateRequestSchema.safeParse(bad).success).toBe(false);
  });

  it('types a valid template as the create request', () => {
    const r = schemas.TemplateCreateRequestSchema.parse(good);
    expect(r.name).toBe('order_update');
  });
});

describe('the query schemas include the span limits the SDK checks', () => {
  it('feedbacksQuerySchema refuses more than one month', () => {
    const r = schemas.feedbacksQuerySchema.safeParse({
      start_date: '2024-01-01T00:00:00Z',
      end_date: '2024-03-01T00:00:00Z',
    });
    expect(r.success).toBe(false);
    expect(r.error?.issues[0]).toMatchObject({ path: ['end_date'], params: { rule: 'end_date.max_span' } });
  });

  it('streamQuerySchema refuses more than one week', () => {
    const r = schemas.streamQuerySchema.safeParse({
      channel: CONV,
      created_at__gt: '2024-05-01T00:00:00Z',
      created_at__lt: '2024-05-08T00:00:01Z',
    });
    expect(r.success).toBe(false);
  });
});

describe('message schemas', () => {
  it.each([
    { to: '2904567', type: 'text', text: { body: 'Hi' } },
    {
      to: '998901234567',
      type: 'interactive',
      interactive: {
        type: 'button',
        body: { text: 'x' },
        action: { buttons: [{ type: 'reply', reply: { id: 'a', title: '😀'.repeat(20) } }] },
      },
    },
    { to: '998901234567', type: 'template', template: { name: 'x', language: 'en_US' } },
  ])('outboundMessageSchema agrees with validateMessage (%#)', (m) => {
    expect(schemas.outboundMessageSchema.safeParse(m).success).toBe(validateMessage(m).valid);
  });

  it('template parts are exported as shapes, named so', () => {
    expect(
      Object.keys(schemas).filter((k) =>
        /^(Template(Header|Body|Footer|Button)|CarouselCard|LimitedTimeOffer)/.test(k),
      ),
    ).toEqual(expect.arrayContaining(['TemplateHeaderShapeSchema', 'TemplateBodyShapeSchema']));
    expect('TemplateHeaderSchema' in schemas).toBe(false);
  });
});
