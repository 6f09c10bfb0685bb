/**
 * The public options compile under `exactOptionalPropertyTypes: true` (TypeScript 7's `tsc --init` turns it on),
 * where `prop?: T` refuses an explicit `undefined` (TS2379) and `prop?: T | undefined` takes it: an option read
 * from `process.env` may be `undefined`, and the SDK reads `undefined` as the option left out. The project compiles
 * without the flag, so this suite compiles with it: `exact-optional/consumer.ts`, which gives every option a value
 * that may be `undefined`, and every optional property reachable from the entries' functions, constructors and
 * methods (an option added later is held to the rule too).
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CONSUMER = join(ROOT, 'test/types/exact-optional/consumer.ts');
const ENTRIES = [
  'src/index.ts',
  'src/templates/index.ts',
  'src/webhooks/index.ts',
  'src/testing/index.ts',
  'src/redis/index.ts',
  'src/schemas.ts',
  'src/conversations/index.ts',
  'src/durable-objects/index.ts',
].map((e) => join(ROOT, e));
/**
 * Optional properties reachable from a public signature that are not options: what the SDK builds and hands out
 * (errors' details, records, a store's own settings, a retry table) or data checked at run time (`unknown`).
 * Keyed by the declaration that holds them.
 */
const NOT_OPTIONS = new Set([
  'WaGatewayError',
  'ApiErrorDetails',
  'ConnectionError.constructor',
  'InvalidResponseError.constructor',
  'LoginFailedError',
  'RateLimitError.constructor',
  'StreamError.constructor',
  'StreamInterruptedError.constructor',
  'RedisStoreError.constructor',
  'TemplateSendProblem',
  'RetryRules',
  'TemplateRecord',
  'CatalogEntry',
  'CampaignStore',
  'UpstreamFailure',
  'TemplateRegistry.refusal',
]);

let program: ts.Program;
beforeAll(() => {
  const config = ts.getParsedCommandLineOfConfigFile(
    join(ROOT, 'tsconfig.json'),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
      },
    },
  );
  if (!config) throw new Error('cannot read tsconfig.json');
  program = ts.createProgram({
    rootNames: [CONSUMER, ...ENTRIES],
    options: { ...config.options, noEmit: true, exactOptionalPropertyTypes: true },
  });
  // The type check itself, here under the hook's long timeout rather than in a test's (it takes seconds on a busy
  // machine): the tests below read its cached diagnostics.
  program.getTypeChecker();
  ts.getPreEmitDiagnostics(program, program.getSourceFile(CONSUMER));
}, 120_000);

