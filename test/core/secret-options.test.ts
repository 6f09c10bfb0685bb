/**
 * One description of a refused secret for every client (issue 23): what was given (never the value) and what to
 * do about it, worded the same for the gateway key, the public API key, the platform token and password, and the
 * webhook secret.
 */
import { describe, expect, it } from 'vitest';
import { GatewayClient, PublicApiClient } from '../../src/index.js';
import { PlatformClient, type PlatformClientOptions } from '../../src/platform/index.js';
import { createNodeWebhookHandler } from '../../src/webhooks/index.js';
import { configurationMessage } from '../helpers/configuration-message.js';

const KEY = 'pk_live_0123456789abcdef';
const platform = { platformUrl: 'https://platform.test', streamUrl: 'https://stream.test' };

const gateway = (apiKey: unknown) => () =>
  new GatewayClient({ apiKey: apiKey as string, baseUrl: 'https://gw.test' });
const publicApi = (secretKey: unknown) => () =>
  new PublicApiClient({ secretKey: secretKey as string, baseUrl: 'https://api.test/api/v1' });
const platformClient = (options: object) => () =>
  new PlatformClient({ ...platform, ...options } as PlatformClientOptions);
const webhook = (secret: unknown) => () =>
  createNodeWebhookHandler({ secret: secret as string, onEvent() {} });

describe('a refused secret is described once, for every client', () => {
  it.each([
    ['apiKey', gateway(`Bearer ${KEY}`), 'Bearer'],
    ['secretKey', publicApi(`Bearer ${KEY}`), 'Bearer'],
    ['token', platformClient({ token: `JWT ${KEY}` }), 'JWT'],
    ['webhook secret', webhook(`Bearer ${KEY}`), 'Bearer'],
  ])('%s pasted with its scheme: told to drop the prefix, the value never repeated', (_, create, scheme) => {
    const message = configurationMessage(create);
    expect(message).toContain(`without the \`${scheme} \` prefix`);
    expect(message).toContain('a space or a non-ASCII character');
    expect(message).not.toContain(KEY);
  });

  it.each([
    ['apiKey', gateway(undefined), 'GATEWAY_API_KEY'],
    ['password', platformClient({ username: 'ops', password: '' }), 'PLATFORM_PASSWORD'],
    ['webhook secret', webhook(undefined), 'WEBHOOK_SECRET'],
  ])('%s unset: names the variable to set', (_, create, env) => {
    expect(configurationMessage(create)).toContain(`from the ${env} environment variable`);
  });

  it.each([
    ['apiKey', gateway(`${KEY}\n`)],
    ['secretKey', publicApi(` ${KEY}`)],
    ['token', platformClient({ token: `${KEY}\r\n` })],
    ['webhook secret', webhook(`${KEY}\n`)],
  ])('%s with whitespace at an end: told to trim it', (_, create) => {
    const message = configurationMessage(create);
    expect(message).toContain('whitespace at an end');
    expect(message).toContain('.trim()');
    expect(message).not.toContain(KEY);
  });

  it('a key with a non-ASCII character is refused at construction, not at the first request', () => {
    expect(configurationMessage(gateway('pk_live_clé_0123456789'))).toMatch(
      /apiKey must be .*visible ASCII.*non-ASCII/,
    );
  });
});
