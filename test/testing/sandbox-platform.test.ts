/**
 * The sandbox serves the conversation platform beside the gateway, over a real socket: a `PlatformClient` pointed
 * at `sandbox.platform` logs in, sends, archives and streams, and the simulator's state shows the effects.
 */
import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { AuthenticationError, GatewayClient, PlatformClient } from '../../src/index.js';
import { platformMessageRecord, type Sandbox, startSandbox } from '../../src/testing/index.js';

const CONV = '3f2b8c1e-4d5a-4b6c-9e7f-0a1b2c3d4e5f';
let sandbox: Sandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

const client = (s: Sandbox, password = 'secret-password') =>
  new PlatformClient({
    platformUrl: s.platform!.platformUrl,
    streamUrl: s.platform!.streamUrl,
    username: 'agent@example.com',
    password,
    maxRetries: 0,
  });

function post(url: string, headers: Record<string, string>, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('startSandbox serves the platform', () => {
  it('logs in, sends, archives and streams through a real PlatformClient; the gateway still answers', async () => {
    const seeded = Array.from({ length: 5 }, (_, i) =>
      platformMessageRecord({
        id: i + 1,
        created_at: `2024-05-01T09:00:0${i}.000000Z`,
        content: `m${i + 1}`,
      }),
    );
    sandbox = await startSandbox({ platform: { messages: seeded } });
    const platform = client(sandbox);

    await platform.messages.send(CONV, [{ type: 'text', content: 'hello from the sandbox' }]);
    await platform.conversations.archive(CONV);
    const streamed: string[] = [];
    for await (const m of platform.messages.stream({ created_at__gt: '2024-05-01T00:00:00Z' })) {
      streamed.push(String(m.content));
    }

    const state = sandbox.platform!.simulator.state;
    expect(state.logins).toHaveLength(1);
    expect(state.sentMessages.get(CONV)).toEqual([{ type: 'text', content: 'hello from the sandbox' }]);
    expect(state.archived.has(CONV)).toBe(true);
    expect(streamed.slice(0, 5)).toEqual(['m1', 'm2', 'm3', 'm4', 'm5']);
    expect(streamed).toContain('hello from the sandbox');

    const gw = new GatewayClient({ apiKey: 'sk_test_sandbox', baseUrl: sandbox.url });
    const sent = await gw.messages.send({ to: '998901234567', type: 'text', text: { body: 'hi' } });
    expect(sent.messageId).toMatch(/^wamid\./);
  });

  it('refuses a wrong password with the platform answer, as the real server would', async () => {
    sandbox = await startSandbox();
    await expect(client(sandbox, 'not-the-password').auth.login()).rejects.toBeInstanceOf(
      AuthenticationError,
    );
    expect(sandbox.platform!.simulator.state.logins).toHaveLength(0);
  });

  it('refuses a cross-site login (foreign Origin, or not JSON) before the simulator sees it', async () => {
    sandbox = await startSandbox();
    const login = `${sandbox.platform!.platformUrl}/jwt/`;
    const body = JSON.stringify({ username: 'agent@example.com', password: 'secret-password' });
    expect(
      await post(login, { 'content-type': 'application/json', origin: 'https://evil.example' }, body),
    ).toBe(403);
    expect(await post(login, { 'content-type': 'text/plain' }, body)).toBe(415);
    expect(sandbox.platform!.simulator.state.requests).toHaveLength(0);
    expect(await post(login, { 'content-type': 'application/json' }, body)).toBe(200);
  });

  it('serves no platform with platform: false', async () => {
    sandbox = await startSandbox({ platform: false });
    expect(sandbox.platform).toBeUndefined();
    const res = await fetch(`${sandbox.url}/platform/jwt/`, { method: 'POST' });
    expect(res.status).toBe(404);
  });
});
