/**
 * The template definitions `wa-gateway templates check|push|types` read: JSON files (one create request each) and
 * modules (`.ts`, `.mts`, `.js`, `.mjs`) whose exports are definitions, in a folder or one file.
 *
 * A module's definitions are every export, default or named, that is a template create request (an object with a
 * string `name` and a `language`, `category` or `body`: what `defineTemplate` returns) or an array of them; other
 * exports (helpers, constants) are left alone, and one definition exported twice counts once. TypeScript is
 * loaded through `tsx` when it is installed (an optional peer: the project's own `tsx`), else by Node's own type
 * stripping where the Node version has it (22.18 and later); else the command says how to get one.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { extname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { type TemplateIssue, TemplateValidationError } from '../core/errors.js';
import { isRecord } from '../core/plain-data.js';
import { UsageError } from './io.js';

/** The extensions read, JSON first: what the usage and the docs list. */
export const SOURCE_EXTENSIONS = ['.json', '.ts', '.mts', '.js', '.mjs'] as const;
const MODULE_EXTENSIONS: ReadonlySet<string> = new Set(['.ts', '.mts', '.js', '.mjs']);
const TYPESCRIPT: ReadonlySet<string> = new Set(['.ts', '.mts']);

/** One definition as read: where from (`file`, and for a module the export), and the value, not yet validated. */
export interface TemplateSource {
  file: string;
  /** `file` for JSON; `file#export` for a module (`templates.ts#orderShipped`, `templates.ts#default[1]`). */
  label: string;
  input: unknown;
}

/** A file that gave no definition: not JSON, failed to import (an invalid `defineTemplate` included), or none. */
export interface SourceFailure {
  file: string;
  issues: TemplateIssue[];
}

/** The files of `path` to read: `path` itself when it is a file, else those of the folder, sorted. */
export async function sourceFiles(path: string): Promise<string[]> {
  let isFile: boolean;
  try {
    isFile = (await stat(path)).isFile();
  } catch (error) {
    const code = (error as { code?: string }).code;
    throw new UsageError(`cannot read '${path}'${code ? ` (${code})` : ''}.`);
  }
  if (isFile) {
    if (!isSource(path))
      throw new UsageError(`'${path}' is not a template source: ${SOURCE_EXTENSIONS.join(', ')}.`);
    return [path];
  }
  const entries = (await readdir(path, { recursive: true })) as string[];
  return entries
    .filter(
      (e) => isSource(e) && !e.split(/[\\/]/).some((part) => part.startsWith('.') || part === 'node_modules'),
    )
    .sort()
    .map((e) => join(path, e));
}

function isSource(file: string): boolean {
  // A declaration file (`templates.d.ts`, which `templates types` writes) holds no values.
  return (SOURCE_EXTENSIONS as readonly string[]).includes(extname(file)) && !/\.d\.m?ts$/.test(file);
}

/** Every definition of `files` and every file that gave none, in the files' order. */
export async function readSources(files: readonly string[]): Promise<(TemplateSource | SourceFailure)[]> {
  const out: (TemplateSource | SourceFailure)[] = [];
  const loader = new ModuleLoader();
  // One definition re-exported by another module (an index) is read once.
  const seen = new Set<unknown>();
  try {
    for (const file of files) {
      const read = MODULE_EXTENSIONS.has(extname(file))
        ? await moduleSources(file, loader, seen)
        : await jsonSource(file);
      if ('issues' in read) out.push(read);
      else out.push(...read);
    }
  } finally {
    await loader.close();
  }
  return out;
}

function failure(file: string, rule: string, message: string): SourceFailure {
  return { file, issues: [{ code: null, rule, path: [], field: '', message }] };
}

async function jsonSource(file: string): Promise<TemplateSource[] | SourceFailure> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    // One unreadable file (a dangling link, no permission) is its own row: the others are still checked.
    const code = (error as { code?: string }).code;
    return failure(file, 'file.read', `The file could not be read${code ? ` (${code})` : ''}.`);
  }
  try {
    return [{ file, label: file, input: parseJsonFile(text) }];
  } catch (error) {
    return failure(file, 'json.parse', `The file is not valid JSON: ${(error as Error).message}.`);
  }
}

/**
 * A JSON file's text parsed, without the byte order mark some editors (Windows Notepad) write before it, which
 * `JSON.parse` refuses. Throws `JSON.parse`'s error otherwise.
 */
export function parseJsonFile(text: string): unknown {
  return JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
}

