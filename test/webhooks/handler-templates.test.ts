import { describe, expect, it } from 'vitest';
import { ConfigurationError, TemplateCatalog } from '../../src/index.js';
import { messageEnvelope, templateStatusEnvelope, textMessage } from '../../src/testing/webhook-fixtures.js';
import { createWebhookHandler, type WebhookEvent } from '../../src/webhooks/index.js';

const SECRET = 'handler-templates-secret-0123456789abcd';
const post = (body: unknown) =>
  new Request('https://app.test/webhooks', {
    method: 'POST',
    headers: { authorization: `Bearer ${SECRET}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
const status = (event: string) =>
  templateStatusEnvelope({
    event,
    message_template_id: 5,
    message_template_name: 'order_shipped',
    message_template_language: 'en_US',
    reason: null,
  });

describe('createWebhookHandler({ templates })', () => {
  it('applies every template status event, a repeated value included, and still dedupes the others', async () => {
    const catalog = new TemplateCatalog();
    const seen: WebhookEvent[] = [];
    const handler = createWebhookHandler({
      secret: SECRET,
      templates: catalog,
      onEvent: (e) => void seen.push(e),
    });
    for (const event of ['APPROVED', 'PAUSED', 'APPROVED'])
      expect((await handler(post(status(event)))).status).toBe(200);
    expect(await catalog.get('order_shipped', 'en_US')).toMatchObject({ status: 'APPROVED', sourceId: '5' });
    expect(seen.map((e) => e.kind)).toEqual(['template_status', 'template_status', 'template_status']);
    const message = messageEnvelope(textMessage());
    await handler(post(message));
    await handler(post(message));
    expect(seen.filter((e) => e.kind === 'message')).toHaveLength(1);
  });

  it('a failing apply answers 500 so the gateway retries, and a bad option is refused', async () => {
    const errors: unknown[] = [];
    const handler = createWebhookHandler({
      secret: SECRET,
      templates: {
        apply: async () => {
          throw new Error('store down');
        },
      },
      onEvent: () => {},
      logger: false,
      onError: (e) => void errors.push(e),
    });
    expect((await handler(post(status('APPROVED')))).status).toBe(500);
    expect(errors).toHaveLength(1);
    expect(() => createWebhookHandler({ secret: SECRET, templates: {} as never, onEvent: () => {} })).toThrow(
      ConfigurationError,
    );
  });
});
