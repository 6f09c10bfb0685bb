/**
 * `npm run check:package`: the package as users receive it. Run after `npm run build`.
 *
 * 1. publint (strict) and attw (every resolution mode: node10, node16 CJS and ESM, bundler).
 * 2. The `templates` and `webhooks` bundles import no Node built-in and fit their gzip budgets; the
 *    `durable-objects` entry imports none either, and bundled and minified for workerd fits its budget.
 * 3. `npm pack`, install the tarball into a scratch project that has none of the optional peers (msw, ioredis,
 *    bullmq, @opentelemetry/api), then require() and import() EVERY entry point of `exports` and run the
 *    `wa-gateway` bin: what a customer's `npm install` would get. Importing an entry must never need an optional
 *    peer; using the feature may (the msw handlers throw MissingDependencyError naming msw).
 * 4. The published types hold only the public API: no `dist/*.d.ts` mentions a name the source tags `@internal`.
 * 5. zod is a range in `dependencies`: a consumer that pins another zod 4 inside it (the range's lowest) gets one
 *    copy (`npm ls zod`), every entry imports and works with it, and its `tsc` compiles every entry's types.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import {
  BUDGETS_GZIP_BYTES,
  bundleFor,
  importSpecifiers,
  measureEntry,
  WORKER_BUDGETS_BYTES,
} from '../bench/bundle-size.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
  exports: Record<string, unknown>;
  dependencies: Record<string, string>;
  peerDependenciesMeta: Record<string, { optional?: boolean }>;
};
/** Every entry point the package exports (not `./package.json`). */
const ENTRIES = Object.keys(manifest.exports).filter((e) => e !== './package.json');
const OPTIONAL_PEERS = Object.entries(manifest.peerDependenciesMeta)
  .filter(([, meta]) => meta.optional)
  .map(([name]) => name);
const failures: string[] = [];
const step = (name: string, run: () => void) => {
  process.stdout.write(`\n== ${name}\n`);
  try {
    run();
  } catch (error) {
    const e = error as { stdout?: Buffer; stderr?: Buffer; message: string };
    process.stdout.write(`${e.stdout?.toString() ?? ''}${e.stderr?.toString() ?? ''}`);
    failures.push(`${name}: ${e.message.split('\n')[0]}`);
  }
};
const sh = (cmd: string, args: string[], cwd = root) =>
  execFileSync(cmd, args, {
    cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, npm_config_loglevel: 'error' },
  });
const npx = (bin: string, args: string[]) =>
  process.stdout.write(sh(process.execPath, [join(root, 'node_modules', '.bin', bin), ...args]));

step('publint --strict', () => npx('publint', ['--strict']));
step('attw --pack (all resolution modes)', () => npx('attw', ['--pack', '.', '--format', 'table-flipped']));

step('portable bundles: no node: imports, within budget', () => {
  for (const [entry, budget] of Object.entries(BUDGETS_GZIP_BYTES)) {
    const r = measureEntry(join(root, 'dist'), entry);
    process.stdout.write(
      `${entry}: ${(r.gzipBytes / 1024).toFixed(1)} KB gzipped (budget ${budget / 1024} KB), imports ${r.externals.join(', ')}\n`,
    );
    if (r.nodeImports.length > 0)
      throw new Error(`${entry} imports Node built-ins: ${r.nodeImports.join(', ')}`);
    if (r.gzipBytes > budget)
      throw new Error(`${entry} is ${r.gzipBytes} bytes gzipped; the budget is ${budget}`);
  }
});

// Bundled before the steps run (esbuild is asynchronous; the steps are not).
const workerBundles = await Promise.all(
  Object.entries(WORKER_BUDGETS_BYTES).map(async ([entry, budget]) => ({
    entry,
    budget,
    files: measureEntry(join(root, 'dist'), entry),
    bundle: await bundleFor(join(root, 'dist', `${entry}.js`), 'workerd', { minify: true }),
  })),
);
step('Workers entries: no node: imports, within budget bundled for workerd', () => {
  for (const { entry, budget, files, bundle } of workerBundles) {
    process.stdout.write(
      `${entry}: ${(bundle.bytes / 1024).toFixed(1)} KB minified for workerd (budget ${budget / 1024} KB), ${(bundle.gzipBytes / 1024).toFixed(1)} KB gzipped\n`,
    );
    const nodeImports = [...files.nodeImports, ...bundle.nodeImports];
    if (nodeImports.length > 0) throw new Error(`${entry} imports Node built-ins: ${nodeImports.join(', ')}`);
    if (bundle.bytes > budget)
      throw new Error(`${entry} is ${bundle.bytes} bytes bundled for workerd; the budget is ${budget}`);
  }
});

