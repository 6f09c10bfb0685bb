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

function post(url: string, headers: Record<string, string>, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/__sandbox/inject`, { method: 'POST', headers }, (res) => {
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
