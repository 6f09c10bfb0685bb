/**
 * The checker generator: reads zod schemas through their definitions (`_zod.def`, as zod documents for library
 * authors) and writes plain JavaScript that answers as zod does: the same output on success, the same issues
 * (codes, paths, messages) on failure. No code is generated at run time, so Workers and a strict CSP get the
 * generated path too, and the code needs no zod at all: the portable entries check and shape a delivery with it
 * and never load zod.
 *
 * The schemas stay the only place a rule is written: every constant message is zod's own, computed here by zod's
 * error maps; a predicate or a transform is called, not copied (it must be an exported function of a zod-free
 * module, so the generated file can import it). A construct the generator does not model makes it throw: it never
 * writes a checker that could disagree. `npm run generate` writes the files, `npm run build` runs it first, and
 * `test/generated/fresh.test.ts` fails when a committed file is not what the schemas generate.
 */
import { createRequire } from 'node:module';
import { globalConfig } from 'zod/v4/core';
import { receivedName } from '../../src/core/checker-runtime.js';
import { madeBy } from '../../src/core/rule-factory.js';

/** A zod schema, read as zod's core documents it: the definition, and what zod derived from it. */
// biome-ignore lint/suspicious/noExplicitAny: a definition's fields depend on its `type`; each case reads its own.
type Def = any;
export interface Schema {
  _zod: {
    def: Def;
    optin?: 'optional' | 'defaulted' | undefined;
    optout?: 'optional' | undefined;
    propValues?: Record<string, Set<unknown>>;
    traits: Set<string>;
    run: unknown;
    check?: unknown;
  };
}

/** An exported function of a zod-free module, which the generated file imports to call. */
export interface FunctionRef {
  module: string;
  name: string;
}

export interface Root {
  /** The exported function: `check<Name>`. */
  name: string;
  schema: Schema;
  /** The output type and the module it is imported from (type only). */
  type?: { name: string; module: string };
  /**
   * Compiled with the module rather than on its first call: its function and those of the objects it holds are
   * written in parentheses, V8's hint to compile a function with the script. For what nearly every call meets.
   */
  eager?: boolean;
}

export interface GenerateOptions {
  /** Where the generated file imports the runtime from. */
  runtime: string;
  roots: Root[];
  /** Every function a schema calls (predicate, transform), by identity. */
  functions: ReadonlyMap<unknown, FunctionRef>;
  /**
   * Tables of checkers (`{ text: checker, ... }`), exported by name, keyed as the schemas' own table is; `eager`:
   * the keys whose checkers are compiled with the module (as `Root.eager`).
   */
  tables?: { name: string; doc: string; entries: Record<string, Schema>; eager?: string[] }[];
  /** What the file is, for its header. */
  what: string;
  /**
   * `'schema'`: the checker answers the verdict and the output only, and the caller asks the schema for the issues
   * of an input it refuses (the Node-only send path: its messages are closures of the schemas, and zod is loaded
   * there anyway). Its issues are then markers with no message; the rules the schema runs as `refine`s and checks
   * are called all the same, so the verdict is the schema's.
   */
  explain?: 'schema';
  /**
   * Inputs are plain JSON trees the caller owns (`JSON.parse`'s, or a plain copy): an object or array the schema
   * would return unchanged is returned as it is, tested by a predicate instead of copied. Its output then equals
   * zod's (same keys and values, the plain prototypes) without being a new object, so it must not be used where the
   * input is the user's own object or the output is changed afterwards. Two differences only a non-JSON input
   * shows: an array's own non-index properties are kept, and an enumerable key added to `Object.prototype` (a
   * polluted prototype) is not copied in as zod's copy would.
   */
  identity?: boolean;
}

class Unsupported extends Error {}

/** The zod the messages come from (the one the build bundles into the portable entries). */
export const ZOD_VERSION: string = (createRequire(import.meta.url)('zod/package.json') as { version: string })
  .version;

const lit = (v: unknown): string => {
  if (v === undefined) return 'undefined';
  if (typeof v === 'number' && !Number.isFinite(v)) return String(v);
  if (typeof v === 'bigint') throw new Unsupported('a bigint literal');
  return JSON.stringify(v);
};

const unwrap = (m: unknown): string | undefined =>
  typeof m === 'string'
    ? m
    : typeof m === 'object' && m !== null && 'message' in m
      ? String(m.message)
      : undefined;

/**
 * The message zod finalises a raw issue with: the raising schema's error map, the owning schema's, the global custom
 * map, the locale (zod's `finalizeIssue`, with no per-parse error map: the SDK passes none).
 */
function messageOf(raiser: Schema, owner: Schema | undefined, raw: Record<string, unknown>): string {
  const issue = { ...raw, inst: raiser };
  return (
    unwrap(raiser._zod.def.error?.(issue)) ??
    unwrap(owner && owner !== raiser ? owner._zod.def.error?.(issue) : undefined) ??
    unwrap(globalConfig.customError?.(issue as never)) ??
    unwrap(globalConfig.localeError?.(issue as never)) ??
    'Invalid input'
  );
}

/** The message of an issue no schema raised (zod's object raises `nonoptional` without one): the global maps. */
function globalMessage(raw: Record<string, unknown>): string {
  return (
    unwrap(globalConfig.customError?.(raw as never)) ??
    unwrap(globalConfig.localeError?.(raw as never)) ??
    'Invalid input'
  );
}

/** Inputs of every kind a type issue may be raised for: the message must be the same function of each. */
const SAMPLES: unknown[] = [
  Symbol('s'),
  null,
  undefined,
  'text',
  0,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  true,
  10n,
  [],
  {},
  Object.create(null),
  new Date(0),
  () => 0,
];

