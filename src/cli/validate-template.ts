import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import type { TemplateIssue } from '../core/errors.js';
import { validateTemplate } from '../templates/validate.js';
import { type CliIo, EXIT, UsageError } from './io.js';
import { parseJsonFile } from './template-sources.js';

export const usage = `Usage: wa-gateway validate-template <file.json>... [--json]

Checks template create requests against every rule of the spec, locally, and prints every issue with its
code (where the spec names one), field and message. Exit 0 when all are valid, 1 when any is not (or is not
JSON), 2 on a usage error.

  --json    print [{ file, valid, issues }] as JSON (for CI annotations and scripts); a file that is not
            JSON appears with valid: false and one issue of rule 'json.parse'`;

/** One template's verdict, as printed: `file` names where it was read (a file, or `file#export`). */
export interface FileResult {
  file: string;
  valid: boolean;
  issues: TemplateIssue[];
}

async function check(file: string): Promise<FileResult> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as { code?: string }).code;
    throw new UsageError(`cannot read <file.json> '${file}'${code ? ` (${code})` : ''}.`);
  }
  let input: unknown;
  try {
    input = parseJsonFile(text);
  } catch (error) {
    const message = `The file is not valid JSON: ${(error as Error).message}.`;
    return { file, valid: false, issues: [{ code: null, rule: 'json.parse', path: [], field: '', message }] };
  }
  const result = validateTemplate(input);
  return { file, valid: result.valid, issues: result.issues };
}

export const options = { json: { type: 'boolean' } } as const;

export async function validateTemplateCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options,
    allowPositionals: true,
  });
  if (positionals.length === 0) throw new UsageError('validate-template needs at least one <file.json>.');
  const results: FileResult[] = [];
  for (const file of positionals) results.push(await check(file));
  printResults(results, values.json === true, io);
  return results.every((r) => r.valid) ? EXIT.ok : EXIT.failed;
}

/** Prints each result: `file: valid`, or its issues with code, field and rule; `--json` prints them as JSON. */
export function printResults(results: readonly FileResult[], json: boolean, io: CliIo): void {
  if (json) {
    io.stdout(`${JSON.stringify(results, null, 2)}\n`);
  } else {
    for (const { file, valid, issues } of results) {
      if (valid) {
        io.stdout(`${file}: valid\n`);
        continue;
      }
      io.stdout(`${file}: ${issues.length} issue${issues.length === 1 ? '' : 's'}\n`);
      const codeWidth = Math.max(...issues.map((i) => (i.code ?? '-').length));
      const fieldWidth = Math.max(...issues.map((i) => i.field.length));
      for (const i of issues) {
        io.stdout(
          `  ${(i.code ?? '-').padEnd(codeWidth)}  ${i.field.padEnd(fieldWidth)}  ${i.message}  [${i.rule}]\n`,
        );
      }
    }
  }
}
