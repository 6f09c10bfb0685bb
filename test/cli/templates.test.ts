/**
 * `wa-gateway templates check|push|types <dir|file>`, run as users run it: the CLI bundled as the package ships it
 * (esbuild, one ESM file, as tsup builds dist/cli.js), in its own process, against a real sandbox on 127.0.0.1 for
 * push. The bundle sits in a scratch folder outside the repository, so what it can import is what a user's
 * install gives it: `with-tsx/` has tsx beside it (the optional peer that loads TypeScript modules), `bare/` has
 * nothing.
 */
import { execFile } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import ts from 'typescript';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../src/testing/index.js';
import { bundleCli } from '../helpers/bundled-cli.js';
import { startServer } from '../helpers/http-server.js';
import { orderShippedDefinition } from '../helpers/template-definitions.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
let scratch: string;
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'wa-templates-cli-'));
  const cli = join(scratch, 'with-tsx', 'cli.mjs');
  await bundleCli(cli);
  await mkdir(join(scratch, 'with-tsx', 'node_modules'));
  await symlink(join(root, 'node_modules/tsx'), join(scratch, 'with-tsx', 'node_modules', 'tsx'));
  await mkdir(join(scratch, 'bare'));
  await copyFile(cli, join(scratch, 'bare', 'cli.mjs'));
}, 60_000);
afterAll(() => rm(scratch, { recursive: true, force: true }));

