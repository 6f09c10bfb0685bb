/**
 * `wa-gateway templates check|push|types <dir>`, run as users run it: the real bin in its own process, against a
 * real sandbox on 127.0.0.1 for push.
 */
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import ts from 'typescript';
import { afterEach, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/testing/index.js';
import { orderShippedDefinition } from '../helpers/template-definitions.js';

const bin = fileURLToPath(new URL('../../src/cli/bin.ts', import.meta.url));
const root = fileURLToPath(new URL('../..', import.meta.url));

function run(args: string[], env: Record<string, string> = {}) {
  return promisify(execFile)(process.execPath, ['--import', 'tsx', bin, ...args], {
    env: { ...process.env, ...env },
  }).then(
    (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
    (e: { code: number; stdout: string; stderr: string }) => ({
      code: e.code,
      stdout: e.stdout,
      stderr: e.stderr,
    }),
  );
}

const orderShipped = orderShippedDefinition;
const hello = { name: 'hello', language: 'uz', category: 'UTILITY', body: { text: 'Salom!' } };

const dirs: string[] = [];
let sandbox: Sandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

async function folder(files: Record<string, unknown>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'wa-templates-'));
  dirs.push(dir);
  for (const [name, content] of Object.entries(files)) {
    await mkdir(join(dir, name, '..'), { recursive: true });
    await writeFile(
      join(dir, name),
      typeof content === 'string' ? content : JSON.stringify(content, null, 2),
    );
  }
  return dir;
}

describe('wa-gateway templates check', () => {
  it('exits 0 on valid definitions, and non-zero with the codes on an invalid one', async () => {
    const good = await folder({ 'order_shipped.json': orderShipped, 'greetings/hello.json': hello });
    const ok = await run(['templates', 'check', good]);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain('hello.json: valid');

    const bad = await folder({
      'order_shipped.json': orderShipped,
      'broken.json': { ...orderShipped, name: 'broken', body: { text: 'Hi {{1}} and {{2}} ok' } },
      'again.json': orderShipped,
    });
    const failed = await run(['templates', 'check', bad]);
    expect(failed.code).toBe(1);
    expect(failed.stdout).toContain('WA_TPL_013'); // body variables without examples
    expect(failed.stdout).toContain('[body.examples.missing]');
    expect(failed.stderr).toContain('[templates.duplicate]');
  }, 60_000);

  it('a usage error exits 2', async () => {
    expect((await run(['templates', 'frob', '.'])).code).toBe(2);
  }, 30_000);
});

describe('wa-gateway templates push', () => {
  it('creates each template once, however often it runs, and prints a table', async () => {
    sandbox = await startSandbox({ platform: false });
    const s = sandbox;
    s.templates.plan('order_shipped', { outcome: 'PENDING' });
    s.templates.plan('hello', { outcome: 'PENDING' });
    const dir = await folder({ 'order_shipped.json': orderShipped, 'hello.json': hello });
    const env = { PUBLIC_API_SECRET_KEY: 'sk_org_sandbox', PUBLIC_API_BASE_URL: `${s.url}/api/v1` };

    const first = await run(['templates', 'push', dir, '--app', 'app_1'], env);
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(/^name\s+language\s+result\s+status\s+sourceId$/m);
    expect(first.stdout).toMatch(/^order_shipped\s+en_US\s+created\s+PENDING\s+\d+$/m);
    expect(first.stdout).toMatch(/^hello\s+uz\s+created\s+PENDING\s+\d+$/m);
    expect(s.templates.templates).toHaveLength(2);

    const second = await run(['templates', 'push', dir, '--app', 'app_1'], env);
    expect(second.code).toBe(0);
    expect(second.stdout).toMatch(/^order_shipped\s+en_US\s+skipped/m);

    // Without the recorded state (another machine, a fresh checkout): 409 UPSTREAM_017 means it exists.
    const third = await run(
      ['templates', 'push', dir, '--app', 'app_1', '--state', join(dir, '.other.json')],
      env,
    );
    expect(third.code).toBe(0);
    expect(third.stdout).toMatch(/^order_shipped\s+en_US\s+exists/m);
    expect(s.templates.templates).toHaveLength(2);
  }, 60_000);

  it('a refused key fails the row and the exit code', async () => {
    sandbox = await startSandbox({ platform: false });
    const dir = await folder({ 'hello.json': hello });
    const env = { PUBLIC_API_SECRET_KEY: 'sk_org_wrong', PUBLIC_API_BASE_URL: `${sandbox.url}/api/v1` };
    const result = await run(['templates', 'push', dir, '--app', 'app_1'], env);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^hello\s+uz\s+failed/m);
    expect(result.stderr).not.toContain('sk_org_wrong');
  }, 60_000);
});

describe('wa-gateway templates types', () => {
  it('writes a .d.ts that gives JSON definitions the types of defineTemplate', async () => {
    const dir = await folder({ 'order_shipped.json': orderShipped });
    const written = await run(['templates', 'types', dir]);
    expect(written.code).toBe(0);
    expect((await run(['templates', 'types', dir, '--check'])).code).toBe(0);
    const dts = await readFile(join(dir, 'templates.d.ts'), 'utf8');
    expect(dts).toContain('"order_shipped/en_US"');

    // A consumer compiled against the generated file: one body value short does not compile.
    const probe = join(dir, 'probe.ts');
    await writeFile(
      probe,
      `import { defineTemplate, type GatewayClient } from '${join(root, 'src/index.js')}';
import type { TemplateDefinitions } from './templates.js';
declare const json: unknown;
declare const gw: GatewayClient;
const t = defineTemplate(json as TemplateDefinitions['order_shipped/en_US']);
gw.messages.sendTemplate('998901234567', t, { header: '#1', body: ['Ali', '#1'], buttons: { 0: '1042' } });
gw.messages.sendTemplate('998901234567', t, { header: '#1', body: ['Ali'], buttons: { 0: '1042' } });
`,
    );
    const program = ts.createProgram([probe], {
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      target: ts.ScriptTarget.ES2022,
      types: ['node'],
      typeRoots: [join(root, 'node_modules/@types')],
    });
    const errors = ts
      .getPreEmitDiagnostics(program)
      .filter((d) => d.file?.fileName === probe)
      .map((d) => `${d.file!.getLineAndCharacterOfPosition(d.start!).line + 1}`);
    expect(errors).toEqual(['7']);

    await writeFile(
      join(dir, 'order_shipped.json'),
      JSON.stringify({ ...orderShipped, category: 'MARKETING' }),
    );
    expect((await run(['templates', 'types', dir, '--check'])).code).toBe(1);
  }, 120_000);
});
