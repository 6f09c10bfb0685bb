/**
 * Cloudflare Workers: the webhook handler and validateTemplate built as a Worker bundle (esbuild with the
 * `workerd`/`worker`/`browser` conditions, as wrangler resolves) and run in workerd through miniflare, which ships
 * the workerd binary. Requests go over real HTTP to the workerd socket.
 */
import { Miniflare } from 'miniflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleFor, type TargetBundle } from '../../bench/bundle-size.js';
import { deliveryTests, templateTests } from './deliveries.js';

const app = new URL('./apps/worker.ts', import.meta.url).pathname;

describe('Cloudflare Workers (workerd via miniflare)', () => {
  let bundle: TargetBundle;
  let mf: Miniflare;
  let url = '';

  beforeAll(async () => {
    bundle = await bundleFor(app, 'workerd');
    mf = new Miniflare({
      modules: true,
      script: bundle.code,
      compatibilityDate: '2025-01-01',
      host: '127.0.0.1',
      port: 0,
    });
    url = (await mf.ready).origin;
  }, 60_000);
  afterAll(async () => {
    await mf?.dispose();
  });

  it('the Worker bundle imports no Node built-in', () => {
    expect(bundle.nodeImports).toEqual([]);
  });

  deliveryTests('workerd', () => url);
  templateTests(() => url);
});