async function moduleSources(
  file: string,
  loader: ModuleLoader,
  seen: Set<unknown>,
): Promise<TemplateSource[] | SourceFailure> {
  let exports: Record<string, unknown>;
  try {
    exports = await loader.import(file);
  } catch (error) {
    if (error instanceof TypeScriptLoaderMissing) throw error;
    // An invalid defineTemplate throws while the module loads: its issues are the file's.
    if (error instanceof TemplateValidationError) return { file, issues: error.issues };
    const why = error instanceof Error ? `${error.name}: ${error.message.split('\n')[0]}` : String(error);
    return failure(file, 'module.import', `The module could not be imported (${why}).`);
  }
  const sources: TemplateSource[] = [];
  let found = 0;
  const add = (label: string, input: unknown) => {
    found++;
    if (seen.has(input)) return;
    seen.add(input);
    sources.push({ file, label: `${file}#${label}`, input });
  };
  // Named exports first (a module namespace lists them by name), so a definition also in a default array keeps
  // its name.
  for (const name of [...Object.keys(exports).filter((k) => k !== 'default'), 'default']) {
    if (!(name in exports)) continue;
    const value = exports[name];
    if (looksLikeTemplate(value)) add(name, value);
    else if (Array.isArray(value) && value.some(looksLikeTemplate))
      value.forEach((item, i) => {
        add(`${name}[${i}]`, item);
      });
  }
  if (found === 0)
    return failure(
      file,
      'module.no_templates',
      'The module exports no template definition: export each (or an array of them), e.g. export const orderShipped = defineTemplate({ ... }).',
    );
  return sources;
}

/** A create request, as far as telling it from a module's other exports goes; the rule table judges the rest. */
function looksLikeTemplate(value: unknown): boolean {
  return (
    isRecord(value) &&
    typeof value['name'] === 'string' &&
    ('language' in value || 'category' in value || 'body' in value)
  );
}

/** Thrown when a TypeScript module cannot be loaded by anything here: the command fails with the fix. */
class TypeScriptLoaderMissing extends Error {
  constructor(file: string) {
    super(
      `reading ${file} needs a TypeScript loader, and Node ${process.versions.node} has none of its own: ` +
        'install tsx (`npm install --save-dev tsx`), or run on Node 22.18 or later (which strips types itself), ' +
        'or point the command at the compiled .js.',
    );
  }
}

/** tsx's scoped loader (`tsx/esm/api`'s `register({ namespace })`): imports through tsx, without affecting others. */
interface TsxScope {
  import(specifier: string, parentURL: string): Promise<Record<string, unknown>>;
  unregister(): Promise<void>;
}

/** Imports modules, TypeScript through tsx (one registration for the whole run) or Node's type stripping. */
class ModuleLoader {
  #tsx: Promise<TsxScope | undefined> | undefined;

  async import(file: string): Promise<Record<string, unknown>> {
    const url = pathToFileURL(resolve(file)).href;
    if (!TYPESCRIPT.has(extname(file))) return (await import(url)) as Record<string, unknown>;
    this.#tsx ??= loadTsx();
    const tsx = await this.#tsx;
    if (tsx) return tsx.import(url, import.meta.url);
    // Node 22.18 and later strip types themselves (`process.features.typescript`, not in Node 20's types).
    if ((process.features as { typescript?: unknown }).typescript)
      return (await import(url)) as Record<string, unknown>;
    throw new TypeScriptLoaderMissing(file);
  }

  async close(): Promise<void> {
    const tsx = await this.#tsx;
    await tsx?.unregister();
  }
}

/** tsx's scoped loader, `undefined` when tsx is not installed; a tsx without one (before 4.10) is an error. */
async function loadTsx(): Promise<TsxScope | undefined> {
  let api: { register?: (options: { namespace: string }) => Partial<TsxScope> };
  try {
    api = (await import(TSX_API)) as typeof api;
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (
      code === 'ERR_MODULE_NOT_FOUND' ||
      code === 'MODULE_NOT_FOUND' ||
      code === 'ERR_PACKAGE_PATH_NOT_EXPORTED'
    )
      return undefined;
    throw error;
  }
  const scope = api.register?.({ namespace: `wa-gateway-templates-${process.pid}` });
  if (typeof scope?.import !== 'function')
    throw new Error('the installed tsx has no scoped loader: wa-gateway templates needs tsx 4.10 or later.');
  return scope as TsxScope;
}

// A variable, so that the bundler leaves the optional peer to be resolved at run time.
const TSX_API = 'tsx/esm/api';
