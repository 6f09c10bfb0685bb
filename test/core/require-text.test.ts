/**
 * `requireText`, the one rule for a text argument a call cannot go without, at each call that uses it: an empty,
 * blank or missing value is a `MessageValidationError` with rule `<name>.required` and no request at all.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GatewayClient, PlatformClient, PublicApiClient } from '../../src/index.js';
import { startServer } from '../helpers/http-server.js';
import { refusal } from '../helpers/refusal.js';

let server: Awaited<ReturnType<typeof startServer>>;
let base = '';
let hits = 0;

beforeAll(async () => {
  server = await startServer((_req, res) => {
    hits += 1;
    res.writeHead(500).end();
  });
  base = server.url;
});
afterAll(() => server.close());

describe('requireText at every call that takes a required text', () => {
  const blank = ['', '   ', undefined] as const;

  it.each(blank)('media.download(%j): mediaId.required, and phoneNumberId.required', async (value) => {
    const gw = new GatewayClient({ apiKey: 'pk_test_0123456789abcdef', baseUrl: base, rateLimit: false });
    const id = await refusal(() => gw.media.download(value as string, { phoneNumberId: '1001' }));
    expect(id.issues[0]).toMatchObject({ path: ['mediaId'], rule: 'mediaId.required' });
    expect(id.issues[0]?.message).toMatch(
      value === undefined ? /^is missing: give the media id/ : /^is empty/,
    );
    const phone = await refusal(() => gw.media.download('media.1', { phoneNumberId: value as string }));
    expect(phone.issues[0]).toMatchObject({ path: ['phoneNumberId'], rule: 'phoneNumberId.required' });
  });

  it.each(blank)('conversations.assignToGroup(uuid, %j): groupName.required', async (value) => {
    const platform = new PlatformClient({ platformUrl: base, streamUrl: base, username: 'u', password: 'p' });
    const uuid = '123e4567-e89b-42d3-a456-426614174000';
    const error = await refusal(() => platform.conversations.assignToGroup(uuid, value as string));
    expect(error.issues[0]).toMatchObject({ path: ['groupName'], rule: 'groupName.required' });
  });

  it.each(blank)('templates.create(%j, ...): appId.required', async (value) => {
    const api = new PublicApiClient({ secretKey: 'sk_test_0123456789abcdef', baseUrl: `${base}/api/v1` });
    const template = { name: 'x', language: 'en', category: 'UTILITY', components: [] } as never;
    const error = await refusal(() => api.templates.create(value as string, template));
    expect(error.issues[0]).toMatchObject({ path: ['appId'], rule: 'appId.required' });
  });

  it('sent nothing at all', () => {
    expect(hits).toBe(0);
  });
});