step('npm pack, install, require and import every entry, run the bin', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'wa-pack-'));
  try {
    const packed = JSON.parse(sh('npm', ['pack', '--json', '--pack-destination', scratch]).toString()) as {
      filename: string;
      size: number;
      files: { path: string }[];
    }[];
    const tarball = join(scratch, packed[0]!.filename);
    const paths = packed[0]!.files.map((f) => f.path);
    process.stdout.write(
      `${packed[0]!.filename}: ${(packed[0]!.size / 1024).toFixed(0)} KB packed, ${paths.length} files\n`,
    );
    const stray = paths.filter((p) => !/^(dist\/|package\.json$|README\.md$|CHANGELOG\.md$|LICENSE)/.test(p));
    if (stray.length > 0) throw new Error(`unexpected files in the package: ${stray.join(', ')}`);
    writeFileSync(join(scratch, 'package.json'), JSON.stringify({ name: 'scratch', private: true }));
    sh('npm', ['install', '--no-audit', '--no-fund', '--omit=peer', tarball], scratch);
    // A customer who uses none of the optional features has none of the optional peers: every entry must still
    // import. Using a feature may then fail, with a MissingDependencyError naming the package.
    const installed = OPTIONAL_PEERS.filter((p) =>
      existsSync(join(scratch, 'node_modules', p, 'package.json')),
    );
    if (installed.length > 0) throw new Error(`optional peers were installed: ${installed.join(', ')}`);
    const entries = ENTRIES.map((e) => (e === '.' ? 'wa-gateway-sdk' : `wa-gateway-sdk/${e.slice(2)}`));
    const expectations =
      "['GatewayClient','PublicApiClient','PlatformClient','validateTemplate'].filter((k) => !(k in m))";
    // The msw handler factories are the features that need msw; they must say so with a typed error.
    const mswCheck = `try { t.createGatewayHandlers({ baseUrl: 'https://gw.test' }); throw new Error('createGatewayHandlers worked without msw'); } catch (e) { if (e.name !== 'MissingDependencyError' || e.packageName !== 'msw') throw e; }`;
    sh(
      process.execPath,
      [
        '-e',
        `for (const e of ${JSON.stringify(entries)}) require(e); const m = require('wa-gateway-sdk'); const missing = ${expectations}; if (missing.length) throw new Error('CJS main lacks ' + missing); const t = require('wa-gateway-sdk/testing'); ${mswCheck}`,
      ],
      scratch,
    );
    sh(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `for (const e of ${JSON.stringify(entries)}) await import(e); const m = await import('wa-gateway-sdk'); const missing = ${expectations}; if (missing.length) throw new Error('ESM main lacks ' + missing); const t = await import('wa-gateway-sdk/testing'); ${mswCheck}`,
      ],
      scratch,
    );
    const version = sh(join(scratch, 'node_modules', '.bin', 'wa-gateway'), ['--version'], scratch)
      .toString()
      .trim();
    process.stdout.write(
      `require(), import() of ${entries.join(', ')} without ${OPTIONAL_PEERS.join(', ')}: ok; wa-gateway --version: ${version}\n`,
    );
    typecheckConsumer(scratch, entries);
    // The sandbox's web inbox reads its page files from dist/inbox/ beside the bundle: they must be packed.
    const inboxCheck = `
      import { spawn } from 'node:child_process';
      const child = spawn(${JSON.stringify(join(scratch, 'node_modules', '.bin', 'wa-gateway'))}, ['sandbox', '--port', '0']);
      let out = '';
      try {
        const url = await new Promise((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error('no web inbox address in: ' + out)), 30000);
          child.stdout.on('data', (d) => {
            out += d;
            const m = /web inbox: (\\S+)/.exec(out);
            if (m) { clearTimeout(timer); resolve(m[1]); }
          });
        });
        for (const path of ['', 'templates', 'inbox/inbox.js', 'inbox/preview.js', 'inbox/inbox.css']) {
          const res = await fetch(url + path);
          if (res.status !== 200) throw new Error('GET /' + path + ' answered ' + res.status);
        }
      } finally {
        child.kill();
      }`;
    sh(process.execPath, ['--input-type=module', '-e', inboxCheck], scratch);
    process.stdout.write('wa-gateway sandbox serves its web inbox and page files from the package: ok\n');
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
});