export function generate(options: GenerateOptions): string {
  const verdictOnly = options.explain === 'schema';
  // A function is written once its children are: `text` renders it, eager or lazy, when every name is known.
  const out: (string | { name: string; text: (eager: boolean) => string })[] = [];
  // The checkers of the eager roots and table entries, and of the objects they hold: V8 compiles a function in
  // parentheses with the script, where a first call's lazy compile would parse it a second time. Objects and
  // discriminated unions only: a valid scalar field is taken by its object's inline test, and its checker runs
  // only to raise the issue of an invalid one.
  const eagerReach = schemasOf([
    ...options.roots.filter((r) => r.eager).map((r) => r.schema),
    ...(options.tables ?? []).flatMap((t) => (t.eager ?? []).map((key) => t.entries[key]!)),
  ]);
  const eagerSchemas = new Set(
    [...eagerReach].filter((schema) => {
      const def = schema._zod.def;
      return def.type === 'object' || (def.type === 'union' && def.discriminator !== undefined);
    }),
  );
  const eagerNames = new Set<string>();
  const declare = (name: string, params: string, body: string) =>
    out.push({
      name,
      text: (eager) =>
        eager
          ? `const ${name} = (function ${name}(${params}) {\n${body}\n});`
          : `function ${name}(${params}) {\n${body}\n}`,
    });
  const names = new Map<Schema, string>();
  const imports = new Map<string, Set<string>>();
  const runtimeNames = new Set<string>();
  const rt = (name: string) => {
    runtimeNames.add(name);
    return name;
  };
  let counter = 0;
  const consts: string[] = [];
  const constantNames = new Map<string, string>();
  const constant = (prefix: string, code: string) => {
    const known = constantNames.get(code);
    if (known) return known;
    const name = `${prefix}${consts.length}`;
    consts.push(`const ${name} = ${code};`);
    constantNames.set(code, name);
    return name;
  };

  // Objects whose first fields are the same schemas as another object's (the messages' common fields): how many.
  const ids = new Map<Schema, number>();
  const idOf = (schema: Schema) => {
    if (!ids.has(schema)) ids.set(schema, ids.size);
    return ids.get(schema)!;
  };
  const prefixFns = new Map<string, string>();
  const sharedPrefix = sharedPrefixes([
    ...options.roots.map((r) => r.schema),
    ...(options.tables ?? []).flatMap((t) => Object.values(t.entries)),
  ]);

  const callable = (fn: unknown, what: string): string => {
    const product = madeBy(fn);
    const factory = product && options.functions.get(product.factory);
    if (product && factory) {
      if (!imports.has(factory.module)) imports.set(factory.module, new Set());
      imports.get(factory.module)!.add(factory.name);
      // The same rule, made once with the module by the same factory with the same arguments.
      return constant('R', `${factory.name}(${product.args.map(lit).join(', ')})`);
    }
    const ref = options.functions.get(fn);
    if (!ref) {
      throw new Unsupported(
        `${what}: the function is not an exported function of a module the generator knows. Export it from a ` +
          'zod-free module and list that module in scripts/generate-checkers.ts, so the generated file can call it.',
      );
    }
    if (!imports.has(ref.module)) imports.set(ref.module, new Set());
    imports.get(ref.module)!.add(ref.name);
    return ref.name;
  };

  /**
   * A type issue, as the generated code raises it: `T(expected, prefix, v)` when zod's message is a constant prefix
   * followed by the received value's name (the locale's), a constant issue when the schema's own map gives one text.
   */
  const typeIssueCode = (node: Schema, expected: string, extra: Record<string, unknown> = {}): string => {
    if (verdictOnly) return `{ expected: ${lit(expected)}, code: 'invalid_type', path: [], message: '' }`;
    const messages = SAMPLES.map((input) =>
      messageOf(node, undefined, { code: 'invalid_type', expected, input, ...extra }),
    );
    if (messages.every((m) => m === messages[0])) {
      return `{ expected: ${lit(expected)}, code: 'invalid_type', path: [], message: ${lit(messages[0])}${extraCode(extra)} }`;
    }
    const prefixes = SAMPLES.map((input, i) => {
      const name = receivedName(input);
      const m = messages[i]!;
      if (!m.endsWith(name))
        throw new Unsupported(`a type message that does not end with the received type: ${m}`);
      return m.slice(0, m.length - name.length);
    });
    if (!prefixes.every((p) => p === prefixes[0])) {
      throw new Unsupported(
        `a type message that depends on the input beyond its type: ${messages.join(' | ')}`,
      );
    }
    if (Object.keys(extra).length > 0)
      throw new Unsupported('a type issue with extra fields and a received name');
    return `${rt('typeIssue')}(${lit(expected)}, ${lit(prefixes[0])}, v)`;
  };
  /** `return <issue>` for a value of the wrong type, through `wrongType` when the message is zod's locale's. */
  const typeFailure = (node: Schema, expected: string, andReturn = true): string => {
    if (verdictOnly) return `${andReturn ? 'return ' : ''}${rt('refused')}(iss, v);`;
    const code = typeIssueCode(node, expected);
    const m = /^typeIssue\((".*?"), (".*"), v\)$/.exec(code);
    if (!m) return andReturn ? `{ iss.push(${code}); return v; }` : `iss.push(${code});`;
    // One constant per expected type: [expected, zod's message before the received type's name].
    return `${andReturn ? 'return ' : ''}${rt('wrongType')}(v, iss, ${constant('T', `[${m[1]}, ${m[2]}]`)});`;
  };
  const extraCode = (extra: Record<string, unknown>) =>
    Object.entries(extra)
      .map(([k, v]) => `, ${k}: ${lit(v)}`)
      .join('');

  /** The constant message of an issue whose message cannot depend on the input (checked on every sample). */
  const constMessage = (
    raiser: Schema,
    owner: Schema | undefined,
    raw: Record<string, unknown>,
    inputs: unknown[] = SAMPLES,
  ): string => {
    if (verdictOnly) return '';
    const messages = inputs.map((input) => messageOf(raiser, owner, { ...raw, input }));
    if (!messages.every((m) => m === messages[0])) {
      throw new Unsupported(`a message that depends on the input: ${messages.slice(0, 3).join(' | ')}`);
    }
    return messages[0]!;
  };

  /** The generated function of a schema: `(v, iss) => output`, pushing zod's issues with paths relative to `v`. */
  // Two schemas that generate the same body (two looseObjects of the same fields) share one function.
  const byBody = new Map<string, string>();
  function fn(node: Schema): string {
    const known = names.get(node);
    if (known) return known;
    const body = bodyOf(node);
    const same = byBody.get(body);
    if (same) {
      names.set(node, same);
      if (eagerSchemas.has(node)) eagerNames.add(same);
      return same;
    }
    const name = `c${counter++}`;
    names.set(node, name);
    byBody.set(body, name);
    if (eagerSchemas.has(node)) eagerNames.add(name);
    // A body that is one expression (`= ...`) is a checker a runtime factory makes: wrappers and literals, a few
    // bytes each in place of a function each (the Worker bundle's bar is on its size).
    if (body.startsWith('= ')) out.push(`const ${name} ${body};`);
    else declare(name, 'v, iss', body);
    return name;
  }

  /**
   * A node with checks, when the schema explains the issues: its parse (the node without its checks), then, only if
   * that raised nothing, each check on the output; the first that fails is the verdict. zod runs more of them
   * (a `when`, an issue that lets the node go on) only to report more issues, which the schema does here.
   */
  function verdictChecksBody(node: Schema): string {
    const parse = fn({ _zod: { ...node._zod, def: { ...node._zod.def, checks: [] } } });
    const failed = `return ${rt('refused')}(iss, r);`;
    const lines = [
      '  const s = iss.length;',
      `  const r = ${parse}(v, iss);`,
      '  if (iss.length !== s) return r;',
    ];
    // The payload the gates and the checks of their own are given, as zod gives its checks one: made once a call.
    const checks = node._zod.def.checks as Schema[];
    const custom = (c: Schema) => c._zod.def.check === 'custom' && c._zod.def.fn === undefined;
    const gated = (c: Schema) => c._zod.def.when && c._zod.def.when.name !== '_whenHasLength';
    if (checks.some((c) => custom(c) || gated(c))) lines.push('  const p = { value: r, issues: [] };');
    for (const check of checks) {
      const cdef = check._zod.def;
      // A `when` is a gate: a check it turns away is not run (zod's own for lengths holds for a value that parsed).
      const start = lines.length;
      switch (cdef.check) {
        case 'custom':
          if (cdef.fn !== undefined) {
            // `refine`: the predicate, called with the output.
            const f = cdef.fn as (...args: unknown[]) => unknown;
            if (f.length > 1) throw new Unsupported('a predicate that reads its context');
            lines.push(`  if (!${callable(f, 'a predicate')}(r)) ${failed}`);
          } else {
            // A check of its own (`.check(...)`): called with a payload, as zod calls it; any issue is the verdict.
            const run = callable(check._zod.check, 'a check');
            // A failed check ends the call, so the issues it leaves in `p` are never seen by a later gate.
            lines.push(`  { ${run}(p); if (p.issues.length > 0) ${failed} }`);
          }
          break;
        case 'min_length':
          lines.push(`  if (!(${rt('lengthFor')}(r, ${cdef.minimum}) >= ${cdef.minimum})) ${failed}`);
          break;
        case 'number_format':
          if (cdef.format !== 'safeint') throw new Unsupported(`the number format ${cdef.format}`);
          lines.push(`  if (!Number.isSafeInteger(r)) ${failed}`);
          break;
        default:
          throw new Unsupported(`the check ${cdef.check}`);
      }
      if (gated(check)) {
        const gate = callable(cdef.when, 'the `when` of a check');
        lines[start] = `  if (${gate}(p))${lines[start]!.replace(/^ {2}/, ' ')}`;
      }
    }
    lines.push('  return r;');
    return lines.join('\n');
  }

  /** The checks of a node (`def.checks`), run after its parse as zod's `runChecks` does. */
  function checksOf(node: Schema, start: string): string {
    const checks: Schema[] = node._zod.def.checks ?? [];
    const lines: string[] = [];
    for (const check of checks) {
      const cdef = check._zod.def;
      const gate = cdef.when
        ? null // handled per kind below
        : `!${rt('abortedSince')}(iss, ${start})`;
      switch (cdef.check) {
        case 'min_length': {
          if (cdef.when && cdef.when.name !== '_whenHasLength')
            throw new Unsupported('a custom `when` on a length check');
          const min = cdef.minimum as number;
          const msg = (origin: string) =>
            lit(constMessage(check, node, { code: 'too_small', origin, minimum: min, inclusive: true }));
          const issue = `{ origin: o, code: 'too_small', minimum: ${min}, inclusive: true, path: [], message: o === 'string' ? ${msg('string')} : o === 'array' ? ${msg('array')} : ${msg('unknown')}, continue: ${!cdef.abort} }`;
          lines.push(
            `  if (!${rt('explicitlyAbortedSince')}(iss, ${start}) && v !== null && v !== undefined && v.length !== undefined && !(${rt('lengthFor')}(v, ${min}) >= ${min})) { const o = ${rt('lengthOrigin')}(v); iss.push(${issue}); }`,
          );
          break;
        }
        default:
          throw new Unsupported(`the check ${cdef.check}`);
      }
      if (gate === null && !cdef.when) throw new Unsupported('unreachable');
    }
    return lines.join('\n');
  }

  function bodyOf(node: Schema): string {
    if (verdictOnly && (node._zod.def.checks?.length ?? 0) > 0) return verdictChecksBody(node);
    const def = node._zod.def;
    const hasChecks = (def.checks?.length ?? 0) > 0;
    const start = 's';
    const withChecks = (parse: string, result = 'v') =>
      hasChecks
        ? `  const s = iss.length;\n${parse}\n${checksOf(node, start)}\n  return ${result};`
        : `${parse}\n  return ${result};`;
    switch (def.type) {
      case 'string':
        if (def.coerce) throw new Unsupported('coerce');
        // With checks, a value of the wrong type still meets the checks whose `when` accepts it (zod's runChecks).
        return withChecks(`  if (typeof v !== 'string') ${typeFailure(node, 'string', !hasChecks)}`);
      case 'boolean':
        if (def.coerce || hasChecks) throw new Unsupported('a boolean with coerce or checks');
        return `  if (typeof v !== 'boolean') ${typeFailure(node, 'boolean')}\n  return v;`;
      case 'unknown':
      case 'any':
        if (hasChecks) throw new Unsupported('checks on unknown');
        return '  return v;';
      case 'number': {
        if (def.coerce) throw new Unsupported('coerce');
        const extra = (def.checks ?? []).length;
        if (extra > 0) throw new Unsupported('checks on a number');
        const typed = `  if (typeof v !== 'number' || !Number.isFinite(v)) ${typeFailure(node, 'number')}`;
        if (!def.format) return `${typed}\n  return v;`;
        if (def.format !== 'safeint') throw new Unsupported(`the number format ${def.format}`);
        // z.int(): the schema is its own check (zod's $ZodCheckNumberFormat), run when the number parsed.
        // Each issue is raised for a finite number only: its message is the same for every one.
        const numbers = [1.5, -2.25, 2 ** 60, -(2 ** 60)];
        const notInt = constMessage(
          node,
          node,
          { code: 'invalid_type', expected: 'int', format: 'safeint' },
          numbers,
        );
        const big = constMessage(
          node,
          node,
          {
            code: 'too_big',
            maximum: Number.MAX_SAFE_INTEGER,
            origin: 'int',
            inclusive: true,
            note: 'Integers must be within the safe integer range.',
          },
          numbers,
        );
        const small = constMessage(
          node,
          node,
          {
            code: 'too_small',
            minimum: Number.MIN_SAFE_INTEGER,
            origin: 'int',
            inclusive: true,
            note: 'Integers must be within the safe integer range.',
          },
          numbers,
        );
        return [
          typed,
          `  if (!Number.isInteger(v)) { iss.push({ expected: 'int', format: 'safeint', code: 'invalid_type', path: [], message: ${lit(notInt)}, continue: false }); return v; }`,
          `  if (!Number.isSafeInteger(v)) iss.push(v > 0 ? { code: 'too_big', maximum: ${Number.MAX_SAFE_INTEGER}, origin: 'int', inclusive: true, path: [], message: ${lit(big)}, continue: ${!def.abort} } : { code: 'too_small', minimum: ${Number.MIN_SAFE_INTEGER}, origin: 'int', inclusive: true, path: [], message: ${lit(small)}, continue: ${!def.abort} });`,
          '  return v;',
        ].join('\n');
      }
      case 'literal': {
        if (hasChecks) throw new Unsupported('checks on a literal');
        const values: unknown[] = def.values;
        if (
          !values.every(
            (x) =>
              typeof x === 'string' ||
              typeof x === 'boolean' ||
              x === null ||
              (typeof x === 'number' && Number.isFinite(x) && !Object.is(x, -0)),
          )
        ) {
          throw new Unsupported('a literal other than a string, a finite number, a boolean or null');
        }
        const message = constMessage(node, undefined, { code: 'invalid_value', values });
        // One value whose message is a constant text and the value's JSON (zod's for a string literal): the runtime
        // forms it, from the text zod gives here.
        const only = JSON.stringify(values[0]);
        if (values.length === 1 && typeof values[0] === 'string' && message.endsWith(only)) {
          const prefix = constant('L', lit(message.slice(0, message.length - only.length)));
          return `= ${rt('literalOf')}(${lit(values[0])}, ${prefix})`;
        }
        const test = values.map((x) => `v === ${lit(x)}`).join(' || ');
        if (verdictOnly) return `  return ${test} ? v : ${rt('refused')}(iss, v);`;
        return `  return ${test} ? v : ${rt('wrongValue')}(v, iss, ${lit(values)}, ${lit(message)});`;
      }
      case 'enum': {
        if (hasChecks) throw new Unsupported('checks on an enum');
        const values = Object.values(def.entries as Record<string, unknown>);
        if (!values.every((x) => typeof x === 'string'))
          throw new Unsupported('an enum of other than strings');
        const message = constMessage(node, undefined, { code: 'invalid_value', values });
        const test = values.map((x) => `v === ${lit(x)}`).join(' || ');
        if (verdictOnly) return `  return ${test} ? v : ${rt('refused')}(iss, v);`;
        return `  if (!(${test})) iss.push({ code: 'invalid_value', values: ${lit(values)}, path: [], message: ${lit(message)} });\n  return v;`;
      }
      case 'optional': {
        if (hasChecks) throw new Unsupported('checks on optional');
        const inner: Schema = def.innerType;
        if (inner._zod.optin === 'defaulted') throw new Unsupported('optional around a default');
        // Written out on the send path (its bundle has no size bar): a shared factory's call is megamorphic.
        if (verdictOnly) return `  return v === undefined ? undefined : ${fn(inner)}(v, iss);`;
        return `= ${rt('optionalOf')}(${fn(inner)})`;
      }
      case 'nullable':
        if (hasChecks) throw new Unsupported('checks on nullable');
        if (verdictOnly) return `  return v === null ? null : ${fn(def.innerType)}(v, iss);`;
        return `= ${rt('nullableOf')}(${fn(def.innerType)})`;
      case 'default': {
        if (hasChecks) throw new Unsupported('checks on default');
        const value = def.defaultValue;
        if (value !== null && typeof value === 'object') {
          // zod hands out a copy of an object default each time: so does the runtime's.
          if (!verdictOnly || !Array.isArray(value) || value.length > 0)
            throw new Unsupported('a default that is an object');
          return `= ${rt('defaultEmptyArrayOf')}(${fn(def.innerType)})`;
        }
        return `= ${rt('defaultOf')}(${fn(def.innerType)}, ${lit(value)})`;
      }
      case 'catch': {
        if (hasChecks) throw new Unsupported('checks on catch');
        const a = def.catchValue({ value: 1, issues: [], error: { issues: [] }, input: 1 });
        const b = def.catchValue({ value: 'x', issues: [{}], error: { issues: [{}] }, input: 'x' });
        // `.catch(() => [])`: a new empty array each time, as zod calls the function each time.
        if (a !== b && sameEmptyArray(a) && sameEmptyArray(b))
          return `= ${rt('caughtEmptyArrayOf')}(${fn(def.innerType)})`;
        if (a !== b || (a !== null && typeof a === 'object'))
          throw new Unsupported('a catch value that is an object, or depends on the input');
        return `= ${rt('caughtOf')}(${fn(def.innerType)}, ${lit(a)})`;
      }
      case 'array': {
        if (hasChecks) throw new Unsupported('checks on an array');
        const el = fn(def.element);
        // The common array (zod's locale's type message) is made by a runtime factory: a few bytes in place of a
        // loop per array (the Worker bundle's bar is on its size).
        const failure = typeFailure(node, 'array');
        const type = /^return wrongType\(v, iss, (T\d+)\);$/.exec(failure);
        if (type) return `= ${rt('arrayOf')}(${el}, ${type[1]})`;
        return [
          `  if (!Array.isArray(v)) ${typeFailure(node, 'array')}`,
          '  const n = v.length;',
          '  const out = new Array(n);',
          '  for (let i = 0; i < n; i++) {',
          '    const k = iss.length;',
          `    out[i] = ${el}(v[i], iss);`,
          `    if (iss.length !== k) ${rt('prefixIssues')}(iss, k, i);`,
          '  }',
          '  return out;',
        ].join('\n');
      }
      case 'object':
        return objectBody(node);
      case 'union':
        return unionBody(node);
      case 'pipe': {
        if (hasChecks) throw new Unsupported('checks on a pipe');
        return [
          '  const s = iss.length;',
          `  const l = ${fn(def.in)}(v, iss);`,
          // zod: any issue but an unrecognized key stops the pipe.
          "  for (let i = s; i < iss.length; i++) if (iss[i].code !== 'unrecognized_keys') return l;",
          `  return ${fn(def.out)}(l, iss);`,
        ].join('\n');
      }
      case 'transform': {
        const f = def.transform as (...args: unknown[]) => unknown;
        if (f.length > 1) throw new Unsupported('a transform that reads its context');
        return `  return ${callable(f, 'a transform')}(v);`;
      }
      case 'custom': {
        if (hasChecks) throw new Unsupported('checks on custom');
        const f = def.fn as (...args: unknown[]) => unknown;
        if (f.length > 1) throw new Unsupported('a predicate that reads its context');
        const message = constMessage(node, node, {
          code: 'custom',
          ...(def.params ? { params: def.params } : {}),
        });
        const path = lit(def.path ?? []);
        const params = def.params ? `, params: ${lit(def.params)}` : '';
        return `  if (!${callable(f, 'a predicate')}(v)) iss.push({ code: 'custom', path: ${path}${params}, message: ${lit(message)}, continue: ${!def.abort} });\n  return v;`;
      }
      default:
        throw new Unsupported(`the schema type ${def.type}`);
    }
  }

  /**
   * With `identity`: the name of a predicate `(v) => boolean` that holds only when the schema returns `v` itself
   * with no issue (every field passes as it is, nothing is filled in, no key is dropped), or `undefined` when the
   * schema may change a valid input (a transform, a default, a stripped key) or has no test this simple. A valid
   * delivery is then checked by the predicates alone, with no copy: the copies were most of what the checkers cost
   * after `JSON.parse` (docs/benchmarks.md, "Returned as received").
   */
  const identities = new Map<Schema, string | null>();
  const identityNames = new Map<string, string>();
  function identityOf(node: Schema): string | undefined {
    // What nearly every delivery holds (the eager roots'): a predicate for each of the rarer kinds' objects would
    // cost the Worker bundle more bytes than their slimmer copies save (its bar is on its size).
    if (!options.identity || verdictOnly || !eagerReach.has(node)) return undefined;
    const known = identities.get(node);
    if (known !== undefined) return known ?? undefined;
    // Until its body is known, a schema that holds itself has no predicate.
    identities.set(node, null);
    const body = identityBody(node);
    if (body === undefined) return undefined;
    let name = identityNames.get(body);
    if (!name) {
      name = `p${identityNames.size}`;
      identityNames.set(body, name);
      declare(name, 'v', body);
    }
    identities.set(node, name);
    eagerNames.add(name);
    return name;
  }

  function identityBody(node: Schema): string | undefined {
    const def = node._zod.def;
    if ((def.checks?.length ?? 0) > 0) return undefined;
    if (def.type === 'array') {
      const test = passesAsIs(def.element, 'x');
      if (test === undefined) return undefined;
      const plainArray = constant('A', 'Array.prototype');
      const protoOf = constant('G', 'Object.getPrototypeOf');
      return [
        `  if (!Array.isArray(v) || ${protoOf}(v) !== ${plainArray}) return false;`,
        `  for (let i = 0; i < v.length; i++) { const x = v[i]; if (!(${test})) return false; }`,
        '  return true;',
      ].join('\n');
    }
    if (def.type !== 'object' || def.catchall?._zod.def.type !== 'unknown') return undefined;
    const shape = def.shape as Record<string, Schema>;
    const keys = Object.keys(shape);
    if (keys.includes('__proto__') || Object.getOwnPropertySymbols(shape).length > 0) return undefined;
    // zod's output is a plain object without an own `__proto__` (the copies skip it): so must the input be. One
    // runtime test, not its terms written out in each predicate: 0.3 KB of the Worker bundle.
    // One expression, each field read once into `x`: the fewest bytes minified (the Worker bundle's bar).
    const terms = [`${rt('isPlainObject')}(v)`];
    for (const key of keys) {
      const child = shape[key]!;
      const test = passesAsIs(child, 'x');
      if (test === undefined) return undefined;
      const { optin, optout } = child._zod;
      // An optional key absent (or `undefined`) is absent (or `undefined`) in zod's output too; a default's is not.
      // An optional string, the test of 20 predicates, is one runtime function: 0.4 KB of the Worker bundle.
      const optional = optin === 'optional' && optout === 'optional';
      const holds = !optional
        ? test
        : test === `typeof x === 'string'`
          ? `${rt('isOptionalString')}(x)`
          : `x === undefined || ${test}`;
      terms.push(`(x = v[${lit(key)}], ${holds})`);
    }
    return `  let x;\n  return ${terms.join(' &&\n    ')};`;
  }

  function objectBody(node: Schema): string {
    const def = node._zod.def;
    if ((def.checks?.length ?? 0) > 0) throw new Unsupported('checks on an object');
    const shape = def.shape as Record<string, Schema>;
    const keys = Object.keys(shape);
    if (Object.getOwnPropertySymbols(shape).length > 0) throw new Unsupported('symbol keys');
    const catchall: Schema | undefined = def.catchall;
    const mode = catchall === undefined ? 'strip' : catchall._zod.def.type;
    if (mode !== 'strip' && mode !== 'unknown' && !(verdictOnly && mode === 'never'))
      throw new Unsupported(`an object whose catchall is ${mode}`);
    const same = identityOf(node);
    const wrong = /^return wrongType\(v, iss, (T\d+)\);$/.exec(typeFailure(node, 'object'));
    if (same && wrong) return slimObjectBody(node, same, wrong[1]!);
    const lines = [`  if (!${rt('isObject')}(v)) ${typeFailure(node, 'object')}`, '  const out = {};'];
    const own = keys.filter((key) => key !== '__proto__');
    // A run of leading fields another object starts with too (every message's common fields) is one function.
    const shared = sharedPrefix.get(node) ?? 0;
    let restTest = '';
    if (shared > 0) {
      const signature = own
        .slice(0, shared)
        .map((key) => `${key}:${idOf(shape[key]!)}`)
        .join(',');
      let prefixName = prefixFns.get(signature);
      if (!prefixName) {
        prefixName = `f${prefixFns.size}`;
        prefixFns.set(signature, prefixName);
        const body = own.slice(0, shared).flatMap((key, i) => fieldLines(shape, key, i));
        declare(prefixName, 'v, out, iss', body.join('\n'));
        // Whether a key is one of those fields: the other keys' copy of each object asks it once, not each field.
        const keys = own
          .slice(0, shared)
          .map((key) => `k === ${lit(key)}`)
          .join(' || ');
        declare(`${prefixName}k`, 'k', `  return ${keys};`);
      }
      if (eagerSchemas.has(node)) eagerNames.add(prefixName).add(`${prefixName}k`);
      lines.push(`  ${prefixName}(v, out, iss);`);
      restTest = `!${prefixName}k(k) && `;
    }
    own.slice(shared).forEach((key, i) => {
      lines.push(...fieldLines(shape, key, shared + i));
    });
    if (mode === 'never') {
      // A strict object: any other key `for...in` yields is an issue (zod's `unrecognized_keys`; its message is the
      // schema's to give).
      const skip = keys.map((key) => `k !== ${lit(key)}`).join(' && ') || 'true';
      lines.push(`  for (const k in v) if (${skip}) { ${rt('refused')}(iss, v); break; }`);
    }
    if (mode === 'unknown') {
      // zod's catchall of `unknown`: every other key `for...in` yields, copied as it is, but `__proto__`. Written out
      // per object, the shape's keys compared as constants: a shared helper asking `out` which keys it holds made
      // each copy a lookup that V8 cannot cache (docs/benchmarks.md, "The second pass").
      // `__proto__`, which every copy skips, is one constant: 0.5 KB of the Worker bundle spelled out in each.
      const proto = constant('P', lit('__proto__'));
      const rest = [...new Set(restTest ? own.slice(shared) : keys.filter((key) => key !== '__proto__'))];
      const skip = restTest + [...rest.map((key) => `k !== ${lit(key)}`), `k !== ${proto}`].join(' && ');
      lines.push(`  for (const k in v) if (${skip}) out[k] = v[k];`);
    }
    lines.push('  return out;');
    return lines.join('\n');
  }

  /**
   * An object whose predicate takes every valid input as it is: what is left for the rest (an item that does not fit,
   * a value caught or filled in) is the helpers' alone, without the inline tests or the constant keys, which would
   * cost the Worker bundle bytes for what a valid delivery no longer runs.
   */
  function slimObjectBody(node: Schema, same: string, type: string): string {
    const shape = node._zod.def.shape as Record<string, Schema>;
    const absent = constant(
      'N',
      lit(globalMessage({ code: 'invalid_type', expected: 'nonoptional', input: undefined })),
    );
    // The helper's code for each key: the message of an absent required one, or how an optional one is written.
    const how = { required: absent, optional: '0', lenient: '1', always: '2' };
    const fields = Object.keys(shape).map(
      (key) => `[${lit(key)}, ${fn(shape[key]!)}, ${how[keyKind(shape[key]!)]}]`,
    );
    return `  return ${same}(v) ? v : ${rt('objectFields')}(v, iss, ${type}, [${fields.join(', ')}]);`;
  }

  /** The call that checks and copies one field of an object in every case (`v` the input, `out` the output). */
  function slowField(key: string, child: Schema): string {
    const absent = constant(
      'N',
      lit(globalMessage({ code: 'invalid_type', expected: 'nonoptional', input: undefined })),
    );
    const args = `v, out, ${lit(key)}, ${fn(child)}, iss`;
    switch (keyKind(child)) {
      case 'optional':
        return `${rt('optionalKey')}(${args});`;
      case 'required':
        return `${rt('requiredKey')}(${args}, ${absent});`;
      case 'lenient':
        return `${rt('lenientKey')}(${args}, false);`;
      case 'always':
        return `${rt('lenientKey')}(${args}, true);`;
    }
  }

  /**
   * How zod's object reads a field, by what the field's schema does with `undefined`: optional in and out (absent
   * stays absent), required, optional in only (a `catch`: written when it gives a value), or a default (always
   * written).
   */
  function keyKind(child: Schema): 'optional' | 'required' | 'lenient' | 'always' {
    const { optin, optout } = child._zod;
    if (optin === 'optional' && optout === 'optional') return 'optional';
    if (optin === undefined) return 'required';
    if (optin === 'optional') return 'lenient';
    if (optout === 'optional') throw new Unsupported('a default that is optional out');
    return 'always';
  }

  /** The lines that check and copy one field of an object (`v` the input, `out` the output). */
  function fieldLines(shape: Record<string, Schema>, key: string, i: number): string[] {
    const child = shape[key]!;
    const optin = child._zod.optin;
    const optout = child._zod.optout;
    const k = lit(key);
    const x = `x${i}`;
    const args = `v, out, ${k}, ${fn(child)}, iss`;
    // The helper answers exactly as zod's object does for any value, present or not; the lines before it only
    // shortcut the common cases, with the key written as a constant so each read and write is one V8 can cache.
    // An absent optional key is told apart here, where the read is cached, rather than in the helper.
    const slow =
      optin === 'optional' && optout === 'optional'
        ? `if (${x} !== undefined || ${k} in v) ${slowField(key, child)}`
        : slowField(key, child);
    const read = `  const ${x} = v[${k}];`;
    // A value the field's schema returns as it is, with no issue, is copied.
    const test = passesAsIs(child, x);
    if (verdictOnly && (optin === undefined || (optin === 'optional' && optout === 'optional'))) {
      // No paths to keep (the schema gives the issues): every field inline, its key a constant, so each read,
      // write and call is one V8 can cache (a shared helper's were megamorphic: 3.5× zod's compiled code).
      const call = `${fn(child)}(${x}, iss)`;
      const present = `${x} !== undefined || ${k} in v`;
      const checked =
        optin === undefined
          ? `if (${present}) out[${k}] = ${call}; else ${rt('refused')}(iss, v);`
          : `if (${present}) out[${k}] = ${call};`;
      return [read, test ? `  if (${test}) out[${k}] = ${x}; else ${checked}` : `  ${checked}`];
    }
    if (test) return [read, `  if (${test}) out[${k}] = ${x}; else ${slow}`];
    // A nested object or array: its checker tests the type itself, so the key is read and written here, where V8
    // can cache both, and only the check is a call; an absent one gets the checker's type issue, as in zod (the
    // output means nothing then). An optional one stays the helper's: inline, it cost more bytes than it saved.
    if (optin === undefined && (child._zod.def.type === 'object' || child._zod.def.type === 'array')) {
      return [`  out[${k}] = ${rt('checkedUnder')}(v[${k}], ${fn(child)}, iss, ${k});`];
    }
    if (optin === 'optional' && optout === 'optional') return [`  ${rt('optionalKey')}(${args});`];
    return [`  ${slow}`];
  }

  /**
   * A test on `x` that holds only when the schema returns `x` itself with no issue (a string for a string schema, a
   * finite number for a number...), or `undefined` when there is none this simple. Only a shortcut: when it does not
   * hold, the full checker decides. Never true of `undefined` (an absent key is the helpers' to decide).
   */
  function passesAsIs(schema: Schema, x: string, deep = true): string | undefined {
    const def = schema._zod.def;
    const checks: Schema[] = def.checks ?? [];
    if (checks.length > 0 && def.type !== 'string') return undefined;
    switch (def.type) {
      case 'optional':
      case 'catch':
        // Both return their inner schema's output for a value it takes without an issue.
        return passesAsIs(def.innerType, x, deep);
      case 'default': {
        // Its inner schema's output, unless that is `undefined`, which no test here holds for.
        return passesAsIs(def.innerType, x, deep);
      }
      case 'object':
      case 'array': {
        const predicate = deep ? identityOf(schema) : undefined;
        return predicate && `${predicate}(${x})`;
      }
      case 'nullable': {
        const inner = passesAsIs(def.innerType, x, deep);
        return inner === undefined ? undefined : `${x} === null || ${inner}`;
      }
      case 'string': {
        if (def.coerce) return undefined;
        let test = `typeof ${x} === 'string'`;
        for (const c of checks) {
          const cdef = c._zod.def;
          if (cdef.check !== 'min_length') return undefined;
          // 2n - 1 UTF-16 units always hold at least n code points.
          test += ` && ${x}.length >= ${2 * cdef.minimum - 1}`;
        }
        return test;
      }
      case 'number':
        if (def.coerce) return undefined;
        if (def.format === 'safeint') return `Number.isSafeInteger(${x})`;
        return def.format ? undefined : `typeof ${x} === 'number' && Number.isFinite(${x})`;
      case 'boolean':
        return def.coerce ? undefined : `typeof ${x} === 'boolean'`;
      case 'literal':
      case 'enum': {
        const values: unknown[] = def.type === 'literal' ? def.values : Object.values(def.entries);
        return values.every((v) => typeof v === 'string')
          ? values.map((v) => `${x} === ${lit(v)}`).join(' || ')
          : undefined;
      }
      case 'custom': {
        // The predicate, called as the schema calls it: a value it accepts comes back as it is.
        const f = def.fn as (...args: unknown[]) => unknown;
        if (f.length > 1) return undefined;
        return `${x} !== undefined && ${callable(f, 'a predicate')}(${x})`;
      }
      case 'union': {
        if (def.discriminator !== undefined) return undefined;
        // zod returns the first option that takes the value: a later option's test may stand for the union only when
        // every option before it takes exactly what its test holds for (one with a `catch`, a default or a length
        // bound may take more, with another output).
        const options = def.options as Schema[];
        if (!options.slice(0, -1).every(exactTest)) return undefined;
        const parts = options.map((o) => passesAsIs(o, x, false));
        return parts.every((p) => p !== undefined) ? parts.map((p) => `(${p})`).join(' || ') : undefined;
      }
      default:
        return undefined;
    }
  }

  /**
   * Whether `passesAsIs`'s test of the schema holds for every value (but `undefined`) the schema takes at all, so a
   * value the test rejects is one the schema refuses: a type, literal, enum or predicate with no check, nullable or
   * a union of such. Not a `catch` or a default (they take anything), a length bound (the test undercounts code
   * points), an object or an array.
   */
  function exactTest(schema: Schema): boolean {
    const def = schema._zod.def;
    if ((def.checks?.length ?? 0) > 0 || def.coerce) return false;
    switch (def.type) {
      case 'string':
      case 'boolean':
      case 'literal':
      case 'enum':
        return passesAsIs(schema, 'x', false) !== undefined;
      case 'number':
        // `z.int()`'s test is `Number.isSafeInteger`, and zod refuses every other number too.
        return def.format === undefined || def.format === 'safeint';
      case 'custom':
        return passesAsIs(schema, 'x', false) !== undefined;
      case 'nullable':
      case 'optional':
        return exactTest(def.innerType);
      case 'union':
        return def.discriminator === undefined && (def.options as Schema[]).every(exactTest);
      default:
        return false;
    }
  }

  function unionBody(node: Schema): string {
    const def = node._zod.def;
    if ((def.checks?.length ?? 0) > 0) throw new Unsupported('checks on a union');
    const options = def.options as Schema[];
    if (def.discriminator !== undefined) {
      if (def.unionFallback) throw new Unsupported('a discriminated union with unionFallback');
      const disc = def.discriminator as string;
      const cases: string[] = [];
      const seen: unknown[] = [];
      for (const option of options) {
        const values = option._zod.propValues?.[disc];
        if (!values) throw new Unsupported('a discriminated option without values');
        for (const value of values) {
          if (typeof value !== 'string') throw new Unsupported('a discriminator value that is not a string');
          if (seen.includes(value)) continue;
          seen.push(value);
          cases.push(`    case ${lit(value)}: return ${fn(option)}(v, iss);`);
        }
      }
      const message = constMessage(node, undefined, {
        code: 'invalid_union',
        errors: [],
        note: 'No matching discriminator',
        discriminator: disc,
        options: seen,
        path: [disc],
      });
      return [
        `  if (!${rt('isObject')}(v)) ${typeFailure(node, 'object')}`,
        `  switch (v[${lit(disc)}]) {`,
        ...cases,
        '  }',
        verdictOnly
          ? `  return ${rt('refused')}(iss, v);`
          : `  iss.push({ code: 'invalid_union', errors: [], note: 'No matching discriminator', discriminator: ${lit(disc)}, options: ${lit(seen)}, path: [${lit(disc)}], message: ${lit(message)} });\n  return v;`,
      ].join('\n');
    }
    if (def.inclusive === false) throw new Unsupported('an exclusive union');
    for (const option of options) {
      // What a pipe's abort changes is the union's issues, which only the schema gives here.
      if (!verdictOnly && containsPipe(option))
        throw new Unsupported('a union option that holds a pipe (zod marks it aborted)');
    }
    if (options.length === 1) return `  return ${fn(options[0]!)}(v, iss);`;
    const message = constMessage(node, undefined, { code: 'invalid_union', errors: [] });
    const lines: string[] = [];
    options.forEach((option, i) => {
      lines.push(
        `  const e${i} = [];`,
        `  const r${i} = ${fn(option)}(v, e${i});`,
        `  if (e${i}.length === 0) return r${i};`,
      );
    });
    // Refused by every option: the verdict (the schema gives the issues).
    if (verdictOnly) return [...lines, `  return ${rt('refused')}(iss, v);`].join('\n');
    // zod: when exactly one option failed without aborting, its issues are the union's.
    lines.push(
      `  const open = [${options.map((_, i) => `e${i}`).join(', ')}].filter((e) => !${rt('abortedSince')}(e, 0));`,
      `  if (open.length === 1) { const e = open[0]; for (const i of e) iss.push(i); return [${options.map((_, i) => `r${i}`).join(', ')}][[${options.map((_, i) => `e${i}`).join(', ')}].indexOf(e)]; }`,
      `  iss.push({ code: 'invalid_union', errors: [${options.map((_, i) => `e${i}`).join(', ')}], path: [], message: ${lit(message)} });`,
      '  return v;',
    );
    return lines.join('\n');
  }

  const exportsCode: string[] = [];
  const typeImports = new Map<string, Set<string>>();
  for (const root of options.roots) {
    const f = fn(root.schema);
    let type = 'unknown';
    if (root.type) {
      type = root.type.name;
      if (!typeImports.has(root.type.module)) typeImports.set(root.type.module, new Set());
      typeImports.get(root.type.module)!.add(root.type.name);
    }
    exportsCode.push(
      // The checker itself under its name, not a function calling it: one function fewer to compile on a first call.
      `/** \`${root.name.replace(/^check/, '')}\`: the schema's output, or \`issues\` filled with zod's issues (then the output means nothing). */\nexport const ${root.name}: (input: unknown, issues: RawIssue[]) => ${type} = ${f};`,
    );
  }

  for (const table of options.tables ?? []) {
    const rows = Object.entries(table.entries).map(([key, schema]) => `  ${lit(key)}: ${fn(schema)},`);
    exportsCode.push(
      `/** ${table.doc} */\nexport const ${table.name}: Readonly<Record<string, (input: unknown, issues: RawIssue[]) => unknown>> = {\n${rows.join('\n')}\n};`,
    );
  }

  const head = [
    '// GENERATED by `npm run generate` (scripts/generate-checkers.ts) from the zod schemas: do not edit.',
    `// ${options.what}`,
    '// The schemas are the one place a rule is written; test/generated/fresh.test.ts fails when this file is stale.',
    // The messages are that zod's: the portable entries bundle the same one (tsup.config.ts).
    `// Messages from zod ${ZOD_VERSION}.`,
    '/* eslint-disable */',
    '// @ts-nocheck',
    '',
    `import { ${[...runtimeNames].sort().join(', ')}, type RawIssue } from '${options.runtime}';`,
    ...[...imports]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([m, n]) => `import { ${[...n].sort().join(', ')} } from '${m}';`),
    ...[...typeImports]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([m, n]) => `import type { ${[...n].sort().join(', ')} } from '${m}';`),
    '',
  ];
  const functions = out.map((f) => (typeof f === 'string' ? f : f.text(eagerNames.has(f.name))));
  return [...head, ...consts, '', ...functions, '', ...exportsCode, ''].join('\n');
}

