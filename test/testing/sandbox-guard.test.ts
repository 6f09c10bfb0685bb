/**
 * `POST /__sandbox/inject` delivers an authenticated webhook to the developer's app, so a web page the developer
 * visits must not be able to trigger it: the inbox's Host, Origin and application/json checks apply to it.
 */
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/testing/index.js';
import { closeAll } from '../helpers/close-all.js';

let sandbox: Sandbox | undefined;
let receiver: Server | undefined;
afterEach(async () => {
  await closeAll(sandbox, receiver);
  sandbox = receiver = undefined;
});

function post(
  url: string,
  headers: Record<string, string>,
  body: string,
  path = '/__sandbox/inject',
  method = 'POST',
): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}${path}`, { method, headers }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(body);
  });
}

it('refuses a text/plain, foreign-Origin or foreign-Host inject, and the webhook receives nothing', async () => {
  const received: string[] = [];
  receiver = createServer((req, res) => {
    received.push(req.headers.authorization ?? '');
    req.resume();
    res.writeHead(200).end();
  });
  await new Promise<void>((r) => receiver!.listen(0, '127.0.0.1', r));
  sandbox = await startSandbox({
    webhookUrl: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/`,
    webhookSecret: 'sandbox-guard-secret-0123456789abcdef',
  });
  const body = JSON.stringify({ from: '998901234567', type: 'text', text: { body: 'forged' } });
  const host = new URL(sandbox.url).host;

  // A no-cors fetch from https://evil.example: text/plain needs no preflight.
  expect(
    await post(sandbox.url, { 'content-type': 'text/plain', origin: 'https://evil.example' }, body),
  ).toBe(403);
  expect(await post(sandbox.url, { 'content-type': 'text/plain' }, body)).toBe(415);
  expect(
    await post(sandbox.url, { 'content-type': 'application/json', origin: 'https://evil.example' }, body),
  ).toBe(403);
  // DNS rebinding: evil.example resolved to 127.0.0.1, so the request is same-origin but its Host is foreign.
  expect(
    await post(
      sandbox.url,
      { 'content-type': 'application/json', host: `evil.example:${host.split(':')[1]}` },
      body,
    ),
  ).toBe(421);
  await sandbox.idle();
  expect(received).toEqual([]);

  // The CLI's own use (curl with application/json, or the inbox page itself) still works.
  expect(
    await post(sandbox.url, { 'content-type': 'application/json', origin: `http://${host}` }, body),
  ).toBe(202);
  await sandbox.idle();
  expect(received).toHaveLength(1);
});

const SEND = JSON.stringify({
  messaging_product: 'whatsapp',
  to: '998901234567',
  type: 'text',
  text: { body: 'x' },
});
const SEND_HEADERS = { authorization: 'Bearer sk_test_sandbox', 'content-type': 'application/json' };

it("refuses the gateway's routes (send, template create, media) at a foreign Host: a rebound page cannot send with the test key", async () => {
  sandbox = await startSandbox();
  const port = new URL(sandbox.url).port;
  const auth = SEND_HEADERS;
  const evil = { ...auth, host: `evil.example:${port}` };
  expect(await post(sandbox.url, evil, SEND, '/v1/wa/message')).toBe(421);
  const template = JSON.stringify({ name: 'x', language: 'en_US', category: 'UTILITY', body: { text: 'x' } });
  const orgAuth = { authorization: 'Bearer sk_org_sandbox', 'content-type': 'application/json' };
  expect(
    await post(
      sandbox.url,
      { ...orgAuth, host: `evil.example:${port}` },
      template,
      '/api/v1/wa/app_1/templates',
    ),
  ).toBe(421);
  expect(await post(sandbox.url, evil, '', '/v1/wa/media/m1', 'GET')).toBe(421);
  expect(sandbox.simulator.sent).toHaveLength(0);
  // Addressed to the sandbox by its loopback name or address, as a GatewayClient does: served.
  expect(await post(sandbox.url, auth, SEND, '/v1/wa/message')).toBe(200);
  expect(await post(sandbox.url, { ...auth, host: `localhost:${port}` }, SEND, '/v1/wa/message')).toBe(200);
  expect(sandbox.simulator.sent).toHaveLength(2);
});

it('a sandbox bound to another address than loopback (a container) serves sends at any Host', async () => {
  sandbox = await startSandbox({ host: '0.0.0.0' });
  const port = new URL(sandbox.url).port;
  const headers = SEND_HEADERS;
  expect(
    await post(
      `http://127.0.0.1:${port}`,
      { ...headers, host: `host.docker.internal:${port}` },
      SEND,
      '/v1/wa/message',
    ),
  ).toBe(200);
});