step('published types: no @internal name in dist/*.d.ts', () => {
  const internal = internalNames(join(root, 'src'));
  if (internal.size < 3)
    throw new Error(`found only ${internal.size} @internal names in src: the scan is broken`);
  const leaks: string[] = [];
  for (const file of readdirSync(join(root, 'dist')).filter((f) => /\.d\.c?ts$/.test(f))) {
    const text = readFileSync(join(root, 'dist', file), 'utf8');
    if (text.includes('@internal')) leaks.push(`${file}: an @internal comment`);
    // A declaration of the name, or an import or export of it (prose may say "transport", and a public method may
    // share a name with an internal function: `messages.streamRange` and `streamRange`). A reference to a stripped
    // declaration cannot remain: the declaration bundler fails the build on it.
    const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '');
    for (const name of internal) {
      const declared = new RegExp(
        `\\b(?:class|interface|type|function|const|let|var|enum|namespace)\\s+${name}\\b`,
      );
      const named = new RegExp(`[{,]\\s*(?:type\\s+)?${name}(?:\\s+as\\s+\\w+)?\\s*[,}]`);
      if (declared.test(code) || named.test(code)) leaks.push(`${file}: ${name}`);
    }
  }
  if (leaks.length > 0) throw new Error(`internal names in the published types: ${leaks.join('; ')}`);
  process.stdout.write(`${internal.size} @internal names, none in dist/*.d.ts\n`);
});

step('a consumer pinning another zod 4 in the range: one copy, every entry works', () => {
  const range = manifest.dependencies['zod']!;
  const lowest = range.replace(/^[\^~>=\s]+/, '');
  const locked = (
    JSON.parse(readFileSync(join(root, 'node_modules', 'zod', 'package.json'), 'utf8')) as { version: string }
  ).version;
  if (!/^\^4\.\d+\.\d+$/.test(range))
    throw new Error(`dependencies.zod is ${range}: expected a range ^4.x.y`);
  if (lowest === locked)
    throw new Error(`the range's lowest (${lowest}) is the locked zod: pin another one here`);
  const scratch = mkdtempSync(join(tmpdir(), 'wa-zod-'));
  try {
    const packed = JSON.parse(sh('npm', ['pack', '--json', '--pack-destination', scratch]).toString()) as {
      filename: string;
    }[];
    writeFileSync(
      join(scratch, 'package.json'),
      JSON.stringify({ name: 'scratch', private: true, dependencies: { zod: lowest } }),
    );
    sh(
      'npm',
      ['install', '--no-audit', '--no-fund', '--omit=peer', join(scratch, packed[0]!.filename)],
      scratch,
    );
    // `npm ls` lists every copy in the tree: the SDK must have deduplicated onto the consumer's.
    const tree = JSON.parse(sh('npm', ['ls', 'zod', '--all', '--json'], scratch).toString()) as ZodTree;
    const versions = new Set<string>();
    const walk = (deps: ZodTree['dependencies']) => {
      for (const [name, dep] of Object.entries(deps ?? {})) {
        if (name === 'zod' && dep.version) versions.add(dep.version);
        walk(dep.dependencies);
      }
    };
    walk(tree.dependencies);
    if (versions.size !== 1 || !versions.has(lowest))
      throw new Error(`npm ls zod shows ${[...versions].join(', ') || 'none'}; expected ${lowest} alone`);
    const entries = ENTRIES.map((e) => (e === '.' ? 'wa-gateway-sdk' : `wa-gateway-sdk/${e.slice(2)}`));
    // Classic zod (the consumer's copy) runs in the main entry's send validation and the platform answers.
    const use = `const m = await import('wa-gateway-sdk');
      const gw = new m.GatewayClient({ apiKey: 'k', baseUrl: 'https://gw.test', fetch: () => { throw new Error('no request expected'); } });
      await gw.messages.send({ to: '998901234567', type: 'text', text: {} }).then(
        () => { throw new Error('a text without body was sent'); },
        (e) => { if (e.name !== 'MessageValidationError') throw e; });
      if (!m.validateTemplate({}).issues.length) throw new Error('validateTemplate accepted {}');`;
    sh(
      process.execPath,
      ['--input-type=module', '-e', `for (const e of ${JSON.stringify(entries)}) await import(e); ${use}`],
      scratch,
    );
    typecheckConsumer(scratch, entries);
    process.stdout.write(
      `zod ${lowest} pinned by the consumer (${range}; locked ${locked}): one copy, entries ok\n`,
    );
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
});

/** `npm ls --json`'s tree, as far as the zod check reads it. */
interface ZodTree {
  dependencies?: Record<string, { version?: string; dependencies?: ZodTree['dependencies'] }>;
}

/**
 * A TypeScript customer's compile of every entry's declarations, as installed: ESM and CommonJS under `nodenext`,
 * and `bundler`. attw checks that the declarations resolve, not that they parse: a declaration bundle that wrote
 * `infer<typeof X>` (a keyword where a name should be) passed it and broke every consumer's `tsc`, even with
 * `skipLibCheck`, which skips checking declaration files but not parsing them. So a second pass checks them fully,
 * without `skipLibCheck`, for the entries whose declarations need none of the optional peers (a customer without
 * msw or ioredis installed has no types for them).
 */
function typecheckConsumer(scratch: string, entries: string[]): void {
  const consumer = (name: string, of: string[]) => {
    const imports = of.map((e, i) => `import * as entry${i} from '${e}';`).join('\n');
    writeFileSync(
      join(scratch, name),
      `${imports}\nexport const entries = [${of.map((_, i) => `entry${i}`)}];\n`,
    );
  };
  const tsc = (args: string[]) =>
    sh(
      process.execPath,
      [
        join(root, 'node_modules', 'typescript', 'bin', 'tsc'),
        '--noEmit',
        '--strict',
        '--target',
        'es2022',
        ...args,
      ],
      scratch,
    );
  consumer('consumer.mts', entries);
  consumer('consumer.cts', entries);
  consumer('consumer.ts', entries);
  tsc(['--skipLibCheck', '--module', 'nodenext', 'consumer.mts', 'consumer.cts']);
  tsc(['--skipLibCheck', '--module', 'esnext', '--moduleResolution', 'bundler', 'consumer.ts']);
  const peerFree = entries.filter(
    (e) => !declarationImports(scratch, e).some((s) => OPTIONAL_PEERS.includes(s)),
  );
  consumer('strict.mts', peerFree);
  tsc(['--module', 'nodenext', 'strict.mts']);
  process.stdout.write(
    `tsc of a consumer importing ${entries.join(', ')} (nodenext ESM and CJS, bundler): ok; ` +
      `without skipLibCheck, ${peerFree.join(', ')}: ok\n`,
  );
}

/** The packages an entry's ESM declarations import, following the package's own declaration chunks. */
function declarationImports(scratch: string, entry: string): string[] {
  const dist = join(scratch, 'node_modules', 'wa-gateway-sdk', 'dist');
  const name = entry === 'wa-gateway-sdk' ? 'index' : entry.slice('wa-gateway-sdk/'.length);
  const seen = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const specifier of importSpecifiers(readFileSync(join(dist, file), 'utf8'))) {
      if (specifier.startsWith('./')) visit(specifier.slice(2).replace(/\.js$/, '.d.ts'));
      else
        packages.add(
          specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0]!,
        );
    }
  };
  visit(`${name}.d.ts`);
  return [...packages];
}