/** An empty array (a `catch` value the generated code may write as a constant `[]`). */
function sameEmptyArray(value: unknown): boolean {
  return Array.isArray(value) && value.length === 0;
}

/** Every schema reachable from `roots` (themselves included). */
function schemasOf(roots: Schema[]): Set<Schema> {
  const seen = new Set<Schema>();
  const walk = (schema: Schema) => {
    if (seen.has(schema)) return;
    seen.add(schema);
    for (const child of childrenOf(schema)) walk(child);
  };
  for (const root of roots) walk(root);
  return seen;
}

/** The schemas a schema's definition holds: wrapped, element, pipe ends, options and fields. */
function childrenOf(schema: Schema): Schema[] {
  const def = schema._zod.def;
  return [
    def.innerType,
    def.element,
    def.in,
    def.out,
    ...(def.options ?? []),
    ...(def.shape ? Object.values(def.shape as Record<string, Schema>) : []),
  ].filter((child): child is Schema => child !== undefined);
}

/** Every object schema reachable from `roots`. */
function objectsOf(roots: Schema[]): Schema[] {
  return [...schemasOf(roots)].filter((schema) => schema._zod.def.type === 'object');
}

/**
 * For each object whose leading fields (3 or more, the same keys with the same schemas) another object also starts
 * with, how many: those are generated once, as one function both call.
 */
