import { HttpResponse, http } from 'msw';
import { describe, expect, it } from 'vitest';
import {
  ConfigurationError,
  GatewayClient,
  MemoryTemplateStore,
  type OutboundTemplateMessage,
  PublicApiClient,
  TemplateCatalog,
  TemplateSendError,
  TemplateValidationError,
} from '../../src/index.js';
import { createPublicApiHandlers } from '../../src/testing/index.js';
import { accountUpdateEnvelope, templateStatusValue } from '../../src/testing/webhook-fixtures.js';
import { parseWebhook } from '../../src/webhooks/index.js';
import { API_KEY, GW, sendOk, useMswServer } from '../helpers/msw.js';
import { templateSendRefusal } from '../helpers/refusal.js';
import { loginCodeDefinition, orderShippedDefinition } from '../helpers/template-definitions.js';

const server = useMswServer();

describe('TemplateCatalog', () => {
  it('checks every template of a sendMany before its request: a refused one is notSent, the others go on', async () => {
    const sent: unknown[] = [];
    server.use(
      http.post(`${GW}/v1/wa/message`, async ({ request }) => {
        sent.push(await request.json());
        return HttpResponse.json(sendOk(`wamid.${sent.length}`));
      }),
    );
    const catalog = new TemplateCatalog();
    await catalog.refresh(async () => [
      { name: 'welcome', language: 'en_US', status: 'APPROVED' },
      { name: 'promo', language: 'en_US', status: 'PAUSED' },
    ]);
    const gw = new GatewayClient({ apiKey: API_KEY, baseUrl: GW, templates: catalog, rateLimit: false });
    const template = (name: string) => ({
      to: '998901234567',
      type: 'template' as const,
      template: { name, language: { code: 'en_US' } },
    });
    const results = [];
    for await (const r of gw.messages.sendMany([template('promo'), template('welcome')])) results.push(r);
    expect(results[0]).toMatchObject({ ok: false, notSent: true });
    const refused = results[0]?.ok === false ? results[0].error : undefined;
    expect(refused).toBeInstanceOf(TemplateSendError);
    expect(refused).toMatchObject({ rule: 'template.status', status: 'PAUSED' });
    expect(results[1]).toMatchObject({ ok: true, messageId: 'wamid.1' });
    expect(sent).toHaveLength(1);
  });

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

  it('matches a status event without name and language (as real deliveries send some) by its template id', async () => {
    const catalog = new TemplateCatalog();
    await catalog.refresh(async () => [
      { name: 'welcome', language: 'en_US', status: 'PENDING', sourceId: 77 },
    ]);
    const bare = { event: 'APPROVED' as const, message_template_id: 77, reason: null };
    expect(await catalog.apply(bare)).toMatchObject({ name: 'welcome', status: 'APPROVED' });
    expect(await catalog.apply({ ...bare, message_template_id: 78 })).toBeUndefined();
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

describe('an AUTHENTICATION (one-time code) template in the catalogue', () => {
  type Components = NonNullable<OutboundTemplateMessage['template']['components']>;
  const to = '998901234567';
  const code: Components[number]['parameters'][number] = { type: 'text', text: '482913' };
  /** A client whose catalogue holds the OTP definition with `status`, and the bodies its sends posted. */
  async function otpClient(status = 'APPROVED') {
    const sent: { template?: unknown }[] = [];
    server.use(
      http.post(`${GW}/v1/wa/message`, async ({ request }) => {
        sent.push((await request.json()) as { template?: unknown });
        return HttpResponse.json(sendOk(`wamid.${sent.length}`));
      }),
    );
    const catalog = new TemplateCatalog({ definitions: [loginCodeDefinition] });
    await catalog.record({ name: 'login_code', language: 'en', status });
    const gw = new GatewayClient({ apiKey: API_KEY, baseUrl: GW, templates: catalog, rateLimit: false });
    return { gw, sent, catalog };
  }

  it('is sent with its code as the body parameter and the OTP button parameter: the spec leaves them to the server', async () => {
    const { gw, sent } = await otpClient();
    const raw = (components: Components) => ({
      to,
      type: 'template' as const,
      template: { name: 'login_code', language: { code: 'en' }, components },
    });
    const button: Components[number] = { type: 'button', sub_type: 'url', index: '0', parameters: [code] };
    await gw.messages.sendTemplate(to, loginCodeDefinition, { body: ['482913'], buttons: { 0: '482913' } });
    await gw.messages.send(raw([{ type: 'body', parameters: [code] }]));
    await gw.messages.send(raw([{ type: 'body', parameters: [code, code] }, button]));
    await gw.messages.sendTemplate(to, loginCodeDefinition);
    expect(sent.map((m) => m.template)).toEqual([
      {
        name: 'login_code',
        language: { code: 'en' },
        components: [{ type: 'body', parameters: [code] }, button],
      },
      raw([{ type: 'body', parameters: [code] }]).template,
      raw([{ type: 'body', parameters: [code, code] }, button]).template,
      { name: 'login_code', language: { code: 'en' } },
    ]);
  });

  it('keeps every other check: language, status (whose message claims no gateway code), a header it has not', async () => {
    const { gw, sent, catalog } = await otpClient('PAUSED');
    const paused = await templateSendRefusal(() =>
      gw.messages.sendTemplate(to, loginCodeDefinition, { body: ['1'] }),
    );
    expect(paused).toMatchObject({ rule: 'template.status', status: 'PAUSED' });
    expect(paused.message).toBe(
      'Template login_code (en) was not sent: is PAUSED, not APPROVED. [template.status] ' +
        'Nothing was sent; the spec sends approved templates only.',
    );
    await catalog.record({ name: 'login_code', language: 'en', status: 'APPROVED' });
    const template = (language: string, components: Components) => ({
      to,
      type: 'template' as const,
      template: { name: 'login_code', language: { code: language }, components },
    });
    const language = await templateSendRefusal(() => gw.messages.send(template('en_US', [])));
    expect(language).toMatchObject({ rule: 'template.language', expected: ['en'] });
    expect(language.message).toMatch(/the gateway would have refused it with GW_001\.$/);
    const header = await templateSendRefusal(() =>
      gw.messages.send(template('en', [{ type: 'header', parameters: [code] }])),
    );
    expect(header).toMatchObject({ rule: 'template.parameters.unexpected', component: 'header' });
    expect(sent).toEqual([]);
  });
});

describe('TemplateCatalog.push when its store fails', () => {
  const API = 'https://api.push.test/api/v1';
  const definition = (name: string) => ({ ...orderShippedDefinition, name });
  /** The public API's template create (msw), and the names of the templates it has created, in order. */
  function publicApi() {
    const sim = createPublicApiHandlers({ baseUrl: API, secretKeys: ['sk_org_push'], appIds: ['app_1'] });
    server.use(...sim.handlers);
    const api = new PublicApiClient({ secretKey: 'sk_org_push', baseUrl: API });
    return { api, created: () => sim.registry.templates.map((t) => t.name) };
  }
  /** A memory store whose `method` rejects for the names in `failing`. */
  function storeFailing(method: 'get' | 'update', failing: readonly string[]) {
    const store = new MemoryTemplateStore();
    const real = store[method].bind(store) as (...a: unknown[]) => Promise<unknown>;
    store[method] = ((name: string, ...rest: unknown[]) =>
      failing.includes(name)
        ? Promise.reject(new Error(`store ${method} failed`))
        : real(name, ...rest)) as never;
    return store;
  }

  it('a store that cannot read or record is a row, never a throw, and the other definitions are still pushed', async () => {
    const { api, created } = publicApi();
    const catalog = new TemplateCatalog({
      definitions: [definition('tpl_a'), definition('tpl_b'), definition('tpl_c')],
      store: storeFailing('get', ['tpl_a']),
    });
    const rows = await catalog.push(api, 'app_1');
    expect(rows.map((r) => [r.name, r.result])).toEqual([
      ['tpl_a', 'failed'],
      ['tpl_b', 'created'],
      ['tpl_c', 'created'],
    ]);
    expect(rows[0]?.error).toBe('the store could not be read, so nothing was created: store get failed');
    expect(rows[0]?.sourceId).toBeUndefined();
    expect(created()).toEqual(['tpl_b', 'tpl_c']);
  });

  it('created upstream but not recorded keeps its sourceId and says so; a 409 not recorded is a row too', async () => {
    const { api, created } = publicApi();
    await api.templates.create('app_1', definition('tpl_c'));
    const catalog = new TemplateCatalog({
      definitions: [definition('tpl_a'), definition('tpl_b'), definition('tpl_c')],
      store: storeFailing('update', ['tpl_b', 'tpl_c']),
    });
    const rows = await catalog.push(api, 'app_1');
    expect(rows.map((r) => [r.name, r.result])).toEqual([
      ['tpl_a', 'created'],
      ['tpl_b', 'failed'],
      ['tpl_c', 'failed'],
    ]);
    expect(rows[1]).toMatchObject({ status: 'PENDING', sourceId: expect.stringMatching(/^\d+$/) });
    expect(rows[1]?.error).toBe(
      `created upstream (sourceId ${rows[1]?.sourceId}), but not recorded in the store (a later push meets ` +
        '409 UPSTREAM_017 and records it as existing): store update failed',
    );
    expect(rows[2]?.error).toBe(
      'it exists upstream (409 UPSTREAM_017), but the store could not record it: store update failed',
    );
    expect(created()).toEqual(['tpl_c', 'tpl_a', 'tpl_b']);
  });
});
