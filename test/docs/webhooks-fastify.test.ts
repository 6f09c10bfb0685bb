/**
 * docs/webhooks.md, "Fastify", on a real Fastify on 127.0.0.1: the mount the page shows (its `fastify.ts` block, run
 * as written) lets the SDK answer every delivery itself, where Fastify's own parser answers 413, 400 and 415 before
 * the SDK sees the request; and the page's fallback (the parsed mount with `bodyLimit` above `maxBodyBytes`) lets
 * the SDK answer a large body.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { messageEnvelope, textMessage } from '../../src/testing/index.js';
import { createNodeWebhookHandler } from '../../src/webhooks/index.js';
import { captureLogger } from '../helpers/capture-logger.js';
import { extractBlocks } from './blocks.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
// Under the repository, so the block's `fastify` resolves from its node_modules; one directory per run.
const OUT = join(ROOT, '.tmp', `docs-fastify-${process.pid}`);
const SECRET = 'docs-fastify-webhook-secret-0123456789abc';
const PATH = '/webhooks/whatsapp';

const json = { 'content-type': 'application/json', authorization: `Bearer ${SECRET}` };
const valid = () => JSON.stringify(messageEnvelope(textMessage()));
// Over the SDK's default maxBodyBytes and Fastify's default bodyLimit (both 1 MiB).
const large = () => JSON.stringify(messageEnvelope(textMessage({ text: { body: 'y'.repeat(1_100_000) } })));
const malformed = '{"object":"whatsapp_business_account","entry":[';
// A Blob without a type: fetch sends no Content-Type (a string body would go as text/plain).
const untyped = () => new Blob([valid()]);
const bearer = { authorization: `Bearer ${SECRET}` };

async function listen(app: FastifyInstance): Promise<string> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  return `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
}

async function post(url: string, body: string | Blob, headers: Record<string, string> = json) {
  const res = await fetch(`${url}${PATH}`, { method: 'POST', headers, body });
  return [res.status, await res.text()] as const;
}

let app: FastifyInstance | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await app?.close();
  app = undefined;
});
afterAll(() => rmSync(OUT, { recursive: true, force: true }));

describe("the docs' Fastify mount: the SDK reads the body itself", () => {
  let block: string;
  beforeAll(() => {
    const page = readFileSync(join(ROOT, 'docs/webhooks.md'), 'utf8');
    const found = extractBlocks('docs/webhooks.md', page).find((b) => b.file === 'webhooks/fastify.ts');
    if (!found) throw new Error('docs/webhooks.md has no block named fastify.ts');
    block = found.code.replace(
      "'wa-gateway-sdk/webhooks'",
      JSON.stringify(join(ROOT, 'src/webhooks/index.ts')),
    );
    mkdirSync(OUT, { recursive: true });
  });

  /** The block as the page shows it, imported fresh (it reads $WEBHOOK_SECRET when imported). */
  async function docsApp(): Promise<FastifyInstance> {
    const file = join(OUT, `fastify-${Math.random().toString(36).slice(2)}.ts`);
    writeFileSync(file, block);
    const saved = process.env['WEBHOOK_SECRET'];
    process.env['WEBHOOK_SECRET'] = SECRET;
    try {
      return ((await import(pathToFileURL(file).href)) as { default: FastifyInstance }).default;
    } finally {
      if (saved === undefined) delete process.env['WEBHOOK_SECRET'];
      else process.env['WEBHOOK_SECRET'] = saved;
    }
  }

  it('a delivery reaches onEvent; a large, malformed or untyped body is answered by the SDK, which logs it', async () => {
    const lines: string[] = [];
    for (const level of ['log', 'warn', 'error'] as const)
      vi.spyOn(console, level).mockImplementation((...args: unknown[]) => void lines.push(String(args[0])));
    app = await docsApp();
    // Another route of the app, outside the webhook's scope, still gets Fastify's JSON parser.
    app.post('/orders', async (request) => ({ parsed: request.body }));
    const url = await listen(app);

    expect(await post(url, valid())).toEqual([200, '{"ok":true}']);
    expect(lines).toEqual(['message']);
    lines.length = 0;
    expect(await post(url, large())).toEqual([413, '{"ok":false,"error":"payload_too_large"}']);
    expect(lines).toEqual([expect.stringContaining('over maxBodyBytes refused with 413')]);
    lines.length = 0;
    expect(await post(url, malformed)).toEqual([400, '{"ok":false,"error":"invalid_body"}']);
    expect(lines).toEqual([expect.stringContaining('not valid JSON')]);
    lines.length = 0;
    expect(await post(url, untyped(), bearer)).toEqual([200, '{"ok":true}']);
    expect(lines).toEqual(['message']);

    const orders = await fetch(`${url}/orders`, { method: 'POST', headers: json, body: '{"id":1042}' });
    expect(await orders.json()).toEqual({ parsed: { id: 1042 } });
    // No GET handshake to answer: a GET never reaches the handler on a POST route (Fastify answers 404 itself).
    const get = await fetch(`${url}${PATH}?hub.mode=subscribe&hub.verify_token=x&hub.challenge=1`);
    expect(get.status).toBe(404);
    expect(lines).toEqual(['message']);
  });
});

describe('the parsed mount: Fastify answers before the SDK, unless bodyLimit is raised', () => {
  function parsedMount(routeOptions: { bodyLimit?: number }) {
    const captured = captureLogger();
    const handler = createNodeWebhookHandler({
      secret: SECRET,
      logger: captured.logger,
      onEvent: () => undefined,
    });
    app = Fastify();
    app.post(PATH, routeOptions, (request, reply) => {
      reply.hijack();
      return handler(Object.assign(request.raw, { body: request.body }), reply.raw);
    });
    return captured;
  }

  it("Fastify's 413, 400 and 415 with the default bodyLimit, the SDK never told", async () => {
    const logger = parsedMount({});
    const url = await listen(app!);
    expect(await post(url, valid())).toEqual([200, '{"ok":true}']);
    expect((await post(url, large()))[1]).toContain('FST_ERR_CTP_BODY_TOO_LARGE');
    expect((await post(url, malformed))[1]).toContain('FST_ERR_CTP_INVALID_JSON_BODY');
    const gzipped = new Blob([gzipSync(valid())], { type: 'application/json' });
    expect((await post(url, gzipped, { ...bearer, 'content-encoding': 'gzip' }))[1]).toContain(
      'FST_ERR_CTP_INVALID_JSON_BODY',
    );
    expect((await post(url, untyped(), bearer))[1]).toContain('FST_ERR_CTP_INVALID_MEDIA_TYPE');
    expect(logger.messages()).toEqual([]);
  });

  it('with bodyLimit above maxBodyBytes, a large body gets the SDK’s 413 and its log line', async () => {
    const logger = parsedMount({ bodyLimit: 2 * 1024 * 1024 });
    const url = await listen(app!);
    expect(await post(url, large())).toEqual([413, '{"ok":false,"error":"payload_too_large"}']);
    expect(logger.messages()).toEqual([expect.stringContaining('over maxBodyBytes refused with 413')]);
  });
});
