/**
 * Docs are code: every ```ts block of README.md, CONTRIBUTING.md and docs/*.md typechecks under strict as a standalone module,
 * and the blocks marked `<!-- docs-check: run -->` run (see blocks.ts for the conventions). A failure names the
 * block as file:line.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allBlocks, type DocBlock, excerptDrift, extractBlocks } from './blocks.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
// One directory per run: two copies of the suite at once must not write over each other's blocks.
const OUT = join(ROOT, '.tmp', `docs-check-${process.pid}`);
const ENTRIES: Record<string, string> = {
  'wa-gateway-sdk': 'src/index.ts',
  'wa-gateway-sdk/templates': 'src/templates/index.ts',
  'wa-gateway-sdk/webhooks': 'src/webhooks/index.ts',
  'wa-gateway-sdk/testing': 'src/testing/index.ts',
  'wa-gateway-sdk/redis': 'src/redis/index.ts',
  'wa-gateway-sdk/schemas': 'src/schemas.ts',
  'wa-gateway-sdk/conversations': 'src/conversations/index.ts',
  'wa-gateway-sdk/durable-objects': 'src/durable-objects/index.ts',
};
const SECRET = 'docs-check-webhook-secret-0123456789abcdef';

const blocks = allBlocks(ROOT);
const checked = blocks.filter((b) => b.mode !== 'skip' && b.mode !== 'excerpt');
const excerpts = blocks.filter((b) => b.mode === 'excerpt');
const runs = checked.filter((b) => b.mode === 'run' && !b.file.endsWith('.test.ts'));
const testRuns = checked.filter((b) => b.mode === 'run' && b.file.endsWith('.test.ts'));

/** Writes every checked block as a module, with a tsconfig and a vitest config that resolve the SDK to src/. */
function writeBlocks(): void {
  rmSync(OUT, { recursive: true, force: true });
  for (const b of checked) {
    const path = join(OUT, b.file);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, `${b.code}\n`);
  }
  const base = JSON.parse(readFileSync(join(ROOT, 'tsconfig.json'), 'utf8')) as {
    compilerOptions: Record<string, unknown>;
  };
  const paths = Object.fromEntries(Object.entries(ENTRIES).map(([name, file]) => [name, [join(ROOT, file)]]));
  const tsconfig = {
    compilerOptions: { ...base.compilerOptions, moduleDetection: 'force', noEmit: true, paths },
    include: ['**/*.ts'],
  };
  writeFileSync(join(OUT, 'tsconfig.json'), JSON.stringify(tsconfig, null, 2));
  const alias = Object.entries(ENTRIES).map(
    ([name, file]) =>
      `{ find: /^${name.replace('/', '\\/')}$/, replacement: ${JSON.stringify(join(ROOT, file))} }`,
  );
  writeFileSync(
    join(OUT, 'vitest.config.ts'),
    `import { defineConfig } from 'vitest/config';
export default defineConfig({
  resolve: { alias: [${alias.join(', ')}] },
  test: { include: ['**/*.test.ts'], testTimeout: 20000, pool: 'forks' },
});
`,
  );
}