function run(args: string[], env: Record<string, string> = {}, cli: 'with-tsx' | 'bare' = 'with-tsx') {
  return promisify(execFile)(process.execPath, [join(scratch, cli, 'cli.mjs'), ...args], {
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

/**
 * A folder of `files` (a string is written as is, anything else as JSON). `in: 'repository'` puts it under the
 * repository's ignored `.tmp/`, so that its modules import the SDK's source by a relative path, as a user's import
 * the package.
 */
async function folder(files: Record<string, unknown>, where: { in?: 'repository' } = {}): Promise<string> {
  const parent = where.in === 'repository' ? join(root, '.tmp') : tmpdir();
  await mkdir(parent, { recursive: true });
  const dir = await mkdtemp(join(parent, 'wa-templates-'));
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

    // Approved since: nothing documented reads a status back, so a second run says it does not know, with what
    // the create answered and when, instead of a stale PENDING.
    const created = s.templates.templates.find((t) => t.name === 'order_shipped')!;
    await s.setTemplateStatus(created.sourceId, 'APPROVED');
    const second = await run(['templates', 'push', dir, '--app', 'app_1'], env);
    expect(second.code).toBe(0);
    const today = new Date().toISOString().slice(0, 10);
    expect(second.stdout).toMatch(
      new RegExp(
        `^order_shipped\\s+en_US\\s+skipped\\s+unknown \\(PENDING when created ${today}\\)\\s+\\d+$`,
        'm',
      ),
    );
    expect(second.stdout).not.toMatch(/skipped\s+PENDING/);
    expect(second.stderr).toContain(
      "status unknown: the public API's spec shows no call that reads a template's status",
    );

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

  // The state named no target: a push to production after staging printed `skipped` for every template and
  // created nothing there (the CLI audit).
  it('a push to another app or another API creates there, and each target keeps its own records', async () => {
    sandbox = await startSandbox({ platform: false });
    const production = await startSandbox({ platform: false });
    try {
      const dir = await folder({ 'hello.json': hello });
      const staging = {
        PUBLIC_API_SECRET_KEY: 'sk_org_sandbox',
        PUBLIC_API_BASE_URL: `${sandbox.url}/api/v1`,
      };
      const prod = {
        PUBLIC_API_SECRET_KEY: 'sk_org_sandbox',
        PUBLIC_API_BASE_URL: `${production.url}/api/v1/`,
      };
      expect((await run(['templates', 'push', dir, '--app', 'stg'], staging)).stdout).toMatch(
        /^hello\s+uz\s+created/m,
      );
      const there = await run(['templates', 'push', dir, '--app', 'prod'], prod);
      expect(there.code).toBe(0);
      expect(there.stdout).toMatch(/^hello\s+uz\s+created/m);
      expect(production.templates.templates.map((t) => t.name)).toEqual(['hello']);
      // Another app on the same API is another target too: its create is asked for (the sandbox, keyed by name
      // and language alone, answers 409 UPSTREAM_017).
      expect((await run(['templates', 'push', dir, '--app', 'app_2'], staging)).stdout).toMatch(
        /^hello\s+uz\s+exists/m,
      );
      // Each target's own record still skips.
      expect((await run(['templates', 'push', dir, '--app', 'stg'], staging)).stdout).toMatch(
        /^hello\s+uz\s+skipped/m,
      );
      expect((await run(['templates', 'push', dir, '--app', 'prod'], prod)).stdout).toMatch(
        /^hello\s+uz\s+skipped/m,
      );
      const records = JSON.parse(await readFile(join(dir, '.wa-templates-state.json'), 'utf8')) as {
        target: { app: string; api: string };
      }[];
      expect(records.map((r) => r.target).sort((a, b) => a.app.localeCompare(b.app))).toEqual([
        { app: 'app_2', api: `${sandbox.url}/api/v1` },
        { app: 'prod', api: `${production.url}/api/v1` },
        { app: 'stg', api: `${sandbox.url}/api/v1` },
      ]);
    } finally {
      await production.close();
    }
  }, 60_000);

  it("a state file's records that name no target (an older file) are kept, not read: the push asks the API", async () => {
    sandbox = await startSandbox({ platform: false });
    const dir = await folder({ 'hello.json': hello });
    const env = { PUBLIC_API_SECRET_KEY: 'sk_org_sandbox', PUBLIC_API_BASE_URL: `${sandbox.url}/api/v1` };
    await run(['templates', 'push', dir, '--app', 'app_1', '--state', join(dir, '.elsewhere.json')], env);
    const legacy = { name: 'hello', language: 'uz', sourceId: '1', status: 'PENDING', updatedAt: 1 };
    await writeFile(join(dir, '.wa-templates-state.json'), JSON.stringify([legacy]));
    const result = await run(['templates', 'push', dir, '--app', 'app_1'], env);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^hello\s+uz\s+exists/m);
    const records = JSON.parse(await readFile(join(dir, '.wa-templates-state.json'), 'utf8')) as unknown[];
    expect(records).toHaveLength(2);
    expect(records[0]).toEqual(legacy);
  }, 60_000);

  it('a PUBLIC_API_BASE_URL the client refuses is a usage error naming the variable (exit 2)', async () => {
    const dir = await folder({ 'hello.json': hello });
    const env = { PUBLIC_API_SECRET_KEY: 'sk_org_sandbox', PUBLIC_API_BASE_URL: 'https://api.example.com' };
    const result = await run(['templates', 'push', dir, '--app', 'app_1'], env);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('$PUBLIC_API_BASE_URL');
    expect(result.stderr).not.toMatch(/\bbaseUrl\b/);
  }, 30_000);

  // Each create waited out the client's 30 s, one after another: 40 templates held the push 20 minutes.
  it('against an API that never answers, --timeout bounds the first create and the rest are not tried', async () => {
    const silent = await startServer(() => {});
    try {
      const dir = await folder({ 'order_shipped.json': orderShipped, 'hello.json': hello });
      const env = { PUBLIC_API_SECRET_KEY: 'sk_org_sandbox', PUBLIC_API_BASE_URL: `${silent.url}/api/v1` };
      const result = await run(['templates', 'push', dir, '--app', 'app_1', '--timeout', '1'], env);
      expect(result.code).toBe(1);
      const failures = result.stderr.split('\n').filter((line) => /^(hello|order_shipped) /.test(line));
      expect(failures).toHaveLength(2);
      expect(failures.filter((line) => line.includes('1000 ms'))).toHaveLength(1);
      expect(
        failures.filter((line) =>
          line.includes('not tried: the public API did not answer an earlier create within 1 s'),
        ),
      ).toHaveLength(1);
    } finally {
      await silent.close();
    }
  }, 60_000);

  it("the client's retry lines are the command's own, one line each", async () => {
    const closed = await startServer(() => {});
    await closed.close(); // a port nothing listens on: refused, which is retried
    const dir = await folder({ 'hello.json': hello });
    const env = { PUBLIC_API_SECRET_KEY: 'sk_org_sandbox', PUBLIC_API_BASE_URL: `${closed.url}/api/v1` };
    const result = await run(['templates', 'push', dir, '--app', 'app_1'], env);
    expect(result.code).toBe(1);
    const retries = result.stderr.split('\n').filter((line) => line.includes('retrying request'));
    expect(retries.length).toBeGreaterThan(0);
    expect(retries[0]).toMatch(/^wa-gateway templates: retrying request \(.*attempt=\d/);
    // The lines after it may be folded into one ("1 more like it in 1 s"): one line too.
    for (const line of retries) expect(line).toMatch(/^wa-gateway templates: retrying request\b/);
    expect(result.stderr).not.toMatch(/^\s+method:/m);
    expect(result.stderr).not.toContain('sk_org_sandbox');
  }, 60_000);

  it('a state file it cannot write still prints the table, names what was created, and exits non-zero', async () => {
    sandbox = await startSandbox({ platform: false });
    const s = sandbox;
    const dir = await folder({ 'order_shipped.json': orderShipped, 'hello.json': hello });
    const env = { PUBLIC_API_SECRET_KEY: 'sk_org_sandbox', PUBLIC_API_BASE_URL: `${s.url}/api/v1` };
    const state = join(dir, 'no-such-folder', 'state.json');
    const result = await run(['templates', 'push', dir, '--app', 'app_1', '--state', state], env);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^name\s+language\s+result\s+status\s+sourceId$/m);
    // Both were created upstream: each row keeps its sourceId, and stderr says it was not recorded.
    expect(s.templates.templates).toHaveLength(2);
    for (const t of s.templates.templates) {
      expect(result.stdout).toMatch(
        new RegExp(`^${t.name}\\s+${t.language}\\s+failed\\s+-\\s+${t.sourceId}$`, 'm'),
      );
      expect(result.stderr).toContain(
        `${t.name} (${t.language}): created upstream (sourceId ${t.sourceId}), but not recorded in the store`,
      );
    }
    expect(result.stderr).toContain('ENOENT');
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
    // The probe's own diagnostics (the SDK's are `npm run typecheck`'s), not the whole program's: a fraction of the time.
    const file = program.getSourceFile(probe)!;
    const errors = [...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)].map(
      (d) => `${file.getLineAndCharacterOfPosition(d.start!).line + 1}`,
    );
    expect(errors).toEqual(['7']);

    await writeFile(
      join(dir, 'order_shipped.json'),
      JSON.stringify({ ...orderShipped, category: 'MARKETING' }),
    );
    expect((await run(['templates', 'types', dir, '--check'])).code).toBe(1);
  }, 120_000);
});

