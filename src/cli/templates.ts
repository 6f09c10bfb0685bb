import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { PublicApiClient } from '../public-api/client.js';
import {
  MemoryTemplateStore,
  TemplateCatalog,
  type TemplateRecord,
  type TemplateRecordPatch,
  type TemplateStore,
} from '../templates/catalog.js';
import type { TemplateDefinition } from '../templates/define.js';
import { validateTemplate } from '../templates/validate.js';
import { type CliIo, EXIT, UsageError } from './io.js';
import { validateTemplateCommand } from './validate-template.js';

const STATE_FILE = '.wa-templates-state.json';

export const usage = `Usage: wa-gateway templates <check|push|types> <dir> [options]

Templates kept as JSON create requests, one per file, in <dir> (and its sub-folders; files starting with '.'
are skipped).

  check <dir> [--json]   validate every definition against the rule table; prints each issue with its code
                         and rule, and refuses two files with one name and language. Exit 1 on any issue.
  push <dir> --app <id>  create every template not yet created, idempotent by name and language: a 409
                         UPSTREAM_017 means it exists (recorded, not a failure). Prints a table. Needs
                         PUBLIC_API_SECRET_KEY and PUBLIC_API_BASE_URL in the environment. What was created is
                         recorded in <dir>/${STATE_FILE} (or --state <file>), so a second run sends nothing.
  types <dir>            write <dir>/templates.d.ts (or --out <file>): one literal type per definition and a
                         TemplateDefinitions map, so JSON definitions get the types of defineTemplate.
                         --check exits 1 when the file is not up to date (for CI) instead of writing it.`;

export const options = {
  json: { type: 'boolean' },
  app: { type: 'string' },
  state: { type: 'string' },
  out: { type: 'string' },
  check: { type: 'boolean' },
} as const;

/** The JSON files of `dir`, sorted, skipping dot-files and folders. */
async function jsonFiles(dir: string): Promise<string[]> {
  let entries: string[];
  try {
    entries = (await readdir(dir, { recursive: true })) as string[];
  } catch (error) {
    const code = (error as { code?: string }).code;
    throw new UsageError(`cannot read <dir> '${dir}'${code ? ` (${code})` : ''}.`);
  }
  return entries
    .filter((e) => e.endsWith('.json') && !e.split(/[\\/]/).some((part) => part.startsWith('.')))
    .sort()
    .map((e) => join(dir, e));
}

/** Every definition of `dir`, validated; any problem is a failure naming the file (run `check` for all). */
async function loadDefinitions(dir: string): Promise<{ file: string; definition: TemplateDefinition }[]> {
  const out: { file: string; definition: TemplateDefinition }[] = [];
  for (const file of await jsonFiles(dir)) {
    let input: unknown;
    try {
      input = JSON.parse(await readFile(file, 'utf8'));
    } catch {
      throw new Error(`${file} is not valid JSON: run 'wa-gateway templates check ${dir}'.`);
    }
    const result = validateTemplate(input);
    if (!result.valid)
      throw new Error(`${file} is not a valid template: run 'wa-gateway templates check ${dir}'.`);
    out.push({ file, definition: result.template });
  }
  return out;
}

async function check(dir: string, json: boolean, io: CliIo): Promise<number> {
  const files = await jsonFiles(dir);
  if (files.length === 0) throw new UsageError(`no .json template in '${dir}'.`);
  const code = await validateTemplateCommand(json ? [...files, '--json'] : files, io);
  // Two files for one name and language: push would create one and meet 409 for the other.
  const seen = new Map<string, string>();
  let duplicates = 0;
  for (const file of files) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(await readFile(file, 'utf8'));
    } catch {
      continue; // reported above
    }
    const t = validateTemplate(parsed);
    if (!t.valid) continue;
    const key = `${t.template.name} (${t.template.language})`;
    const first = seen.get(key);
    if (first) {
      duplicates++;
      io.stderr(`${file}: ${key} is defined in ${first} too  [templates.duplicate]\n`);
    } else seen.set(key, file);
  }
  return code === EXIT.ok && duplicates === 0 ? EXIT.ok : EXIT.failed;
}

/** The catalogue's store as a JSON file: what `push` created, so a second run skips it. */
class FileTemplateStore implements TemplateStore {
  readonly #memory = new MemoryTemplateStore();
  constructor(readonly path: string) {}

