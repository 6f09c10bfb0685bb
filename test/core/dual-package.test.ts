/**
 * The dual-package hazard, with a real app: one Node process that imports the ESM build and requires the CJS
 * build of the SDK (two copies of every class) must still answer `instanceof` right across them. And the
 * optional peer: a copy of the SDK in a directory where `@opentelemetry/api` cannot be resolved still sends.
 *
 * The two builds are made here with esbuild, as tsup makes dist/ (same formats and target), into a scratch
 * directory outside the repository: the test needs no prior `npm run build` and no node_modules beside it.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../helpers/http-server.js';

const run = promisify(execFile);
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wa-gateway-dual-'));
  const common = {
    entryPoints: ['src/index.ts'],
    bundle: true,
    platform: 'node' as const,
    target: 'node20',
    logLevel: 'silent' as const,
  };
  await Promise.all([
    build({ ...common, format: 'esm', outfile: join(dir, 'index.mjs') }),
    build({ ...common, format: 'cjs', outfile: join(dir, 'index.cjs') }),
  ]);
}, 60_000);
afterAll(() => rm(dir, { recursive: true, force: true }));

async function node(script: string, env: Record<string, string> = {}): Promise<unknown> {
  const file = join(dir, `app-${Math.random().toString(36).slice(2)}.mjs`);
  await writeFile(file, script);
  const { stdout } = await run(process.execPath, [file], { cwd: dir, env: { ...process.env, ...env } });
  return JSON.parse(stdout);
}

describe('one app, both builds', () => {
  it('instanceof holds across the ESM and CJS copies, for the base class and every subclass level', async () => {
    const result = await node(`
      import { createRequire } from 'node:module';
      import * as esm from './index.mjs';
      const cjs = createRequire(import.meta.url)('./index.cjs');
      const details = { status: 429, code: 'RATE_001', group: 'RATE', description: 'slow', body: null };
      const fromCjs = new cjs.RateLimitError(details);
      const fromEsm = new esm.TimeoutError('late', { mayHaveBeenSent: false, timeoutMs: 1 });
      const streamCut = new cjs.StreamInterruptedError('cut', { recordsDelivered: 1, lastCreatedAt: undefined });
      console.log(JSON.stringify({
        twoCopies: esm.WaGatewayError !== cjs.WaGatewayError,
        cjsInEsm: [fromCjs instanceof esm.WaGatewayError, fromCjs instanceof esm.ApiError, fromCjs instanceof esm.RateLimitError],
        esmInCjs: [fromEsm instanceof cjs.WaGatewayError, fromEsm instanceof cjs.ConnectionError, fromEsm instanceof cjs.TimeoutError],
        outsideFile: [streamCut instanceof esm.StreamError, streamCut instanceof esm.StreamInterruptedError],
        negatives: [
          fromCjs instanceof esm.ConnectionError,
          fromCjs instanceof esm.InternalServerError,
          fromEsm instanceof cjs.ApiError,
          new esm.ApiError(details) instanceof cjs.RateLimitError,
          new Error('plain') instanceof cjs.WaGatewayError,
          null instanceof cjs.WaGatewayError,
        ],
      }));
    `);
    expect(result).toEqual({
      twoCopies: true,
      cjsInEsm: [true, true, true],
      esmInCjs: [true, true, true],
      outsideFile: [true, true],
      negatives: [false, false, false, false, false, false],
    });
  });

  it("a client's one-process limiter is a RateLimiter to either copy (CampaignQueue.work refuses it by that)", async () => {
    const result = await node(`
      import { createRequire } from 'node:module';
      import * as esm from './index.mjs';
      const cjs = createRequire(import.meta.url)('./index.cjs');
      const fromCjs = new cjs.GatewayClient({ apiKey: 'pk_x', baseUrl: 'http://127.0.0.1:1', logLevel: 'off' });
      const fromEsm = new esm.GatewayClient({ apiKey: 'pk_x', baseUrl: 'http://127.0.0.1:1', logLevel: 'off' });
      class Mine extends esm.RateLimiter {}
      console.log(JSON.stringify({
        twoCopies: esm.RateLimiter !== cjs.RateLimiter,
        across: [fromCjs.rateLimiter instanceof esm.RateLimiter, fromEsm.rateLimiter instanceof cjs.RateLimiter],
        negatives: [
          { acquire: async () => () => {}, perSecond: 1 } instanceof esm.RateLimiter,
          null instanceof esm.RateLimiter,
          fromCjs.rateLimiter instanceof Mine,
          // Another kind of one-process object carries its own mark, never the limiter's.
          new cjs.MemorySuppressionList() instanceof esm.RateLimiter,
        ],
      }));
    `);
    expect(result).toEqual({
      twoCopies: true,
      across: [true, true],
      negatives: [false, false, false, false],
    });
  });

  it('without @opentelemetry/api resolvable, a client loads and sends (tracing is simply off)', async () => {
    const server = await startServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ isSuccess: true, data: { messages: [{ id: 'wamid.X' }], contacts: [] } }));
    });
    try {
      const result = await node(`
        import { GatewayClient } from './index.mjs';
        let resolvable = true;
        try { await import('@opentelemetry/api'); } catch { resolvable = false; }
        const gw = new GatewayClient({ apiKey: 'pk_x', baseUrl: ${JSON.stringify(server.url)}, logLevel: 'off' });
        const first = await gw.messages.send({ to: '998901234567', type: 'text', text: { body: 'hi' } });
        const second = await gw.messages.send({ to: '998901234567', type: 'text', text: { body: 'hi' } });
        console.log(JSON.stringify({ resolvable, ids: [first.messageId, second.messageId] }));
      `);
      expect(result).toEqual({ resolvable: false, ids: ['wamid.X', 'wamid.X'] });
    } finally {
      await server.close();
    }
  });
});
