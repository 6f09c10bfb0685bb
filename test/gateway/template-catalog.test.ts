import { describe, expect, it } from 'vitest';
import {
  ConfigurationError,
  MemoryTemplateStore,
  TemplateCatalog,
  TemplateValidationError,
} from '../../src/index.js';
import { accountUpdateEnvelope, templateStatusValue } from '../../src/webhooks/fixtures.js';
import { parseWebhook } from '../../src/webhooks/index.js';
import { orderShippedDefinition } from '../helpers/template-definitions.js';

describe('TemplateCatalog', () => {
  it('learns from a raw status value, ignores other events, and clears a reason once approved', async () => {
    const catalog = new TemplateCatalog({ definitions: [orderShippedDefinition] });
    expect(await catalog.apply(parseWebhook(accountUpdateEnvelope())[0]!)).toBeUndefined();
    const value = templateStatusValue({
      event: 'REJECTED',
      message_template_id: 9,
      message_template_name: 'order_shipped',
      message_template_language: 'en_US',
      reason: 'ABUSIVE_CONTENT',
    });
    expect(await catalog.apply(value)).toMatchObject({
      status: 'REJECTED',
      reason: 'ABUSIVE_CONTENT',
      sourceId: '9',
    });
    await catalog.apply({ ...value, event: 'APPROVED', reason: null });
    const entry = await catalog.get('order_shipped', 'en_US');
    expect(entry).toMatchObject({ status: 'APPROVED', definition: orderShippedDefinition });
    expect(entry?.reason).toBeUndefined();
  });

  it('refresh is the hook for a list call: each state is recorded', async () => {
    const store = new MemoryTemplateStore();
    const catalog = new TemplateCatalog({ store });
    const n = await catalog.refresh(async () => [
      { name: 'welcome', language: 'en_US', status: 'APPROVED', sourceId: 1 },
      { name: 'welcome', language: 'uz', status: 'PAUSED' },
    ]);
    expect(n).toBe(2);
    expect(await catalog.languages('welcome')).toEqual(['en_US', 'uz']);
    expect(await catalog.problem({ name: 'welcome', language: { code: 'en_US' } })).toBeUndefined();
    expect(await catalog.problem({ name: 'welcome', language: { code: 'ru' } })).toMatchObject({
      rule: 'template.language',
      expected: ['en_US', 'uz'],
    });
    expect(await catalog.problem({ name: 'welcome', language: { code: 'uz' } })).toMatchObject({
      rule: 'template.status',
      status: 'PAUSED',
    });
  });

  it('refuses an invalid definition and a store without the interface', () => {
    expect(() => new TemplateCatalog({ definitions: [{ ...orderShippedDefinition, name: '' }] })).toThrow(
      TemplateValidationError,
    );
    expect(() => new TemplateCatalog({ store: {} as never })).toThrow(ConfigurationError);
  });
});
