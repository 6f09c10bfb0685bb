/**
 * The sandbox against the spec, where the testing-kit audit found it apart from the real gateway (the msw side is
 * in kit-fidelity.test.ts). Real sockets on 127.0.0.1, no msw.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { GatewayClient, type TemplateComponent } from '../../src/index.js';
import { messageEnvelope, type Sandbox, startSandbox, textMessage } from '../../src/testing/index.js';

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

/** Creates this template in the sandbox's registry and approves it (its webhook goes nowhere). */
async function approvedTemplate(
  sb: Sandbox,
  request: { name: string } & Record<string, unknown>,
): Promise<void> {
  sb.templates.plan(request.name, { outcome: 'PENDING' });
  const answer = sb.submitTemplate('app_1', JSON.stringify({ language: 'en_US', ...request }));
  await sb.setTemplateStatus(answer.created!.sourceId, 'APPROVED');
}

describe('status events of a template send', () => {
  it("carry the registry's category of the template, marketing for one it does not hold", async () => {
    sandbox = await startSandbox({ platform: false, statusDelaysMs: [1, 2, 3] });
    await approvedTemplate(sandbox, {
      name: 'receipt',
      category: 'UTILITY',
      body: { text: 'Paid, thank you.' },
    });
    await approvedTemplate(sandbox, {
      name: 'login_code',
      category: 'AUTHENTICATION',
      body: { addSecurityRecommendation: true },
      buttons: [{ type: 'OTP', otpType: 'COPY_CODE', text: 'Copy code' }],
    });
    const categories = new Map<string, unknown[]>();
    sandbox.observe((event) => {
      if (event.type !== 'status' || event.status === 'read') return;
      const status = event.envelope.entry[0]?.changes[0]?.value as {
        statuses: { conversation: { origin: { type: string } }; pricing: { category: string } }[];
      };
      const [{ conversation, pricing }] = status.statuses as [(typeof status.statuses)[0]];
      categories.set(event.wamid, [
        ...(categories.get(event.wamid) ?? []),
        conversation.origin.type,
        pricing.category,
      ]);
    });
    const gw = new GatewayClient({ apiKey: 'sk_test_sandbox', baseUrl: sandbox.url });
    const send = async (name: string, components?: TemplateComponent[]) =>
      (
        await gw.messages.send({
          to,
          type: 'template',
          template: { name, language: { code: 'en_US' }, ...(components ? { components } : {}) },
        })
      ).messageId;
    const receipt = await send('receipt');
    const code = await send('login_code', [
      { type: 'body', parameters: [{ type: 'text', text: '123456' }] },
      { type: 'button', sub_type: 'url', index: '0', parameters: [{ type: 'text', text: '123456' }] },
    ]);
    const other = await send('not_in_registry');
    const service = (await gw.messages.send({ to, type: 'text', text: { body: 'hi' } })).messageId;
    await sandbox.idle();
    expect(categories.get(receipt)).toEqual(Array(4).fill('utility'));
    expect(categories.get(code)).toEqual(Array(4).fill('authentication'));
    expect(categories.get(other)).toEqual(Array(4).fill('marketing'));
    expect(categories.get(service)).toEqual(Array(4).fill('service'));
  });
});

describe('injected customer messages', () => {
  /** The `metadata` of every event the sandbox produces from now on, by its label. */
  function metadataSeen(sb: Sandbox): [string, unknown][] {
    const seen: [string, unknown][] = [];
    sb.observe((event) => {
      if (event.type !== 'event') return;
      const envelope = JSON.parse(event.body) as {
        entry: { changes: { value: { metadata?: unknown } }[] }[];
      };
      seen.push([event.label, envelope.entry[0]?.changes[0]?.value.metadata]);
    });
    return seen;
  }

  it("arrive at the sandbox's business number, the one its status events carry", async () => {
    const business = { phone_number_id: '111111111111111', display_phone_number: '15551234567' };
    sandbox = await startSandbox({
      platform: false,
      statusDelaysMs: [1, 2, 3],
      phoneNumberId: business.phone_number_id,
      displayPhoneNumber: business.display_phone_number,
    });
    const seen = metadataSeen(sandbox);
    await sandbox.injectMessage({ from: to, type: 'text', text: { body: 'hi' } });
    const gw = new GatewayClient({ apiKey: 'sk_test_sandbox', baseUrl: sandbox.url });
    await gw.messages.send({ to, type: 'text', text: { body: 'hello' } });
    await sandbox.idle();
    expect(seen.map(([label]) => label)).toEqual([
      'message:text',
      'status:sent',
      'status:delivered',
      'status:read',
    ]);
    for (const [, metadata] of seen) expect(metadata).toEqual(business);
  });

  it('without the options, messages and statuses carry the same default number; an envelope keeps its own', async () => {
    sandbox = await startSandbox({ platform: false });
    const seen = metadataSeen(sandbox);
    await sandbox.injectMessage({ from: to, type: 'text', text: { body: 'hi' } });
    expect(seen[0]?.[1]).toEqual(sandbox.simulator.metadata());
    const own = { phone_number_id: '222', display_phone_number: '15550002222' };
    await sandbox.injectMessage(messageEnvelope(textMessage({ from: to }), { metadata: own }));
    expect(seen[1]?.[1]).toEqual(own);
  });
});