/** Typechecks all blocks in one program; the diagnostics of each block, as `file:line: TSxxxx message`. */
function typecheck(): Map<string, string[]> {
  const config = ts.getParsedCommandLineOfConfigFile(
    join(OUT, 'tsconfig.json'),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
      },
    },
  );
  if (!config) throw new Error('docs-check: cannot read the generated tsconfig');
  const byFile = new Map(checked.map((b) => [join(OUT, b.file), b]));
  const program = ts.createProgram({ rootNames: [...byFile.keys()], options: config.options });
  const out = new Map<string, string[]>(checked.map((b) => [b.where, []]));
  for (const d of ts.getPreEmitDiagnostics(program)) {
    const block = d.file ? byFile.get(d.file.fileName) : undefined;
    const text = ts.flattenDiagnosticMessageText(d.messageText, '\n');
    if (!block || !d.file || d.start === undefined) {
      // An error outside the blocks (the SDK's own source): report it on every block, it breaks them all.
      if (d.category === ts.DiagnosticCategory.Error)
        for (const list of out.values()) list.push(`TS${d.code} ${text}`);
      continue;
    }
    const { line } = d.file.getLineAndCharacterOfPosition(d.start);
    out.get(block.where)!.push(`${block.doc}:${block.line + 1 + line}: TS${d.code} ${text}`);
  }
  // Users who turn on `exactOptionalPropertyTypes` copy the same examples: each block is checked again under it.
  // Only the blocks' own files are asked for their diagnostics (the SDK's source is not written for the flag; what
  // users see of it, its declarations' types, is what the blocks are checked against).
  const strictest = ts.createProgram({
    rootNames: [...byFile.keys()],
    options: { ...config.options, exactOptionalPropertyTypes: true },
    oldProgram: program,
  });
  for (const [fileName, block] of byFile) {
    const file = strictest.getSourceFile(fileName);
    if (!file) continue;
    for (const d of strictest.getSemanticDiagnostics(file)) {
      if (d.start === undefined || d.category !== ts.DiagnosticCategory.Error) continue;
      const { line } = file.getLineAndCharacterOfPosition(d.start);
      const text = ts.flattenDiagnosticMessageText(d.messageText, '\n');
      out
        .get(block.where)!
        .push(`${block.doc}:${block.line + 1 + line}: TS${d.code} (exactOptionalPropertyTypes) ${text}`);
    }
  }
  return out;
}

let diagnostics: Map<string, string[]>;
let childEnv: NodeJS.ProcessEnv;
let runResults: Promise<Record<string, { ok: boolean; error?: string }>>;
let testResults: Promise<Map<string, { status: string; failures: string[] }>>;

beforeAll(async () => {
  writeBlocks();
  childEnv = {
    ...process.env,
    TSX_TSCONFIG_PATH: join(OUT, 'tsconfig.json'),
    GATEWAY_API_KEY: 'sk_test_sandbox',
    WEBHOOK_SECRET: SECRET,
    PUBLIC_API_SECRET_KEY: 'sk_org_docs_check',
    PLATFORM_USERNAME: 'agent@example.com',
    PLATFORM_PASSWORD: 'secret-password',
  };
  // The children run while this process typechecks.
  runResults = runBlocks();
  testResults = runTestBlocks();
  runResults.catch(() => {});
  testResults.catch(() => {});
  diagnostics = typecheck();
}, 120_000);

afterAll(async () => {
  // The children may still hold files when a test failed early; what they wrote goes with them.
  await Promise.allSettled([runResults, testResults]);
  rmSync(OUT, { recursive: true, force: true });
});

describe('docs blocks typecheck under strict, and with exactOptionalPropertyTypes', () => {
  it.each(checked.map((b) => [b.where, b] as const))('%s', (where) => {
    expect(diagnostics.get(where), `${where} does not compile`).toEqual([]);
  });
});

const run = promisify(execFile);
async function runChild(args: string[], timeout = 60_000): Promise<{ ok: boolean; output: string }> {
  try {
    const r = await run(process.execPath, ['--import', 'tsx', ...args], { cwd: OUT, env: childEnv, timeout });
    return { ok: true, output: r.stdout + r.stderr };
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string; message: string };
    return { ok: false, output: `${e.stdout ?? ''}${e.stderr ?? ''}` || e.message };
  }
}

/** Every `run` block, in one child process; its results by block file. */
async function runBlocks(): Promise<Record<string, { ok: boolean; error?: string }>> {
  if (runs.length === 0) return {};
  const runner = fileURLToPath(new URL('./run-block.ts', import.meta.url));
  const args = runs.map((b) => join(OUT, b.file) + (b.deliverPath ? `::${b.deliverPath}` : ''));
  const { output } = await runChild([runner, ...args], 150_000);
  const line = output.split('\n').find((l) => l.startsWith('DOCS-CHECK-RESULTS '));
  if (!line) throw new Error(`the docs block runner did not finish:\n${output}`);
  return JSON.parse(line.slice('DOCS-CHECK-RESULTS '.length)) as Record<
    string,
    { ok: boolean; error?: string }
  >;
}

