/**
 * The sandbox against the spec, where the testing-kit audit found it apart from the real gateway (the msw side is
 * in kit-fidelity.test.ts). Real sockets on 127.0.0.1, no msw.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { GatewayClient } from '../../src/index.js';
import { type Sandbox, startSandbox } from '../../src/testing/index.js';

const to = '998901234567';
let sandbox: Sandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

describe('is_fake in the sandbox', () => {
  it('a registry template still PENDING gets a fake wamid', async () => {
    sandbox = await startSandbox({ platform: false });
    sandbox.templates.plan('promo', { outcome: 'PENDING' });
    sandbox.submitTemplate(
      'app_1',
      JSON.stringify({
        name: 'promo',
        language: 'en_US',
        category: 'UTILITY',
        body: { text: 'Hello there' },
      }),
    );
    const gw = new GatewayClient({ apiKey: 'sk_test_sandbox', baseUrl: sandbox.url });
    const promo = { to, type: 'template', template: { name: 'promo', language: { code: 'en_US' } } } as const;
    await expect(gw.messages.send(promo)).rejects.toMatchObject({ code: 'GW_001' });
    const { messageId } = await gw.messages.send(promo, { isFake: true });
    expect(messageId).toMatch(/^wamid\.FAKE/);
  });
});

describe('the templates option and the registry', () => {
  it('an APPROVED registry template is judged by the registry, not refused by the option', async () => {
    sandbox = await startSandbox({ platform: false, templates: { order_update: ['en_US'] } });
    sandbox.templates.plan('order_shipped', { outcome: 'PENDING' });
    const created = sandbox.submitTemplate(
      'app_1',
      JSON.stringify({
        name: 'order_shipped',
        language: 'en_US',
        category: 'UTILITY',
        body: { text: 'Order {{1}} has shipped.', examples: ['#1042'] },
      }),
    ).created!;
    await sandbox.setTemplateStatus(created.sourceId, 'APPROVED');
    const gw = new GatewayClient({ apiKey: 'sk_test_sandbox', baseUrl: sandbox.url });
    const template = (parameters: { type: 'text'; text: string }[]) =>
      ({
        to,
        type: 'template',
        template: {
          name: 'order_shipped',
          language: { code: 'en_US' },
          components: [{ type: 'body', parameters }],
        },
      }) as const;
    const { messageId } = await gw.messages.send(template([{ type: 'text', text: '#1042' }]));
    expect(messageId).toMatch(/^wamid\./);
    // Still the registry's rules: a parameter missing is GW_001, and a name neither knows is the option's GW_001.
    await expect(gw.messages.send(template([]))).rejects.toMatchObject({ code: 'GW_001' });
    await expect(
      gw.messages.send({
        to,
        type: 'template',
        template: { name: 'order_shiped', language: { code: 'en_US' } },
      }),
    ).rejects.toMatchObject({ code: 'GW_001' });
  });
});
