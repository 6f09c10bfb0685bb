/**
 * Bun (the `bun` package's binary): the webhook handler behind `Bun.serve` on 127.0.0.1 and validateTemplate,
 * from a bundle built with Bun's `bun` condition. Requests go over real HTTP from this Node process.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deliveryTests, templateTests } from './deliveries.js';
import { type RuntimeServer, serveUnder } from './serve.js';

const app = new URL('./apps/bun.ts', import.meta.url).pathname;

describe('Bun', () => {
  let server: RuntimeServer;
  beforeAll(async () => {
    server = await serveUnder('bun', app, (file) => ['run', file]);
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
  });

  it('the Bun bundle imports no Node built-in', () => {
    expect(server.bundle.nodeImports).toEqual([]);
  });

  deliveryTests('bun', () => server.url);
  templateTests(() => server.url);
});
