import { readFile, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, extname, join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { TimeoutError } from '../core/errors.js';
import { PublicApiClient } from '../public-api/client.js';
import {
  mergeTemplateRecord,
  TemplateCatalog,
  type TemplatePushResult,
  type TemplateRecord,
  type TemplateRecordPatch,
  type TemplateStore,
} from '../templates/catalog.js';
import type { TemplateDefinition } from '../templates/define.js';
import { validateTemplate } from '../templates/validate.js';
import { cliLogger } from './cli-logger.js';
import { asUsage, type CliIo, EXIT, UsageError } from './io.js';
import { secondsFlag } from './seconds-flag.js';
import {
  readSources,
  SOURCE_EXTENSIONS,
  type SourceFailure,
  sourceFiles,
  type TemplateSource,
} from './template-sources.js';
import { type FileResult, printResults } from './validate-template.js';

const STATE_FILE = '.wa-templates-state.json';
/** The public API client's own default: a create that has not answered by then is given up. */
const DEFAULT_TIMEOUT_S = 30;

export const usage = `Usage: wa-gateway templates <check|push|types> <dir|file> [options]

Reads template create requests from <dir> (and its sub-folders; names starting with '.' and node_modules are
skipped) or from one file: JSON files (.json), one request each, and modules (.ts, .mts, .js, .mjs) whose
exports are definitions: every export, named or default, that is a template (as defineTemplate returns it) or
an array of them. Modules are imported, so keep them free of side effects. TypeScript is loaded through tsx
when it is installed (npm install --save-dev tsx), else by Node's own type stripping (Node 22.18 and later).

  check <dir|file> [--json]   validate every definition against the rule table; prints each issue with its
                              code and rule, and refuses two definitions with one name and language. Exit 1 on
                              any issue.
  push <dir|file> --app <id>  create every template not yet created, idempotent by name and language: a 409
                              UPSTREAM_017 means it exists (recorded, not a failure). Prints a table. Needs
                              PUBLIC_API_SECRET_KEY and PUBLIC_API_BASE_URL in the environment. What was
                              created is recorded in <dir>/${STATE_FILE} (or --state <file>) under the
                              app and the API's address, so a second run to them sends nothing and a push
                              to another app or API creates there. --timeout <seconds> per create (default
                              ${DEFAULT_TIMEOUT_S}); after one goes unanswered the rest are not tried. A
                              status is current only for a template this run created: no documented call
                              reads one back (approvals arrive as webhooks), so an older one is printed as
                              unknown, with what its create answered.
  types <dir|file>            write <dir>/templates.d.ts (or --out <file>): one literal type per definition and
                              a TemplateDefinitions map, so JSON definitions get the types of defineTemplate.
                              --check exits 1 when the file is not up to date (for CI) instead of writing it.`;

export const options = {
  json: { type: 'boolean' },
  app: { type: 'string' },
  state: { type: 'string' },
  timeout: { type: 'string' },
  out: { type: 'string' },
  check: { type: 'boolean' },
} as const;

/** Where `path` is read from: its files, and the folder they are relative to (`path`, or a file's folder). */
async function sourcesOf(path: string): Promise<{ files: string[]; from: string }> {
  const files = await sourceFiles(path);
  if (files.length === 0)
    throw new UsageError(`no template definition (${SOURCE_EXTENSIONS.join(', ')}) in '${path}'.`);
  return { files, from: (await stat(path)).isFile() ? dirname(path) : path };
}

/** Every definition of `path`, validated and one per name and language; else a failure naming where. */
async function loadDefinitions(
  path: string,
): Promise<{ source: TemplateSource; definition: TemplateDefinition }[]> {
  const out: { source: TemplateSource; definition: TemplateDefinition }[] = [];
  const entries = await readSources((await sourcesOf(path)).files);
  const again = duplicates(entries)[0];
  for (const entry of entries) {
    if ('issues' in entry)
      throw new Error(`${entry.file}: ${entry.issues[0]?.message} Run 'wa-gateway templates check ${path}'.`);
    const result = validateTemplate(entry.input);
    if (!result.valid)
      throw new Error(`${entry.label} is not a valid template: run 'wa-gateway templates check ${path}'.`);
    out.push({ source: entry, definition: result.template });
  }
  if (again) throw new Error(again.message);
  return out;
}

/**
 * Definitions of a name and language given twice (`push` would create one and meet 409 for the other): each
 * after the first, with its message.
 */
function duplicates(
  entries: readonly (TemplateSource | SourceFailure)[],
): { label: string; message: string }[] {
  const seen = new Map<string, string>();
  const out: { label: string; message: string }[] = [];
  for (const entry of entries) {
    if ('issues' in entry) continue;
    const t = validateTemplate(entry.input);
    if (!t.valid) continue;
    const key = `${t.template.name} (${t.template.language})`;
    const first = seen.get(key);
    if (first)
      out.push({
        label: entry.label,
        message: `${entry.label}: ${key} is defined in ${first} too  [templates.duplicate]`,
      });
    else seen.set(key, entry.label);
  }
  return out;
}

async function check(path: string, json: boolean, io: CliIo): Promise<number> {
  const entries = await readSources((await sourcesOf(path)).files);
  const results: FileResult[] = entries.map((entry) => {
    if ('issues' in entry) return { file: entry.file, valid: false, issues: entry.issues };
    const { valid, issues } = validateTemplate(entry.input);
    return { file: entry.label, valid, issues };
  });
  printResults(results, json, io);
  const again = duplicates(entries);
  for (const d of again) io.stderr(`${d.message}\n`);
  return results.every((r) => r.valid) && again.length === 0 ? EXIT.ok : EXIT.failed;
}

/** Where templates are pushed: the app and the public API's address (no credentials, no query). */
interface PushTarget {
  app: string;
  api: string;
}

/**
 * The catalogue's store as a JSON file: what `push` created (with the create answer's status, and when), so a
 * second run skips it. Records keep their `updatedAt`, so a status read back says how old it is. Each record names
 * its target (app and API): a push reads only its own target's records, so one folder pushed to staging and then
 * to production creates in both. Other records (another target's, or an older file's without one) are kept as
 * they are; a push to their target then meets `409 UPSTREAM_017` for what exists and records it.
 */
class FileTemplateStore implements TemplateStore {
  readonly #records = new Map<string, TemplateRecord>();
  /** Records of other targets, written back untouched. */
  #others: unknown[] = [];
  constructor(
    readonly path: string,
    readonly target: PushTarget,
  ) {}

  async load(): Promise<void> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch {
      return; // no state yet
    }
    let records: unknown;
    try {
      records = JSON.parse(text);
    } catch {
      records = undefined;
    }
    if (!Array.isArray(records))
      throw new Error(
        `${this.path} is not a state file this command wrote (a JSON array): move it away or pass --state.`,
      );
    for (const r of records as (TemplateRecord & { target?: Partial<PushTarget> })[]) {
      const mine =
        typeof r?.name === 'string' &&
        typeof r.language === 'string' &&
        r.target?.app === this.target.app &&
        r.target.api === this.target.api;
      if (!mine) {
        this.#others.push(r);
        continue;
      }
      const { target: _target, ...record } = r;
      this.#records.set(keyOf(r.name, r.language), record);
    }
  }
  async get(name: string, language: string) {
    return this.#records.get(keyOf(name, language));
  }
  async update(name: string, language: string, patch: TemplateRecordPatch) {
    const key = keyOf(name, language);
    const record = mergeTemplateRecord(this.#records.get(key), name, language, patch, Date.now());
    this.#records.set(key, record);
    const mine = [...this.#records.values()].map(({ definition: _d, ...r }) => ({
      ...r,
      target: this.target,
    }));
    await writeFile(this.path, `${JSON.stringify([...this.#others, ...mine], null, 2)}\n`);
    return record;
  }
  async list() {
    return [...this.#records.values()];
  }
}

