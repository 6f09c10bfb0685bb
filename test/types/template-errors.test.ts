/**
 * What the compiler says when a template's values do not match its definition: one error, about the values (the
 * count, the type, the missing one), under TypeScript 5.9 (the project's compiler) and TypeScript 7 (what
 * `npm i -D typescript` installs now). An overload set read as "No overload matches" under 5.9 and, under 7, as
 * only its last overload's complaint (`… is not assignable to parameter of type 'string'`): the sends have one
 * signature each, and this test holds it.
 *
 * TypeScript 7 is installed apart from the project, in `.ci/ts-matrix` (CI's `.ci/run` installs it and sets
 * WA_REQUIRE_TS7=1, so there it cannot be skipped); without it this run checks 5.9 only.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const tsc7 = join(root, '.ci/ts-matrix/node_modules/typescript7/bin/tsc');
const hasTs7 = existsSync(tsc7);
if (process.env['WA_REQUIRE_TS7'] === '1' && !hasTs7)
  throw new Error(`WA_REQUIRE_TS7=1 but ${tsc7} is not installed: run (cd .ci/ts-matrix && npm ci).`);

/** Each mismatch, one per line, with what its one error must say. */
const CASES: readonly { line: string; says: RegExp }[] = [
  {
    line: `gw.messages.sendTemplate(to, orderShipped, { header: '#1', body: ['Ali'], buttons: { 0: '1' } });`,
    says: /Source has 1 element\(s\) but target requires 2/,
  },
  {
    line: `gw.messages.sendTemplate(to, orderShipped, { header: '#1', body: ['Ali', 2], buttons: { 0: '1' } });`,
    says: /Type 'number' is not assignable to type 'TemplateBodyValue'/,
  },
  {
    line: `gw.messages.sendTemplate(to, orderShipped, { header: '#1', body: ['Ali', '#1'] });`,
    says: /Property 'buttons' is missing/,
  },
  { line: `gw.messages.sendTemplate(to, orderShipped);`, says: /Expected 3-4 arguments, but got 2/ },
  {
    line: `gw.messages.sendTemplate(to, hello, { header: 'x' });`,
    says: /not assignable to type '"hello takes no header value"'/,
  },
  {
    line: `templateMessage(to, orderShipped, { header: '#1', body: ['Ali'], buttons: { 0: '1' } });`,
    says: /Source has 1 element\(s\) but target requires 2/,
  },
  {
    line: `filledTemplate(orderShipped, { header: '#1', body: ['Ali', '#1', 'x'], buttons: { 0: '1' } });`,
    says: /Source has 3 element\(s\) but target allows only 2/,
  },
  {
    line: `ctx.replyTemplate(orderShipped, { header: '#1', body: ['Ali'], buttons: { 0: '1' } });`,
    says: /Source has 1 element\(s\) but target requires 2/,
  },
  {
    line: `ctx.replyTemplate({ name: 'reminder', language: { code: 'en_US' } }, { body: ['x'] });`,
    says: /Expected 1 arguments, but got 2/,
  },
];

const PREAMBLE = `import type { MessageContext } from '../../src/conversations/index.js';
import { defineTemplate, filledTemplate, type GatewayClient, templateMessage } from '../../src/index.js';
import { helloDefinition, orderShippedDefinition } from '../../test/helpers/template-definitions.js';
const orderShipped = defineTemplate(orderShippedDefinition);
const hello = defineTemplate(helloDefinition);
const to = '998901234567';
declare const gw: GatewayClient;
declare const ctx: MessageContext<Record<string, unknown>>;
`;

// In the project (so that its tsconfig and node_modules apply), under the ignored .tmp/ (so that no other
// typecheck reads it).
mkdirSync(join(root, '.tmp'), { recursive: true });
const dir = mkdtempSync(join(root, '.tmp/template-errors-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const probe = join(dir, 'probe.ts');
writeFileSync(probe, `${PREAMBLE}${CASES.map((c) => c.line).join('\n')}\n`);
writeFileSync(
  join(dir, 'tsconfig.json'),
  JSON.stringify({ extends: '../../tsconfig.json', include: ['probe.ts'] }),
);
const firstCaseLine = PREAMBLE.split('\n').length; // 1-based line of CASES[0]

interface Reported {
  line: number;
  text: string;
}

/** Every error of the probe under the project's TypeScript, with its full message chain. */
function errors59(): Reported[] {
  const config = ts.getParsedCommandLineOfConfigFile(
    join(dir, 'tsconfig.json'),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: () => {},
    },
  )!;
  const program = ts.createProgram([probe], { ...config.options, noEmit: true });
  const file = program.getSourceFile(probe)!;
  // The probe's own diagnostics: the rest of the program is the project, which `npm run typecheck` holds.
  const diagnostics = [...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)];
  return diagnostics.map((d) => ({
    line: d.file ? d.file.getLineAndCharacterOfPosition(d.start!).line + 1 : 0,
    text: ts.flattenDiagnosticMessageText(d.messageText, '\n'),
  }));
}

/** Every error of the probe under TypeScript 7's `tsc`, parsed from its plain output. */
async function errors7(): Promise<Reported[]> {
  const out = await promisify(execFile)(process.execPath, [tsc7, '-p', dir, '--pretty', 'false']).then(
    (r) => r.stdout,
    (e: { stdout: string }) => e.stdout,
  );
  const reported: Reported[] = [];
  for (const row of out.split('\n')) {
    const head = /^(.+?)\((\d+),\d+\): error TS\d+: (.*)$/.exec(row);
    if (head) {
      reported.push({
        line: head[1]!.endsWith('probe.ts') ? Number(head[2]) : 0,
        text: head[3]!,
      });
    } else if (row.startsWith(' ') && reported.length > 0) reported.at(-1)!.text += `\n${row.trim()}`;
  }
  return reported;
}

function expectOneReadableErrorPerCase(reported: Reported[]): void {
  expect(reported.filter((r) => r.line < firstCaseLine)).toEqual([]); // the preamble compiles
  CASES.forEach((c, i) => {
    const here = reported.filter((r) => r.line === firstCaseLine + i);
    expect(
      here.map((r) => r.text),
      c.line,
    ).toHaveLength(1);
    expect(here[0]!.text, c.line).toMatch(c.says);
    expect(here[0]!.text, c.line).not.toMatch(/overload|parameter of type 'string'/i);
  });
  expect(reported).toHaveLength(CASES.length);
}

describe('a template values mismatch reads as one error about the values', () => {
  it(`under TypeScript ${ts.version} (the project's)`, () => {
    expectOneReadableErrorPerCase(errors59());
  }, 60_000);

  it.skipIf(!hasTs7)(
    'under TypeScript 7 (.ci/ts-matrix)',
    async () => {
      expectOneReadableErrorPerCase(await errors7());
    },
    60_000,
  );
});