function sharedPrefixes(roots: Schema[]): Map<Schema, number> {
  const objects = objectsOf(roots);
  const fields = (o: Schema) =>
    Object.entries(o._zod.def.shape as Record<string, Schema>).filter(([k]) => k !== '__proto__');
  const result = new Map<Schema, number>();
  for (const a of objects) {
    const fa = fields(a);
    let best = 0;
    for (const b of objects) {
      if (a === b) continue;
      const fb = fields(b);
      let n = 0;
      while (n < fa.length && n < fb.length && fa[n]![0] === fb[n]![0] && fa[n]![1] === fb[n]![1]) n++;
      // Not the whole of both: two identical objects are already one function.
      if (n >= 3 && !(n === fa.length && n === fb.length)) best = Math.max(best, n);
    }
    if (best > 0) result.set(a, best);
  }
  return result;
}

function containsPipe(schema: Schema, seen = new Set<Schema>()): boolean {
  if (seen.has(schema)) return false;
  seen.add(schema);
  const def = schema._zod.def;
  if (def.type === 'pipe' || def.type === 'transform') return true;
  const children: Schema[] = [
    ...(def.innerType ? [def.innerType] : []),
    ...(def.element ? [def.element] : []),
    ...(def.options ?? []),
    ...(def.shape ? Object.values(def.shape as Record<string, Schema>) : []),
  ];
  return children.some((c) => containsPipe(c, seen));
}

export { Unsupported };