  async load(): Promise<void> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch {
      return; // no state yet
    }
    const records = JSON.parse(text) as TemplateRecord[];
    for (const { name, language, updatedAt: _u, ...patch } of records)
      await this.#memory.update(name, language, patch);
  }
  get(name: string, language: string) {
    return this.#memory.get(name, language);
  }
  async update(name: string, language: string, patch: TemplateRecordPatch) {
    const record = await this.#memory.update(name, language, patch);
    const all = (await this.#memory.list()).map(({ definition: _d, ...r }) => r);
    await writeFile(this.path, `${JSON.stringify(all, null, 2)}\n`);
    return record;
  }
  list() {
    return this.#memory.list();
  }
}

async function push(dir: string, values: { app?: string; state?: string }, io: CliIo): Promise<number> {
  if (!values.app) throw new UsageError('push needs --app <application id>.');
  const secretKey = io.env['PUBLIC_API_SECRET_KEY'];
  const baseUrl = io.env['PUBLIC_API_BASE_URL'];
  if (!secretKey || !baseUrl)
    throw new UsageError('push needs PUBLIC_API_SECRET_KEY and PUBLIC_API_BASE_URL in the environment.');
  const store = new FileTemplateStore(values.state ?? join(dir, STATE_FILE));
  await store.load();
  const catalog = new TemplateCatalog({
    definitions: (await loadDefinitions(dir)).map((d) => d.definition),
    store,
  });
  const rows = await catalog.push(new PublicApiClient({ secretKey, baseUrl }), values.app);
  const table = [
    ['name', 'language', 'result', 'status', 'sourceId'],
    ...rows.map((r) => [r.name, r.language, r.result, r.status ?? '-', r.sourceId ?? '-']),
  ];
  const widths = table[0]!.map((_, i) => Math.max(...table.map((row) => row[i]!.length)));
  for (const row of table)
    io.stdout(
      `${row
        .map((cell, i) => cell.padEnd(widths[i]!))
        .join('  ')
        .trimEnd()}\n`,
    );
  for (const r of rows) if (r.error) io.stderr(`${r.name} (${r.language}): ${r.error}\n`);
  return rows.some((r) => r.result === 'failed') ? EXIT.failed : EXIT.ok;
}

/** The `.d.ts` for the definitions of `dir`: JSON is TypeScript type syntax, so each value is its own type. */
export function definitionTypes(
  definitions: { file: string; definition: TemplateDefinition }[],
  from: string,
): string {
  const lines = [
    '// Generated by `wa-gateway templates types`: do not edit; run it again when a template changes.',
    '// Each type is the literal type of a JSON definition, as defineTemplate infers it from code:',
    "//   defineTemplate(json as TemplateDefinitions['order_shipped/en_US'])",
    '',
    'export interface TemplateDefinitions {',
  ];
  for (const { file, definition } of definitions) {
    lines.push(`  /** ${relative(from, file).split('\\').join('/')} */`);
    lines.push(
      `  ${JSON.stringify(`${definition.name}/${definition.language}`)}: ${JSON.stringify(definition)};`,
    );
  }
  lines.push('}', '');
  return lines.join('\n');
}

async function types(dir: string, values: { out?: string; check?: boolean }, io: CliIo): Promise<number> {
  const out = values.out ?? join(dir, 'templates.d.ts');
  const text = definitionTypes(await loadDefinitions(dir), dir);
  if (values.check) {
    const current = await readFile(out, 'utf8').catch(() => '');
    if (current === text) return EXIT.ok;
    io.stderr(`${out} is not up to date: run 'wa-gateway templates types ${dir}'.\n`);
    return EXIT.failed;
  }
  await writeFile(out, text);
  io.stdout(`wrote ${out}\n`);
  return EXIT.ok;
}

export async function templatesCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({ args, options, allowPositionals: true });
  const [sub, dir, ...rest] = positionals;
  if (!sub || !['check', 'push', 'types'].includes(sub))
    throw new UsageError(
      `templates needs a subcommand: check, push or types${sub ? ` (got '${sub}')` : ''}.`,
    );
  if (!dir || rest.length > 0) throw new UsageError(`templates ${sub} takes one <dir>.`);
  if (sub === 'check') return check(dir, values.json === true, io);
  if (sub === 'push') return push(dir, values, io);
  return types(dir, values, io);
}
