/**
 * The spine walks CONTRIBUTING.md writes down, run: each is visited in the order the guide gives, each step once.
 *
 * The test copies `src/` to a temporary folder and, in the files of the walks only, makes every function, method
 * and arrow record its file when it is entered. A child process (tsx) then runs what the walk follows (a signed
 * delivery through `createWebhookHandler`, `new GatewayClient(...)`), recording only while it runs, and prints the
 * files in the order they were entered. Without the spine, and with the entries of one step in a row counted once,
 * that order must be the steps' order, each once: a step entered again after another (a bounce) or before the one
 * the guide puts first fails.
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GUIDE, ROOT, WALKS, walkFiles } from './import-graph.js';

const spines = WALKS.filter((w) => w.kind === 'spine').map((w) => ({
  heading: w.heading,
  files: walkFiles(GUIDE, w.heading) ?? [],
}));

/** `source` with a call to `globalThis.__walk?.(file)` at the start of every function body. */
function instrument(file: string, source: string): string {
  const sf = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, true);
  const edits: { at: number; text: string }[] = [];
  const mark = `globalThis.__walk?.(${JSON.stringify(file)})`;
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const body = node.body as ts.Node;
      if (ts.isBlock(body)) edits.push({ at: body.getStart(sf) + 1, text: `${mark};` });
      else {
        edits.push({ at: body.getStart(sf), text: `(${mark}, ` });
        edits.push({ at: body.getEnd(), text: ')' });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  let out = source;
  for (const { at, text } of edits.sort((a, b) => b.at - a.at)) out = out.slice(0, at) + text + out.slice(at);
  return out;
}

const RUNNER = `
const [src, which] = process.argv.slice(2);
const trace = [];
let recording = false;
globalThis.__walk = (file) => { if (recording && trace.at(-1) !== file) trace.push(file); };
const record = async (run) => { recording = true; try { return await run(); } finally { recording = false; } };
const out = {};
if (which === "Following one webhook delivery") {
  const webhooks = await import(src + '/webhooks/index.ts');
  const fixtures = await import(src + '/testing/webhook-fixtures.ts');
  const secret = 's'.repeat(40);
  const handler = webhooks.createWebhookHandler({
    secret, upstreamAppSecret: 'app-secret', logger: false, onEvent: () => { out.events = (out.events ?? 0) + 1; },
  });
  const body = JSON.stringify(fixtures.messageEnvelope(fixtures.textMessage()));
  const signature = await webhooks.signUpstreamBody(body, 'app-secret');
  const request = new Request('https://example.com/webhook', {
    method: 'POST', body,
    headers: { authorization: 'Bearer ' + secret, 'x-hub-signature-256': signature, 'content-type': 'application/json' },
  });
  out.status = (await record(() => handler(request))).status;
} else if (which === "Following a client's options") {
  const sdk = await import(src + '/index.ts');
  const client = await record(() => new sdk.GatewayClient({ apiKey: 'sk_test_' + 'k'.repeat(24), baseUrl: 'https://gw.example.com', logLevel: 'off' }));
  out.baseUrl = client.baseUrl;
} else throw new Error('no driver for ' + which);
out.trace = trace;
console.log(JSON.stringify(out));
`;

let dir = '';

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'wa-sdk-walks-'));
  cpSync(join(ROOT, 'src'), join(dir, 'src'), { recursive: true });
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
  for (const file of new Set(spines.flatMap((s) => s.files))) {
    const path = join(dir, 'src', file);
    writeFileSync(path, instrument(file, readFileSync(path, 'utf8')));
  }
  writeFileSync(join(dir, 'run.mjs'), RUNNER);
});

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function run(
  heading: string,
): Promise<{ trace: string[]; status?: number; events?: number; baseUrl?: string }> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', join(dir, 'run.mjs'), join(dir, 'src'), heading],
      { cwd: dir, timeout: 60_000 },
      (error, stdout, stderr) =>
        error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(JSON.parse(stdout)),
    );
  });
}

describe.each(spines.map((s) => [s.heading, s] as const))("the walk '%s', run", (heading, { files }) => {
  it('visits the steps in the guide order, each once', async () => {
    const [spine, ...steps] = files;
    const result = await run(heading);
    // It ran what it follows: the delivery was processed, the client built.
    if (heading === 'Following one webhook delivery')
      expect([result.status, result.events]).toEqual([200, 1]);
    else expect(result.baseUrl).toBe('https://gw.example.com');
    const visited = result.trace.filter((f) => f !== spine && files.includes(f));
    const merged = visited.filter((f, i) => f !== visited[i - 1]);
    expect(merged).toEqual(steps);
    expect(result.trace).toContain(spine);
  }, 90_000);
});

it('marks every function, method and arrow of a file (the instrumentation sees what it must)', () => {
  const code = instrument(
    'x.ts',
    'export function a() { return 1; }\nconst b = () => 2;\nclass C { m() {} }\n',
  );
  expect(code.match(/__walk/g)).toHaveLength(3);
  expect(code).toContain('(globalThis.__walk?.("x.ts"), 2)');
});
