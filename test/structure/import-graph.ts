/**
 * The import graph of `src/`, read from the code's own import and export declarations (TypeScript's parser, so a
 * multi-line or type-only import counts as the compiler sees it), and the walks CONTRIBUTING.md writes down.
 * Shared by `layers.test.ts` (the rules on the graph) and `walks.test.ts` (the walks, run).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const SRC = join(ROOT, 'src');

/** One import of a file: the file it names, and whether it brings a value (else types only, erased at build). */
export interface Edge {
  to: string;
  value: boolean;
}

/** Every `.ts` file of `src/`, as a path relative to it (`core/transport.ts`). */
export function sourceFiles(dir: string = SRC): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .map((f) => f.split('\\').join('/'))
    .sort();
}

/** Whether a declaration brings no value: `import type`, `export type`, or only `type` specifiers. */
function typeOnly(node: ts.ImportDeclaration | ts.ExportDeclaration): boolean {
  if (ts.isImportDeclaration(node)) {
    const clause = node.importClause;
    if (!clause) return false;
    if (clause.isTypeOnly) return true;
    if (clause.name) return false;
    const bindings = clause.namedBindings;
    if (!bindings || ts.isNamespaceImport(bindings)) return false;
    return bindings.elements.length > 0 && bindings.elements.every((e) => e.isTypeOnly);
  }
  if (node.isTypeOnly) return true;
  const clause = node.exportClause;
  return (
    !!clause &&
    ts.isNamedExports(clause) &&
    clause.elements.length > 0 &&
    clause.elements.every((e) => e.isTypeOnly)
  );
}

/** The relative imports of every file of `src/` that name another file of `src/`. */
export function importGraph(dir: string = SRC): Map<string, Edge[]> {
  const files = sourceFiles(dir);
  const known = new Set(files);
  const graph = new Map<string, Edge[]>();
  for (const file of files) {
    const source = ts.createSourceFile(file, readFileSync(join(dir, file), 'utf8'), ts.ScriptTarget.Latest);
    const edges: Edge[] = [];
    const add = (specifier: string, value: boolean) => {
      if (!specifier.startsWith('.')) return;
      const target = posix.join(posix.dirname(file), specifier).replace(/\.js$/, '.ts');
      if (known.has(target)) edges.push({ to: target, value });
    };
    const visit = (node: ts.Node) => {
      if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier) {
        if (ts.isStringLiteral(node.moduleSpecifier)) add(node.moduleSpecifier.text, !typeOnly(node));
      } else if (
        ts.isCallExpression(node) &&
        node.expression.kind === ts.SyntaxKind.ImportKeyword &&
        node.arguments[0] &&
        ts.isStringLiteral(node.arguments[0])
      ) {
        add(node.arguments[0].text, true);
      } else if (ts.isImportTypeNode(node)) {
        const arg = node.argument;
        if (ts.isLiteralTypeNode(arg) && ts.isStringLiteral(arg.literal)) add(arg.literal.text, false);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
    graph.set(file, edges);
  }
  return graph;
}

/** The groups of files that import each other round (strongly connected components of two or more files). */
export function circles(graph: Map<string, Edge[]>): string[][] {
  let index = 0;
  const stack: string[] = [];
  const onStack = new Set<string>();
  const indexOf = new Map<string, number>();
  const low = new Map<string, number>();
  const found: string[][] = [];
  const connect = (v: string) => {
    indexOf.set(v, index);
    low.set(v, index);
    index++;
    stack.push(v);
    onStack.add(v);
    for (const { to } of graph.get(v) ?? []) {
      if (!indexOf.has(to)) {
        connect(to);
        low.set(v, Math.min(low.get(v)!, low.get(to)!));
      } else if (onStack.has(to)) low.set(v, Math.min(low.get(v)!, indexOf.get(to)!));
    }
    if (low.get(v) === indexOf.get(v)) {
      const group: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        group.push(w);
      } while (w !== v);
      if (group.length > 1) found.push(group.sort());
    }
  };
  for (const v of graph.keys()) if (!indexOf.has(v)) connect(v);
  return found;
}

/** The files `file` reaches through value imports (the code that can run when it does), itself left out. */
export function valueClosure(graph: Map<string, Edge[]>, file: string): Set<string> {
  const seen = new Set<string>();
  const visit = (f: string) => {
    for (const { to, value } of graph.get(f) ?? []) {
      if (!value || seen.has(to) || to === file) continue;
      seen.add(to);
      visit(to);
    }
  };
  visit(file);
  return seen;
}

/**
 * The files of a walk CONTRIBUTING.md writes down under `### <heading>`: its numbered items that start with a
 * backquoted `src/...` path, in order, as paths relative to `src/`.
 */
export function walkFiles(guide: string, heading: string): string[] | undefined {
  const start = guide.indexOf(`\n### ${heading}\n`);
  if (start < 0) return undefined;
  const rest = guide.slice(start + heading.length + 6);
  const end = rest.search(/\n##/);
  const section = end < 0 ? rest : rest.slice(0, end);
  return [...section.matchAll(/^\d+\. `src\/([^`]+)`/gm)].map((m) => m[1]!);
}

export const GUIDE = readFileSync(join(ROOT, 'CONTRIBUTING.md'), 'utf8');

/**
 * The walks CONTRIBUTING.md writes down, by heading. `chain`: a reading order, each file importing only files after
 * it in the list. `spine`: the first file calls each of the others once, in that order, and none of those reaches
 * another file of the walk (no step calls back into an earlier one, or ahead into a later one).
 */
export const WALKS = [
  { heading: 'Following one request', kind: 'chain' },
  { heading: 'Following one webhook delivery', kind: 'spine' },
  { heading: "Following a client's options", kind: 'spine' },
] as const;