/** Every `run` block named *.test.ts, in one vitest child; its results by block file. */
async function runTestBlocks(): Promise<Map<string, { status: string; failures: string[] }>> {
  if (testRuns.length === 0) return new Map();
  const report = join(OUT, 'vitest-report.json');
  const vitest = join(ROOT, 'node_modules', 'vitest', 'vitest.mjs');
  const files = testRuns.map((b) => join(OUT, b.file));
  const args = [vitest, 'run', '--root', OUT, '--config', join(OUT, 'vitest.config.ts')];
  const { output } = await runChild(
    [...args, '--reporter=json', `--outputFile=${report}`, ...files],
    150_000,
  );
  let json: {
    testResults: { name: string; status: string; assertionResults: { failureMessages: string[] }[] }[];
  };
  try {
    json = JSON.parse(readFileSync(report, 'utf8')) as typeof json;
  } catch {
    throw new Error(`vitest wrote no report for the docs test blocks:\n${output}`);
  }
  return new Map(
    json.testResults.map((t) => [
      t.name,
      { status: t.status, failures: t.assertionResults.flatMap((a) => a.failureMessages) },
    ]),
  );
}

describe.runIf(runs.length > 0)('docs blocks marked run, run', () => {
  it.each(runs.map((b) => [b.where, b] as const))('%s', async (where, b: DocBlock) => {
    const result = (await runResults)[join(OUT, b.file)];
    expect(result, `${where} was not run`).toBeDefined();
    expect(result!.ok, `${where} failed when run:\n${result!.error}`).toBe(true);
  });
});

describe.runIf(testRuns.length > 0)('docs test files marked run, pass under vitest', () => {
  it.each(testRuns.map((b) => [b.where, b] as const))('%s', async (where, b: DocBlock) => {
    const result = (await testResults).get(join(OUT, b.file));
    expect(result, `${where} was not run by vitest`).toBeDefined();
    expect(
      result!.failures.map((f) => f.split('\n')[0]),
      `${where} fails under vitest`,
    ).toEqual([]);
    expect(result!.status).toBe('passed');
  });
});

describe('excerpts stand in their source files', () => {
  it.each(excerpts.map((b) => [b.where, b] as const))('%s', (where, b) => {
    const source = readFileSync(join(ROOT, b.source!), 'utf8');
    expect(excerptDrift(b.code, source), `${where}: lines not found, in order, in ${b.source}`).toEqual([]);
  });
});

describe('the block reader', () => {
  it('an excerpt is faithful only when its lines stand in the source in order', () => {
    const source = 'import x from "y";\n\nexport function f() {\n  return 1;\n}\n';
    expect(excerptDrift('export function f() {\n  // ...\n}', source)).toEqual([]);
    expect(excerptDrift('  return 1;\nexport function f() {', source)).toEqual(['export function f() {']);
    expect(excerptDrift('return 2;', source)).toEqual(['return 2;']);
    const md = '<!-- docs-check: excerpt src/a.ts -->\n```ts\nx\n```';
    expect(extractBlocks('docs/t.md', md).map((b) => [b.mode, b.source])).toEqual([['excerpt', 'src/a.ts']]);
  });

  it('reads markers, names and lines; a skip without a reason or an unknown marker is an error', () => {
    const md = [
      '# T',
      '```ts',
      'const a = 1;',
      '```',
      '<!-- docs-check: skip (needs a browser) -->',
      '```ts',
      'x',
      '```',
      '<!-- docs-check: run POST /hook -->',
      '',
      '```ts',
      '// app.ts',
      'export default {};',
      '```',
    ].join('\n');
    expect(
      extractBlocks('docs/t.md', md).map((b) => [b.where, b.mode, b.reason, b.deliverPath, b.file]),
    ).toEqual([
      ['docs/t.md:2', 'check', undefined, undefined, 't/L2.ts'],
      ['docs/t.md:6', 'skip', 'needs a browser', undefined, 't/L6.ts'],
      ['docs/t.md:11', 'run', undefined, '/hook', 't/app.ts'],
    ]);
    expect(() => extractBlocks('docs/t.md', '<!-- docs-check: skip -->\n```ts\nx\n```')).toThrow(
      /docs\/t\.md:2: .*a skip needs its reason/,
    );
    expect(() => extractBlocks('docs/t.md', '<!-- docs-check: rnu -->\n```ts\nx\n```')).toThrow(/'rnu'/);
  });
});