describe('templates as modules (.ts, .mts, .js, .mjs)', () => {
  // Imported from a folder of `.tmp/` (one level below it): the SDK's source as a user's module imports the package.
  const sdk = "'../../src/templates/index.js'";
  const orderShippedTs = `import { defineTemplate } from ${sdk};
export const orderShipped = defineTemplate(${JSON.stringify(orderShipped)});
const hello = { name: 'hello', language: 'uz', category: 'UTILITY', body: { text: 'Salom!' } } as const;
export default [orderShipped, hello];
export enum Kind { A, B } // TypeScript that needs transforming, not only type stripping
export const greet = (name: string): string => \`Hi \${name}\`;
`;

  it('check reads named, default and array exports; an invalid defineTemplate and a module without one fail', async () => {
    const dir = await folder(
      {
        'templates.ts': orderShippedTs,
        'more/promo.mts': `export default { name: 'promo', language: 'en_US', category: 'MARKETING', body: { text: 'Sale' } } satisfies object;`,
        'more/plain.mjs': `export const receipt = { name: 'receipt', language: 'en', category: 'UTILITY', body: { text: 'Paid.' } };`,
        'more/legacy.js': `export const notice = { name: 'notice', language: 'en', category: 'UTILITY', body: { text: 'Closed.' } };`,
        'templates.d.ts': 'export declare const x: number;', // a declaration file holds no values: not read
      },
      { in: 'repository' },
    );
    const ok = await run(['templates', 'check', dir]);
    expect(ok.stderr).toBe('');
    expect(ok.code).toBe(0);
    expect(
      ok.stdout
        .split('\n')
        .filter(Boolean)
        .map((l) => l.slice(dir.length + 1)),
    ).toEqual([
      'more/legacy.js#notice: valid',
      'more/plain.mjs#receipt: valid',
      'more/promo.mts#default: valid',
      'templates.ts#orderShipped: valid',
      'templates.ts#default[1]: valid',
    ]);

    const bad = await folder(
      {
        'broken.ts': `import { defineTemplate } from ${sdk};
export const broken = defineTemplate({ name: 'broken', language: 'en_US', category: 'UTILITY', body: { text: 'Hi {{1}} and {{2}} ok' } });`,
        'helpers.mjs': 'export const add = (a, b) => a + b;',
        'unparsable.mjs': 'export const = ;',
      },
      { in: 'repository' },
    );
    const failed = await run(['templates', 'check', bad, '--json']);
    expect(failed.code).toBe(1);
    const results = JSON.parse(failed.stdout) as {
      file: string;
      valid: boolean;
      issues: { rule: string }[];
    }[];
    expect(results.map((r) => [r.file.slice(bad.length + 1), r.valid, r.issues.map((i) => i.rule)])).toEqual([
      ['broken.ts', false, ['body.examples.missing']], // the TemplateValidationError defineTemplate threw
      ['helpers.mjs', false, ['module.no_templates']],
      ['unparsable.mjs', false, ['module.import']],
    ]);
  }, 60_000);

  it('push creates the definitions of one module; types writes their declarations and refuses to shadow it', async () => {
    sandbox = await startSandbox({ platform: false });
    const dir = await folder({ 'templates.ts': orderShippedTs }, { in: 'repository' });
    const file = join(dir, 'templates.ts');
    const env = { PUBLIC_API_SECRET_KEY: 'sk_org_sandbox', PUBLIC_API_BASE_URL: `${sandbox.url}/api/v1` };
    const pushed = await run(['templates', 'push', file, '--app', 'app_1'], env);
    expect(pushed.stderr).toBe('');
    expect(pushed.stdout).toMatch(/^order_shipped\s+en_US\s+created\s+PENDING\s+\d+$/m);
    expect(pushed.stdout).toMatch(/^hello\s+uz\s+created\s+PENDING\s+\d+$/m);
    expect(sandbox.templates.templates.map((t) => t.name).sort()).toEqual(['hello', 'order_shipped']);
    expect(JSON.parse(await readFile(join(dir, '.wa-templates-state.json'), 'utf8'))).toHaveLength(2);

    // templates.d.ts beside templates.ts would be read by TypeScript instead of it.
    const shadow = await run(['templates', 'types', file]);
    expect(shadow.code).toBe(2);
    expect(shadow.stderr).toContain('would be the declaration file of');
    const out = join(dir, 'template-types.d.ts');
    expect((await run(['templates', 'types', file, '--out', out])).code).toBe(0);
    const dts = await readFile(out, 'utf8');
    expect(dts).toContain('/** templates.ts#orderShipped */');
    expect(dts).toContain('"hello/uz": {"name":"hello"');
  }, 60_000);

  it('without tsx, TypeScript needs Node to strip types, or the command names the fix; JavaScript needs nothing', async () => {
    const dir = await folder({
      'plain.ts': `export const hello = { name: 'hello', language: 'uz', category: 'UTILITY', body: { text: 'Salom!' } } as const;`,
      'plain.mjs': `export const receipt = { name: 'receipt', language: 'en', category: 'UTILITY', body: { text: 'Paid.' } };`,
    });
    const js = await run(['templates', 'check', join(dir, 'plain.mjs')], {}, 'bare');
    expect(js.code).toBe(0);
    const typescript = await run(['templates', 'check', join(dir, 'plain.ts')], {}, 'bare');
    if ((process.features as { typescript?: unknown }).typescript) {
      expect(typescript.stdout).toContain('plain.ts#hello: valid'); // Node 22.18+: its own type stripping
      expect(typescript.code).toBe(0);
    } else {
      expect(typescript.code).toBe(1);
      expect(typescript.stderr).toContain('needs a TypeScript loader');
      expect(typescript.stderr).toContain('npm install --save-dev tsx');
    }
  }, 60_000);
});
