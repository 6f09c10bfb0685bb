/**
 * ioredis is an optional peer of the redis entry only: no other entry may load it, or every user of the
 * main, webhooks or templates entry would need it installed.
 */
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
    if (/from\s+['"][./]+(?:\.\.\/)*redis\/[^'"]*['"]/.test(text))
      offenders.push(`${where} imports src/redis`);
  }
  expect(offenders).toEqual([]);
  // The check above sees the imports it looks for: the redis entry's own helper is one.
  expect(readFileSync(join(root, 'src/redis/redis-answer.ts'), 'utf8')).toMatch(/from 'ioredis'/);
});
