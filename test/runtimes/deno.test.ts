/**
 * Deno (the `deno` package's binary): the webhook handler behind `Deno.serve` on 127.0.0.1 and validateTemplate,
 * from a bundle built with the `deno` condition, run with `--allow-net` only. Requests go over real HTTP from this Node process.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliveryTests, templateTests } from './deliveries.js';
import { type RuntimeServer, serveUnder } from './serve.js';

const app = new URL('./apps/deno.ts', import.meta.url).pathname;

describe('Deno', () => {
  let server: RuntimeServer;
  beforeAll(async () => {
    server = await serveUnder('deno', app, (file) => ['run', '--allow-net=127.0.0.1', '--no-prompt', file]);
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
  });

  it('the Deno bundle imports no Node built-in', () => {
    expect(server.bundle.nodeImports).toEqual([]);
  });

  deliveryTests('deno', () => server.url);
  templateTests(() => server.url);
});
