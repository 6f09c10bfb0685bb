/**
 * A key the server does not accept: the `AuthenticationError` says which server refused it (the origin the request
 * went to) and what kind of key that client takes, with the prefixes the spec documents and which of them the key
 * given has; never the key itself. Against the sandbox, a real server on 127.0.0.1 with the gateway's and the
 * public API's checks (`AUTH_001`, `ORGANIZATION_SECRET_011`).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthenticationError, GatewayClient, PublicApiClient } from '../../src/index.js';
import { type Sandbox, startSandbox } from '../../src/testing/index.js';
import { orderShippedDefinition } from '../helpers/template-definitions.js';

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, inbox: false, platform: false });
});
afterAll(async () => {
  await sandbox.close();
});

const text = { to: '998901234567', type: 'text', text: { body: 'hi' } } as const;
const refusal = (call: () => Promise<unknown>) =>
  call().then(
    () => {
      throw new Error('expected a refusal');
    },
    (e: unknown) => e as AuthenticationError,
  );

describe('GatewayClient: AUTH_001', () => {
  it.each([
    ['a made-up key', 'made-up-key-0123456789', /this one starts with neither/],
    [
      'a staging key of another gateway',
      'sk_live_not_this_gateway_42',
      /this one starts with `sk_` \(staging\/development\)/,
    ],
    [
      'a production key of another gateway',
      'pk_live_not_this_gateway_42',
      /this one starts with `pk_` \(production\)/,
    ],
  ])(
    '%s: names the gateway, both prefixes and which one the key has, never the key',
    async (_, apiKey, has) => {
      const e = await refusal(() => new GatewayClient({ apiKey, baseUrl: sandbox.url }).messages.send(text));
      expect(e).toBeInstanceOf(AuthenticationError);
      expect(e.code).toBe('AUTH_001');
      expect(e.message).toContain(`The gateway at ${sandbox.url} did not accept this API key`);
      expect(e.message).toContain('`pk_…` (production) or `sk_…` (staging/development)');
      expect(e.message).toMatch(has);
      const shown = `${e.message} ${JSON.stringify(e)}`;
      expect(shown).not.toContain(apiKey);
    },
  );

  it('a key without a documented prefix is told to check GATEWAY_API_KEY', async () => {
    const e = await refusal(() =>
      new GatewayClient({ apiKey: 'made-up-key-0123456789', baseUrl: sandbox.url }).messages.send(text),
    );
    expect(e.message).toMatch(/Check GATEWAY_API_KEY/);
  });
});

describe('PublicApiClient: ORGANIZATION_SECRET_011', () => {
  it.each([
    ['a made-up key', 'made-up-secret-0123456789', /this one does not start with `sk_`/],
    ['a secret key of another organisation', 'sk_org_of_someone_else_42', /this one starts with `sk_`/],
  ])('%s: names the public API, the sk_ prefix, never the key', async (_, secretKey, has) => {
    const api = new PublicApiClient({ secretKey, baseUrl: `${sandbox.url}/api/v1` });
    const e = await refusal(() => api.templates.create('app_1', orderShippedDefinition));
    expect(e).toBeInstanceOf(AuthenticationError);
    expect(e.code).toBe('ORGANIZATION_SECRET_011');
    expect(e.message).toContain(`The public API at ${sandbox.url} did not accept this secret key`);
    expect(e.message).toMatch(has);
    expect(`${e.message} ${JSON.stringify(e)}`).not.toContain(secretKey);
  });
});
