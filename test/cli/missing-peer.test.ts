/**
 * A command whose optional peer is not installed says so once, as users see it: the CLI bundled as the package
 * ships it, in its own process, from a folder with nothing installed beside it.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleCli } from '../helpers/bundled-cli.js';

let scratch: string;
beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'wa-cli-bare-'));
  await bundleCli(join(scratch, 'cli.mjs'));
}, 60_000);
afterAll(() => rm(scratch, { recursive: true, force: true }));

async function run(args: string[]) {
  const env = { ...process.env, REDIS_URL: '' };
  return promisify(execFile)(process.execPath, [join(scratch, 'cli.mjs'), ...args], { env }).then(
    () => ({ code: 0, stderr: '' }),
    (e: { code: number; stderr: string }) => ({ code: e.code, stderr: e.stderr }),
  );
}

describe('a missing optional peer', () => {
  it('campaign: one line naming the command once and the package to install', async () => {
    const r = await run(['campaign', 'status', 'spring', '--redis-url', 'redis://127.0.0.1:1']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^wa-gateway campaign needs the optional peer dependency 'ioredis'/);
    expect(r.stderr).toContain('npm install ioredis');
    expect(r.stderr.match(/wa-gateway campaign/g)).toHaveLength(1);
  });
});