describe('options accept undefined under exactOptionalPropertyTypes', () => {
  it('a consumer giving every option a value that may be undefined compiles', () => {
    const file = program.getSourceFile(CONSUMER)!;
    const errors = ts.getPreEmitDiagnostics(program, file).map((d) => {
      const line = d.start === undefined ? 0 : file.getLineAndCharacterOfPosition(d.start).line + 1;
      return `consumer.ts:${line}: TS${d.code} ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
    });
    expect(errors).toEqual([]);
  });

  it('every optional property of a type a public signature takes is declared `?: T | undefined`', () => {
    expect(refusingUndefined(program)).toEqual([]);
  });
});

/** The optional properties, reachable from the entries' parameters, whose declared type refuses `undefined`. */
function refusingUndefined(program: ts.Program): string[] {
  const checker = program.getTypeChecker();
  const src = join(ROOT, 'src');
  const found = new Set<string>();
  const seen = new Set<ts.Type>();
  const inSrc = (n: ts.Node) => n.getSourceFile().fileName.startsWith(src);
  const isPrivate = (d: ts.Declaration | undefined) =>
    d !== undefined &&
    ((ts.isPropertyDeclaration(d) || ts.isMethodDeclaration(d)) && ts.isPrivateIdentifier(d.name)
      ? true
      : (ts.getCombinedModifierFlags(d) & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected)) !== 0);
  const takesUndefined = (node: ts.TypeNode): boolean =>
    node.kind === ts.SyntaxKind.UndefinedKeyword ||
    node.kind === ts.SyntaxKind.UnknownKeyword ||
    node.kind === ts.SyntaxKind.AnyKeyword ||
    (ts.isUnionTypeNode(node) && node.types.some(takesUndefined)) ||
    (ts.isParenthesizedTypeNode(node) && takesUndefined(node.type));
  const ownerOf = (n: ts.Node): string => {
    const names: string[] = [];
    for (let p: ts.Node | undefined = n.parent; p; p = p.parent) {
      if (ts.isInterfaceDeclaration(p) || ts.isTypeAliasDeclaration(p) || ts.isClassDeclaration(p)) {
        names.unshift(p.name?.text ?? '');
        break;
      }
      if (ts.isConstructorDeclaration(p)) names.unshift('constructor');
      else if (
        (ts.isMethodDeclaration(p) || ts.isMethodSignature(p) || ts.isFunctionDeclaration(p)) &&
        p.name
      )
        names.unshift(p.name.getText());
    }
    return names.join('.');
  };
  const visitType = (t: ts.Type, depth: number): void => {
    if (depth > 6 || seen.has(t)) return;
    seen.add(t);
    if (t.isUnion() || t.isIntersection()) {
      for (const u of t.types) visitType(u, depth);
      return;
    }
    if (!(t.flags & ts.TypeFlags.Object)) return;
    const first = (t.getSymbol() ?? t.aliasSymbol)?.declarations?.[0];
    if (first && !inSrc(first)) return;
    for (const prop of checker.getPropertiesOfType(t)) {
      const decls = prop.declarations ?? [];
      if (decls.some(isPrivate)) continue;
      for (const d of decls) {
        if (!inSrc(d) || !(ts.isPropertySignature(d) || ts.isPropertyDeclaration(d))) continue;
        if (!d.questionToken || !d.type || takesUndefined(d.type)) continue;
        const owner = ownerOf(d);
        if (NOT_OPTIONS.has(owner)) continue;
        found.add(`${d.getSourceFile().fileName.slice(ROOT.length)}: ${owner}.${prop.name}`);
      }
      const type = checker.getTypeOfSymbol(prop);
      if (type.getCallSignatures().length === 0) visitType(checker.getNonNullableType(type), depth + 1);
    }
  };
  const visitSignature = (s: ts.Signature) => {
    for (const p of s.getParameters()) visitType(checker.getNonNullableType(checker.getTypeOfSymbol(p)), 0);
  };
  const visitValue = (t: ts.Type, depth: number): void => {
    if (depth > 3) return;
    for (const s of [...t.getCallSignatures(), ...t.getConstructSignatures()]) visitSignature(s);
    for (const prop of checker.getPropertiesOfType(t)) {
      const d = prop.declarations?.[0];
      if (!d || !inSrc(d) || isPrivate(d)) continue;
      const type = checker.getTypeOfSymbol(prop);
      const calls = type.getCallSignatures();
      if (calls.length > 0) for (const s of calls) visitSignature(s);
      else if (type.flags & ts.TypeFlags.Object && !seen.has(type)) visitValue(type, depth + 1);
    }
  };
  for (const entry of ENTRIES) {
    const module = checker.getSymbolAtLocation(program.getSourceFile(entry)!)!;
    for (const exported of checker.getExportsOfModule(module)) {
      const symbol = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
      if (symbol.flags & ts.SymbolFlags.Value) visitValue(checker.getTypeOfSymbol(symbol), 0);
      if (symbol.flags & ts.SymbolFlags.Class) visitValue(checker.getDeclaredTypeOfSymbol(symbol), 0);
      if (symbol.flags & (ts.SymbolFlags.Interface | ts.SymbolFlags.TypeAlias)) {
        const declared = checker.getDeclaredTypeOfSymbol(symbol);
        // An exported interface's methods (a router's `flow`, a worker's `failed`) take options too.
        visitValue(declared, 0);
        if (/Options$/.test(exported.name)) visitType(declared, 0);
      }
    }
  }
  return [...found].sort();
}
