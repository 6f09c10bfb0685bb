import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { validateTemplate } from '../templates/validate.js';
import { type CliIo, EXIT, UsageError } from './io.js';

export const usage = `Usage: wa-gateway validate-template <file.json> [--json]

Checks a template create request against every rule of the spec, locally, and prints every issue with its
code (where the spec names one), field and message. Exit 0 when valid, 1 when not, 2 on a usage error.

  --json    print { valid, issues } as JSON (for CI annotations and scripts)`;

export async function validateTemplateCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: { json: { type: 'boolean' } },
    allowPositionals: true,
  });
  if (positionals.length !== 1) throw new UsageError('validate-template takes exactly one <file.json>.');
  const file = positionals[0]!;
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as { code?: string }).code;
    throw new UsageError(`cannot read <file.json> '${file}'${code ? ` (${code})` : ''}.`);
  }
  let input: unknown;
  try {
    input = JSON.parse(text);
  } catch (error) {
    io.stderr(`${file}: not valid JSON (${(error as Error).message}).\n`);
    return EXIT.failed;
  }
  const result = validateTemplate(input);
  if (values.json) {
    io.stdout(`${JSON.stringify(result, null, 2)}\n`);
  } else if (result.valid) {
    io.stdout(`${file}: valid\n`);
  } else {
    io.stdout(`${file}: ${result.issues.length} issue${result.issues.length === 1 ? '' : 's'}\n`);
    const codeWidth = Math.max(...result.issues.map((i) => (i.code ?? '-').length));
    const fieldWidth = Math.max(...result.issues.map((i) => i.field.length));
    for (const i of result.issues) {
      io.stdout(
        `  ${(i.code ?? '-').padEnd(codeWidth)}  ${i.field.padEnd(fieldWidth)}  ${i.message}  [${i.rule}]\n`,
      );
    }
  }
  return result.valid ? EXIT.ok : EXIT.failed;
}
