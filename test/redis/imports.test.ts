/**
 * ioredis is an optional peer of the redis entry only: no other entry may load it, or every user of the
 * main, webhooks or templates entry would need it installed.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

function sourceFiles(path: string): string[] {
  return readdirSync(path, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? sourceFiles(join(path, d.name)) : d.name.endsWith('.ts') ? [join(path, d.name)] : [],
  );
}

it('only src/redis imports ioredis, and src/redis is imported by no other entry', () => {
  const offenders: string[] = [];
  for (const file of sourceFiles(join(root, 'src'))) {
    const where = relative(root, file);
    if (where.startsWith(`src${'/'}redis/`)) continue;
    const text = readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '');
    if (
      /from\s+['"]ioredis['"]|import\(\s*['"]ioredis['"]\s*\)|require\(\s*['"]ioredis['"]\s*\)/.test(text)
    ) {
      offenders.push(`${where} imports ioredis`);
    }
    // The CLI is a bin bundled on its own, not an entry users import: `wa-gateway campaign` and `sandbox
    // --campaigns` read RedisCampaignStore through one file, loading ioredis on use (loadOptionalPeer), so it may
    // import src/redis.
    if (
      /from\s+['"][./]+(?:\.\.\/)*redis\/[^'"]*['"]/.test(text) &&
      where !== `src${'/'}cli/campaign-store.ts`
    )
      offenders.push(`${where} imports src/redis`);
  }
  expect(offenders).toEqual([]);
  // The check above sees the imports it looks for: the redis entry's own helper is one.
  expect(readFileSync(join(root, 'src/redis/client.ts'), 'utf8')).toMatch(/from 'ioredis'/);
});

it('the redis entry imports without bullmq; createInboxWorker then throws MissingDependencyError naming bullmq', () => {
  // A child process whose resolve hook makes 'bullmq' unresolvable, as in an app that only uses the stores.
  const hook = `data:text/javascript,${encodeURIComponent(
    `export async function resolve(s, c, next) {
       if (s === 'bullmq' || s.startsWith('bullmq/')) {
         throw Object.assign(new Error("Cannot find module 'bullmq'"), { code: 'ERR_MODULE_NOT_FOUND' });
       }
       return next(s, c);
     }`,
  )}`;
  const script = `
    import { register } from 'node:module';
    import { createRequire } from 'node:module';
    register(${JSON.stringify(hook)});
    const require = createRequire(import.meta.url);
    const Module = require('node:module');
    const original = Module._resolveFilename;
    Module._resolveFilename = function (request, ...rest) {
      if (request === 'bullmq' || request.startsWith('bullmq/')) {
        throw Object.assign(new Error("Cannot find module 'bullmq'"), { code: 'MODULE_NOT_FOUND' });
      }
      return original.call(this, request, ...rest);
    };
    const m = await import(${JSON.stringify(join(root, 'src/redis/index.ts'))});
    const out = { store: typeof m.RedisIdempotencyStore };
    try { m.createInboxWorker({ connection: 'redis://127.0.0.1:1', onEvent: async () => {} }); out.error = 'none'; }
    catch (e) { out.error = e.name; out.packageName = e.packageName; out.message = e.message; }
    console.log(JSON.stringify(out));
  `;
  const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: root,
    encoding: 'utf8',
  });
  expect(JSON.parse(out.trim().split('\n').at(-1) ?? '')).toEqual({
    store: 'function',
    error: 'MissingDependencyError',
    packageName: 'bullmq',
    // A production dependency: `--save-dev` would leave it out of a production install.
    message:
      "createInboxWorker needs the optional peer dependency 'bullmq', which is not installed: run `npm install " +
      'bullmq` (a dependency of your service: it runs in production).',
  });
}, 30_000);
