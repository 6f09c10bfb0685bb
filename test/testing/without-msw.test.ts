import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// `wa-gateway-sdk/testing` must import where msw (an optional peer) is not installed, from ESM and from CJS:
// the sandbox, fixtures and signer need nothing but Node. Only the msw handler factories need msw, and they say
// so with a typed error. The entry is bundled with msw left external into a directory that has no
// node_modules, then loaded by a fresh node process, as a user's app without msw would load it.

const entry = fileURLToPath(new URL('../../src/testing/index.ts', import.meta.url));
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'wa-no-msw-'));
  for (const format of ['esm', 'cjs'] as const) {
    await build({
      entryPoints: [entry],
      bundle: true,
      platform: 'node',
      target: 'node20',
      format,
      outfile: join(dir, format === 'esm' ? 'testing.mjs' : 'testing.cjs'),
      external: ['msw', 'msw/*'],
      logLevel: 'silent',
    });
  }
}, 30_000);

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** What the script printed: the entry's exports it saw, and what using the msw handlers threw. */
function run(script: string, ext: 'mjs' | 'cjs'): { startSandbox: string; error: Record<string, unknown> } {
  const file = join(dir, `check.${ext}`);
  writeFileSync(file, script);
  return JSON.parse(execFileSync(process.execPath, [file], { cwd: dir, encoding: 'utf8' }));
}

const probe = `
  const out = { startSandbox: typeof m.startSandbox, error: {} };
  for (const make of [() => m.createGatewayHandlers({ baseUrl: 'https://gw.test' }), () => m.createPublicApiHandlers({ baseUrl: 'https://api.test/api/v1' }), () => m.createPlatformHandlers({ platformUrl: 'https://p.test', streamUrl: 'https://s.test' })]) {
    try { make(); out.error.none = true; } catch (e) { out.error[e.name] = e.packageName; out.error.message = e.message; }
  }
  console.log(JSON.stringify(out));
`;

describe('wa-gateway-sdk/testing without msw installed', () => {
  it('imports from ESM; the msw handlers throw MissingDependencyError naming msw', () => {
    const out = run(`const m = await import('./testing.mjs');\n${probe}`, 'mjs');
    expect(out.startSandbox).toBe('function');
    expect(out.error).toMatchObject({ MissingDependencyError: 'msw' });
    expect(out.error['none']).toBeUndefined();
    expect(out.error['message']).toContain('npm install --save-dev msw');
  });

  it('requires from CJS; the msw handlers throw MissingDependencyError naming msw', () => {
    const out = run(`const m = require('./testing.cjs');\n${probe}`, 'cjs');
    expect(out.startSandbox).toBe('function');
    expect(out.error).toMatchObject({ MissingDependencyError: 'msw' });
    expect(out.error['none']).toBeUndefined();
  });

  it('the sandbox starts and stops without msw', () => {
    const out = execFileSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `const { startSandbox } = await import(${JSON.stringify(join(dir, 'testing.mjs'))});
         const sb = await startSandbox({ port: 0 });
         console.log(typeof sb.url);
         await sb.close();`,
      ],
      { cwd: dir, encoding: 'utf8' },
    );
    expect(out.trim().split('\n').at(-1)).toBe('string');
  });
});