function keyOf(name: string, language: string): string {
  return `${name}\u0000${language}`;
}

async function push(
  path: string,
  values: { app?: string; state?: string; timeout?: string },
  io: CliIo,
): Promise<number> {
  if (!values.app) throw new UsageError('push needs --app <application id>.');
  const secretKey = io.env['PUBLIC_API_SECRET_KEY'];
  const baseUrl = io.env['PUBLIC_API_BASE_URL'];
  if (!secretKey || !baseUrl)
    throw new UsageError('push needs PUBLIC_API_SECRET_KEY and PUBLIC_API_BASE_URL in the environment.');
  const timeoutMs = secondsFlag('--timeout', values.timeout, DEFAULT_TIMEOUT_S);
  // A base URL the client refuses is a mistake in how the command was called, named as the user gave it.
  const api = asUsage(
    () => new PublicApiClient({ secretKey, baseUrl, timeoutMs, logger: cliLogger(io, 'templates') }),
    { baseUrl: '$PUBLIC_API_BASE_URL', secretKey: '$PUBLIC_API_SECRET_KEY' },
  );
  const definitions = (await loadDefinitions(path)).map((d) => d.definition);
  const store = new FileTemplateStore(values.state ?? join((await sourcesOf(path)).from, STATE_FILE), {
    app: values.app,
    api: apiAddress(baseUrl),
  });
  await store.load();
  const catalog = new TemplateCatalog({ definitions, store });
  const rows = await catalog.push(untilSilent(api, timeoutMs), values.app);
  const statuses = await Promise.all(rows.map((r) => statusCell(r, store)));
  const table = [
    ['name', 'language', 'result', 'status', 'sourceId'],
    ...rows.map((r, i) => [r.name, r.language, r.result, statuses[i]!, r.sourceId ?? '-']),
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
  if (statuses.some((s) => s.startsWith('unknown')))
    io.stderr(
      "status unknown: the public API's spec shows no call that reads a template's status, so push knows only " +
        "what a create answered, and only this run's create is current. Approvals, rejections and pauses arrive " +
        'as message_template_status_update webhooks: give your webhook handler a TemplateCatalog ' +
        '(templates: catalog; docs/templates.md) to have every send checked against the real status.\n',
    );
  return rows.some((r) => r.result === 'failed') ? EXIT.failed : EXIT.ok;
}

/** The public API's address as a target's name: no credentials, query or trailing slash. */
function apiAddress(baseUrl: string): string {
  const url = new URL(baseUrl);
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

/**
 * `api`, whose creates stop once one went unanswered for the whole timeout: a public API that does not answer
 * would otherwise hold the push for the timeout once per template. The rows after it fail at once, saying why.
 */
function untilSilent(api: PublicApiClient, timeoutMs: number): Parameters<TemplateCatalog['push']>[0] {
  let silent = false;
  return {
    templates: {
      create: async (appId, template) => {
        if (silent)
          throw new Error(
            `not tried: the public API did not answer an earlier create within ${timeoutMs / 1000} s (--timeout); ` +
              'run push again once it answers.',
          );
        try {
          return await api.templates.create(appId, template);
        } catch (error) {
          if (error instanceof TimeoutError) silent = true;
          throw error;
        }
      },
    },
  };
}

/**
 * A row's status as far as it is known: a create of this run answered it; anything older is the create answer of
 * an earlier run (nothing documented reads a status back), shown with its date, never as if it were current.
 */
async function statusCell(row: TemplatePushResult, store: FileTemplateStore): Promise<string> {
  if (row.result === 'failed') return '-';
  if (row.result === 'created') return row.status ?? '-';
  const stored = await store.get(row.name, row.language);
  if (stored?.status === undefined) return 'unknown';
  const when =
    stored.updatedAt === undefined ? '' : ` ${new Date(stored.updatedAt).toISOString().slice(0, 10)}`;
  return `unknown (${stored.status} when created${when})`;
}

/** The `.d.ts` for `definitions`: JSON is TypeScript type syntax, so each value is its own type. */
export function definitionTypes(
  definitions: { source: TemplateSource; definition: TemplateDefinition }[],
  from: string,
): string {
  const lines = [
    '// Generated by `wa-gateway templates types`: do not edit; run it again when a template changes.',
    '// Each type is the literal type of a JSON definition, as defineTemplate infers it from code:',
    "//   defineTemplate(json as TemplateDefinitions['order_shipped/en_US'])",
    '',
    'export interface TemplateDefinitions {',
  ];
  for (const { source, definition } of definitions) {
    const where = relative(from, source.file).split('\\').join('/') + source.label.slice(source.file.length);
    lines.push(`  /** ${where} */`);
    lines.push(
      `  ${JSON.stringify(`${definition.name}/${definition.language}`)}: ${JSON.stringify(definition)};`,
    );
  }
  lines.push('}', '');
  return lines.join('\n');
}

/** `<folder>/<name>.d.ts` (or `.d.mts`) of a module: TypeScript reads it in the module's place. */
function declarationOf(file: string): string | undefined {
  const ext = extname(file);
  if (ext === '.json') return undefined;
  const d = ext === '.mts' || ext === '.mjs' ? '.d.mts' : '.d.ts';
  return resolve(dirname(file), `${basename(file, ext)}${d}`);
}

async function types(path: string, values: { out?: string; check?: boolean }, io: CliIo): Promise<number> {
  const { from } = await sourcesOf(path);
  const out = values.out ?? join(from, 'templates.d.ts');
  const definitions = await loadDefinitions(path);
  const shadowed = definitions.find((d) => declarationOf(d.source.file) === resolve(out));
  if (shadowed)
    throw new UsageError(
      `${out} would be the declaration file of ${shadowed.source.file}, which TypeScript would then read instead of the module: pass --out <another file>.`,
    );
  const text = definitionTypes(definitions, from);
  if (values.check) {
    const current = await readFile(out, 'utf8').catch(() => '');
    if (current === text) return EXIT.ok;
    io.stderr(`${out} is not up to date: run 'wa-gateway templates types ${path}'.\n`);
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
  if (!dir || rest.length > 0) throw new UsageError(`templates ${sub} takes one <dir> or <file>.`);
  if (sub === 'check') return check(dir, values.json === true, io);
  if (sub === 'push') return push(dir, values, io);
  return types(dir, values, io);
}
