/**
 * The docs check's reading side: every ```ts block of README.md, CONTRIBUTING.md and docs/*.md, where it is (file:line), what its
 * marker asks for, and the module file it becomes. `npm test` runs the check (test/docs/docs-check.test.ts).
 * The conventions:
 *
 * - every block is typechecked under strict as a standalone module; 'wa-gateway-sdk' and its subpaths resolve to
 *   src/. Free variables are declared in the block (`declare const gw: GatewayClient;`).
 * - `<!-- docs-check: run -->` right before a block also runs it with tsx: gateway calls go to a started
 *   sandbox (`GATEWAY_BASE_URL`, `GATEWAY_API_KEY`), the example hosts (gw.example.com, api.example.com,
 *   platform.example.com, stream.example.com) to the SDK's msw handlers. `<!-- docs-check: run POST /path -->`
 *   also delivers a webhook to the block's `export default` (anything with `fetch`) and expects 200. A block named
 *   `*.test.ts` is run with vitest instead.
 * - `<!-- docs-check: skip (reason) -->` skips a block; the reason is required.
 * - `<!-- docs-check: excerpt src/path.ts -->` marks a block quoted from a source file: it is not compiled on its
 *   own (the file is), but each of its lines must stand in that file, in the same order, so a quote cannot drift
 *   from the code it shows. A line starting `// ...` stands for lines left out.
 * - a block whose first line is `// name.ts` is written under that name, so a later block of the same page can
 *   import it (`./name.js`).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';

export interface DocBlock {
  /** `docs/webhooks.md:131`: the line of the opening fence. */
  where: string;
  doc: string;
  /** 1-based line of the opening fence; the code starts on the next line. */
  line: number;
  code: string;
  mode: 'check' | 'run' | 'skip' | 'excerpt';
  /** For `skip`: why. */
  reason?: string;
  /** For `excerpt`: the repository-relative source file the block quotes. */
  source?: string;
  /** For `run POST /path`: the webhook path to deliver to. */
  deliverPath?: string;
  /** The module's path relative to the generated directory: `<page>/<name>.ts`. */
  file: string;
}

const MARKER = /^<!--\s*docs-check:\s*(.*?)\s*-->$/;

/** A marker that is not understood is an error, not a silent check: a typo must not skip a run. */
function parseMarker(
  text: string,
  where: string,
): Pick<DocBlock, 'mode' | 'reason' | 'deliverPath' | 'source'> {
  if (text === 'run') return { mode: 'run' };
  const excerpt = /^excerpt (\S+\.ts)$/.exec(text);
  if (excerpt) return { mode: 'excerpt', source: excerpt[1]! };
  const deliver = /^run POST (\/\S*)$/.exec(text);
  if (deliver) return { mode: 'run', deliverPath: deliver[1]! };
  const skip = /^skip \((.+)\)$/.exec(text);
  if (skip?.[1]?.trim()) return { mode: 'skip', reason: skip[1].trim() };
  throw new Error(
    `${where}: docs-check marker '${text}' is not one of 'run', 'run POST /path', 'skip (reason)', 'excerpt src/file.ts'` +
      (text.startsWith('skip') ? ': a skip needs its reason in parentheses' : ''),
  );
}

/** The ```ts blocks of one markdown text. */
export function extractBlocks(doc: string, text: string): DocBlock[] {
  const lines = text.split('\n');
  const blocks: DocBlock[] = [];
  const page = basename(doc, '.md');
  for (let i = 0; i < lines.length; i++) {
    if (!/^```ts\s*$/.test(lines[i]!)) continue;
    const line = i + 1;
    const where = `${doc}:${line}`;
    let end = i + 1;
    while (end < lines.length && !/^```\s*$/.test(lines[end]!)) end++;
    if (end === lines.length) throw new Error(`${where}: the block is never closed`);
    const code = lines.slice(i + 1, end).join('\n');
    let before = i - 1;
    while (before >= 0 && lines[before]!.trim() === '') before--;
    const marker = before >= 0 ? MARKER.exec(lines[before]!.trim()) : null;
    const mode = marker ? parseMarker(marker[1]!, where) : { mode: 'check' as const };
    const named = /^\/\/ (?:[\w./-]*\/)?([\w.-]+\.ts)\s*$/.exec(code.split('\n')[0] ?? '');
    const file = `${page}/${named ? named[1] : `L${line}.ts`}`;
    if (blocks.some((b) => b.file === file)) throw new Error(`${where}: a second block named ${file}`);
    blocks.push({ where, doc, line, code, file, ...mode });
    i = end;
  }
  return blocks;
}

/** README.md, CONTRIBUTING.md and docs/*.md of the repository at `root`. */
export function docFiles(root: string): string[] {
  const docs = readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`);
  return ['README.md', 'CONTRIBUTING.md', ...docs];
}

/**
 * The lines of an excerpt that do not stand, in order, in its source: empty when the quote is faithful. Lines are
 * compared trimmed (a quote may be re-indented); blank lines and lines starting `// ...` (what the quote leaves out) are skipped.
 */
export function excerptDrift(code: string, source: string): string[] {
  const wanted = code
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('// ...'));
  const have = source.split('\n').map((l) => l.trim());
  const missing: string[] = [];
  let at = 0;
  for (const line of wanted) {
    const found = have.indexOf(line, at);
    if (found === -1) missing.push(line);
    else at = found + 1;
  }
  return missing;
}

export function allBlocks(root: string): DocBlock[] {
  return docFiles(root).flatMap((doc) => extractBlocks(doc, readFileSync(join(root, doc), 'utf8')));
}