/** The top-level names the source tags `@internal` (a declaration whose doc comment carries the tag). */
function internalNames(dir: string): Set<string> {
  const names = new Set<string>();
  const visit = (path: string) => {
    for (const entry of readdirSync(path, { withFileTypes: true })) {
      const full = join(path, entry.name);
      if (entry.isDirectory()) visit(full);
      else if (entry.name.endsWith('.ts')) {
        const source = ts.createSourceFile(full, readFileSync(full, 'utf8'), ts.ScriptTarget.Latest, true);
        for (const statement of source.statements) {
          // As the compiler's stripInternal reads it: the tag anywhere in a leading `/** */` comment.
          const tagged = (ts.getLeadingCommentRanges(source.text, statement.pos) ?? []).some((r) =>
            /^\/\*\*[\s\S]*@internal/.test(source.text.slice(r.pos, r.end)),
          );
          if (!tagged) continue;
          const declared = ts.isVariableStatement(statement)
            ? statement.declarationList.declarations.map((d) => d.name)
            : [(statement as ts.DeclarationStatement).name];
          for (const name of declared) if (name && ts.isIdentifier(name)) names.add(name.text);
        }
      }
    }
  };
  visit(dir);
  return names;
}

if (failures.length > 0) {
  process.stdout.write(`\npackage check FAILED:\n${failures.map((f) => `  - ${f}`).join('\n')}\n`);
  process.exitCode = 1;
} else {
  process.stdout.write('\npackage check: all good\n');
}
