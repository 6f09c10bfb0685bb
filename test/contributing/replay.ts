/**
 * The machinery of the walk-through replays (walk-throughs.proof.test.ts): a throwaway copy of the repository, the edits
 * a walk-through's steps make to it, one TypeScript program over the copy (and, for the guide's "does not compile
 * until" claims, the same program with the claimed steps left out), and one vitest run in the copy.
 *
 * A step is an edit anchored on the source as it is: an anchor that is missing, or found twice, throws a message
 * naming the step, so a source that moved away from what the guide describes fails loudly instead of being
 * patched somewhere else.
 */
import { execFile, spawn } from 'node:child_process';
import {
  closeSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** An edit of one file's text; `undefined` in is a file that does not exist yet. */
export type Edit = (source: string | undefined) => string;

/** One instruction of a walk-through, as the reader carries it out. */
export interface Step {
  /**
   * The guide's words this step carries out, quoted from its section (white space may differ): the replay checks
   * they are still there, so a changed instruction cannot leave a stale replay behind.
   */
  guide: string;
  /** The repository path it edits or creates. */
  file: string;
  edit: Edit;
  /**
   * The guide says the code does not compile without this step: left out, the compiler must report an error in
   * `file`, inside the top-level statement that holds `near`, mentioning `mentions`.
   */
  needed?: { near: string; mentions: string };
}

/** A command the guide tells the reader to run, run in the copy after every edit is written. */
export interface Command {
  guide: string;
  command: readonly string[];
}

/** One of CONTRIBUTING.md's walk-throughs, replayed for a new, test-only thing. */
export interface WalkThrough {
  /** The heading of its section in CONTRIBUTING.md, without `## `. */
  section: string;
  steps: readonly Step[];
  commands?: readonly Command[];
  /** The test files the guide says cover the new thing (paths in the repository), run in the copy. */
  tests: readonly string[];
  /** Titles of tests the steps added (in those files) that must have run and passed: the new thing's own cases. */
  newTests: readonly string[];
  /** A test written into the copy, not by the guide, that uses the new thing end to end through the public entries. */
  proof: { file: string; code: string };
}

// ---------------------------------------------------------------------------------------------------------------
// Edits.

function indexOfOnce(source: string, anchor: string, from: number, what: string): number {
  const at = source.indexOf(anchor, from);
  if (at < 0)
    throw new Error(`${what}: '${anchor}' is not in the file (the source changed: update the replay)`);
  if (source.indexOf(anchor, at + 1) >= 0)
    throw new Error(`${what}: '${anchor}' is in the file more than once: give the step a narrower anchor`);
  return at;
}

function existing(source: string | undefined): string {
  if (source === undefined) throw new Error('the step edits a file that does not exist');
  return source;
}

/** Inserts `text` as whole lines before or after the line that holds `anchor` (looked for after `within`). */
const insert =
  (side: 'before' | 'after', anchor: string, text: string, within?: string): Edit =>
  (source) => {
    const s = existing(source);
    const from = within === undefined ? 0 : indexOfOnce(s, within, 0, side);
    const at = indexOfOnce(s, anchor, from, side);
    const cut = side === 'before' ? s.lastIndexOf('\n', at) + 1 : s.indexOf('\n', at) + 1 || s.length;
    return s.slice(0, cut) + text.replace(/\n?$/, '\n') + s.slice(cut);
  };

/** Inserts `text` (whole lines) after the line that holds `anchor` (looked for after `within`, when given). */
export const after = (anchor: string, text: string, within?: string): Edit =>
  insert('after', anchor, text, within);

/** Inserts `text` (whole lines) before the line that holds `anchor`. */
export const before = (anchor: string, text: string): Edit => insert('before', anchor, text);

/** Replaces the one occurrence of `find` with `replacement`. */
export const replace =
  (find: string, replacement: string): Edit =>
  (source) => {
    const s = existing(source);
    const at = indexOfOnce(s, find, 0, 'replace');
    return s.slice(0, at) + replacement + s.slice(at + find.length);
  };

/** A new file; a file already there is an error (the replay's names must be new). */
export const create =
  (text: string): Edit =>
  (source) => {
    if (source !== undefined) throw new Error('create: the file already exists');
    return text;
  };

/** Several edits of one file, in order. */
export const all =
  (...edits: Edit[]): Edit =>
  (source) =>
    edits.reduce<string | undefined>((s, e) => e(s), source) as string;

// ---------------------------------------------------------------------------------------------------------------
// The guide.

const collapse = (text: string) => text.replace(/\s+/g, ' ').trim();

/** The text of a `## ` section of CONTRIBUTING.md, white space collapsed; `undefined` when there is no such section. */
export function guideSection(guide: string, heading: string): string | undefined {
  const parts = guide.split(/^## /m);
  const part = parts.find((p) => p.split('\n', 1)[0]!.trim() === heading);
  return part === undefined ? undefined : collapse(part);
}

/** The quotes of `quotes` that the section does not contain (white space collapsed). */
export function missingQuotes(section: string, quotes: readonly string[]): string[] {
  return quotes.filter((q) => !section.includes(collapse(q)));
}

// ---------------------------------------------------------------------------------------------------------------
// The copy.

/** What the copy holds: enough to compile src/ and run the test suites the walk-throughs name. */
const COPIED = ['src', 'test', 'scripts', 'docs', 'package.json', 'tsconfig.json', 'vitest.config.ts'];

export interface Diagnostic {
  /** Repository path, or `''` for a global diagnostic. */
  file: string;
  line: number;
  /** 0-based offset in the file. */
  start: number;
  text: string;
}

export interface TestResult {
  file: string;
  status: string;
  /** Why the file failed as a whole (an import that threw, ...), when it did. */
  message: string;
  tests: { title: string; fullName: string; status: string; failure: string }[];
}

/**
 * A throwaway copy of the repository, with `node_modules` linked. Files are edited through `apply`, which returns
 * every changed file's text (the overlay) so that a variant (some steps left out) can be compiled without writing it.
 */
export class RepoCopy {
  readonly dir: string;
  readonly #sources = new Map<string, ts.SourceFile>();
  readonly #originals = new Map<string, string | undefined>();

  constructor() {
    this.dir = mkdtempSync(join(tmpdir(), 'wa-walk-throughs-'));
    for (const name of COPIED) {
      cpSync(join(ROOT, name), join(this.dir, name), {
        recursive: true,
        // The generated API pages (typedoc's, git-ignored) are not part of the repository.
        filter: (from) => relative(ROOT, from).split(sep).join('/') !== 'docs/api',
      });
    }
    symlinkSync(realpathSync(join(ROOT, 'node_modules')), join(this.dir, 'node_modules'), 'dir');
  }

  /** The text of a repository path before any write; `undefined` when the repository has no such file. */
  original(file: string): string | undefined {
    if (!this.#originals.has(file)) {
      const path = join(this.dir, file);
      this.#originals.set(file, existsSync(path) ? readFileSync(path, 'utf8') : undefined);
    }
    return this.#originals.get(file);
  }

  /**
   * Every file the steps change, with its text after them, applied in order; each file of `alsoReset` they leave
   * alone is given its original text (so a variant can stand in for a copy that holds more steps).
   */
  apply(steps: readonly Step[], alsoReset: Iterable<string> = []): Map<string, string> {
    const out = new Map<string, string>();
    for (const file of alsoReset) {
      const text = this.original(file);
      if (text !== undefined) out.set(file, text);
    }
    for (const step of steps) {
      try {
        const current = out.get(step.file) ?? this.original(step.file);
        out.set(step.file, step.edit(current));
      } catch (error) {
        throw new Error(`step '${step.guide}' on ${step.file}: ${(error as Error).message}`);
      }
    }
    return out;
  }

  write(files: ReadonlyMap<string, string>): void {
    for (const [file, text] of files) {
      this.original(file);
      mkdirSync(dirname(join(this.dir, file)), { recursive: true });
      writeFileSync(join(this.dir, file), text);
    }
  }

  /** Runs a command in the copy; rejects with its output when it fails. */
  run(command: readonly string[]): Promise<string> {
    return new Promise((resolve, reject) => {
      execFile(
        command[0]!,
        command.slice(1),
        { cwd: this.dir, timeout: 120_000 },
        (error, stdout, stderr) => {
          if (error) reject(new Error(`${command.join(' ')} failed:\n${stdout}${stderr}`));
          else resolve(stdout + stderr);
        },
      );
    });
  }

  /**
   * One TypeScript program over the copy's `files` (repository paths), under the repository's tsconfig, with
   * `overlay` (repository path → text) standing in for files on disk. Parsed files are shared between programs,
   * so a variant re-parses only what it changes. Returns the program and a diagnostics reader.
   */
  program(files: readonly string[], overlay: ReadonlyMap<string, string> = new Map()): ts.Program {
    const config = ts.getParsedCommandLineOfConfigFile(
      join(this.dir, 'tsconfig.json'),
      {},
      {
        ...ts.sys,
        onUnRecoverableConfigFileDiagnostic: (d) => {
          throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
        },
      },
    );
    if (!config) throw new Error('cannot read the copy tsconfig.json');
    const options = { ...config.options, noEmit: true };
    const host = ts.createCompilerHost(options);
    const byPath = new Map([...overlay].map(([file, text]) => [join(this.dir, file), text]));
    const { fileExists, readFile, getSourceFile } = host;
    host.fileExists = (f) => byPath.has(f) || fileExists.call(host, f);
    host.readFile = (f) => byPath.get(f) ?? readFile.call(host, f);
    host.getSourceFile = (f, language, onError) => {
      const text = byPath.get(f);
      const key = text === undefined ? f : `${f}\u0000${text}`;
      let source = this.#sources.get(key);
      if (!source) {
        source =
          text === undefined
            ? getSourceFile.call(host, f, language, onError)
            : ts.createSourceFile(f, text, language);
        if (source) this.#sources.set(key, source);
      }
      return source;
    };
    return ts.createProgram({ rootNames: files.map((f) => join(this.dir, f)), options, host });
  }

  /** Errors of the whole program (as `tsc --noEmit` reports them), or of the given files only. */
  errors(program: ts.Program, only?: readonly string[]): Diagnostic[] {
    const diagnostics =
      only === undefined
        ? ts.getPreEmitDiagnostics(program)
        : only.flatMap((file) => {
            const source = program.getSourceFile(join(this.dir, file));
            if (!source) throw new Error(`${file} is not part of the program`);
            return [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)];
          });
    return diagnostics
      .filter((d) => d.category === ts.DiagnosticCategory.Error)
      .map((d) => ({
        file: d.file ? relative(this.dir, d.file.fileName).split(sep).join('/') : '',
        line: d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line + 1 : 0,
        start: d.start ?? 0,
        text: ts.flattenDiagnosticMessageText(d.messageText, '\n'),
      }));
  }

  /** The [start, end) offsets of the top-level statement of `file` (as `program` has it) whose text holds `near`. */
  statementHolding(program: ts.Program, file: string, near: string): [number, number] {
    const source = program.getSourceFile(join(this.dir, file));
    const statement = source?.statements.find((s) => s.getText(source).includes(near));
    if (!source || !statement) throw new Error(`${file} has no top-level statement holding '${near}'`);
    return [statement.getStart(source), statement.end];
  }

  /**
   * Starts one vitest run of `files` (repository paths) in the copy, with the repository's config; resolves to
   * each file's result. Its output goes to a file, never to a pipe this process could leave unread while busy.
   */
  vitest(files: readonly string[]): Promise<TestResult[]> {
    const report = join(this.dir, 'vitest-report.json');
    const log = join(this.dir, 'vitest.log');
    const fd = openSync(log, 'w');
    const vitest = join(this.dir, 'node_modules', 'vitest', 'vitest.mjs');
    const args = [vitest, 'run', '--reporter=json', `--outputFile=${report}`, ...files];
    return new Promise<TestResult[]>((resolve, reject) => {
      const child = spawn(process.execPath, args, { cwd: this.dir, stdio: ['ignore', fd, fd] });
      const timer = setTimeout(() => child.kill(), 180_000);
      child.on('error', reject);
      child.on('exit', () => {
        clearTimeout(timer);
        closeSync(fd);
        let json: {
          testResults: {
            name: string;
            status: string;
            message?: string;
            assertionResults: {
              title: string;
              fullName: string;
              status: string;
              failureMessages: string[];
            }[];
          }[];
        };
        try {
          json = JSON.parse(readFileSync(report, 'utf8')) as typeof json;
        } catch {
          reject(new Error(`vitest wrote no report:\n${readFileSync(log, 'utf8').slice(-4000)}`));
          return;
        }
        resolve(
          json.testResults.map((t) => ({
            file: relative(this.dir, t.name).split(sep).join('/'),
            status: t.status,
            message: t.message ?? '',
            tests: t.assertionResults.map((a) => ({
              title: a.title,
              fullName: a.fullName,
              status: a.status,
              failure: a.failureMessages.join('\n').split('\n').slice(0, 8).join('\n'),
            })),
          })),
        );
      });
    });
  }

  dispose(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}