describe("the sandbox's public API", () => {
  it('refuses a secret key without the Bearer scheme with 401 ORGANIZATION_SECRET_011', async () => {
    sandbox = await startSandbox({ platform: false });
    const answer = await fetch(`${sandbox.url}/api/v1/wa/app_1/templates`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'sk_org_sandbox' },
      body: JSON.stringify({
        name: 'promo',
        language: 'en_US',
        category: 'UTILITY',
        body: { text: 'Hello' },
      }),
    });
    expect(answer.status).toBe(401);
    expect(await answer.json()).toMatchObject({ errors: { code: 'ORGANIZATION_SECRET_011' } });
    expect(sandbox.templates.templates).toHaveLength(0);
  });
});

describe("the sandbox's media download", () => {
  it('refuses another phone_number_id than its phoneNumberId with a 400 envelope', async () => {
    sandbox = await startSandbox({
      platform: false,
      phoneNumberId: '111111111111111',
      media: { 'media.1': { contentType: 'image/jpeg', body: 'JPEG' } },
    });
    const gw = new GatewayClient({ apiKey: 'sk_test_sandbox', baseUrl: sandbox.url });
    await expect(gw.media.download('media.1', { phoneNumberId: '15550000000' })).rejects.toMatchObject({
      status: 400,
      code: 'BAD_REQUEST',
    });
    const file = await gw.media.download('media.1', {
      phoneNumberId: sandbox.simulator.metadata().phone_number_id,
    });
    expect(file.contentType).toBe('image/jpeg');
  });
});

describe('a send the sandbox cannot forward', () => {
  it('a body that is not JSON, or a Content-Type that is not JSON: 400 BAD_REQUEST, reported to onSend', async () => {
    const sends: unknown[] = [];
    sandbox = await startSandbox({ platform: false, onSend: (s) => void sends.push(s) });
    const post = (body: string, contentType: string) =>
      fetch(`${sandbox!.url}/v1/wa/message`, {
        method: 'POST',
        headers: { authorization: 'Bearer sk_test_sandbox', 'content-type': contentType },
        body,
      });
    const text = JSON.stringify({ messaging_product: 'whatsapp', to, type: 'text', text: { body: 'Hi' } });
    expect((await post('not json', 'application/json')).status).toBe(400);
    expect((await post(text, 'text/plain')).status).toBe(400);
    expect(sends).toMatchObject([
      { status: 400, error: { code: 'BAD_REQUEST' } },
      { status: 400, error: { code: 'BAD_REQUEST' } },
    ]);
    expect((await post(text, 'application/json')).status).toBe(200);
  });
});

describe("the sandbox with serviceWindow: 'enforced'", () => {
  it('an injected customer message opens the window; 24 hours later on the test clock it is closed', async () => {
    let clock = Date.parse('2024-05-01T09:00:00Z');
    sandbox = await startSandbox({ platform: false, serviceWindow: 'enforced', now: () => clock });
    const gw = new GatewayClient({ apiKey: 'sk_test_sandbox', baseUrl: sandbox.url });
    const hello = { to, type: 'text', text: { body: 'Welcome!' } } as const;
    await expect(gw.messages.send(hello)).rejects.toMatchObject({ code: 'GW_001' });
    await sandbox.injectMessage({ from: to, type: 'text', text: { body: 'hi' } });
    expect((await gw.messages.send(hello)).messageId).toMatch(/^wamid\.SBX/);
    clock += 24 * 3600_000;
    await expect(gw.messages.send(hello)).rejects.toMatchObject({
      code: 'GW_001',
      message: expect.stringContaining('outside the 24-hour service window'),
    });
  });
});
