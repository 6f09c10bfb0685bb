/**
 * Starts a receiver app (`apps/bun.ts`, `apps/deno.ts`) under another JavaScript runtime: bundles it for that
 * runtime, writes the bundle to a scratch directory, runs the runtime's binary from node_modules/.bin on it and
 * waits for the `{"port":N}` line the app prints once its server listens on 127.0.0.1.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleFor, type RuntimeTarget, type TargetBundle } from '../../bench/bundle-size.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

export interface RuntimeServer {
  url: string;
  bundle: TargetBundle;
  stop(): Promise<void>;
}

export const runtimeBin = (name: 'bun' | 'deno') => join(root, 'node_modules', '.bin', name);

export async function serveUnder(
  runtime: 'bun' | 'deno',
  app: string,
  args: (file: string) => string[],
): Promise<RuntimeServer> {
  const bin = runtimeBin(runtime);
  if (!existsSync(bin)) throw new Error(`${bin} is missing: run npm ci`);
  const bundle = await bundleFor(app, runtime satisfies RuntimeTarget);
  const dir = mkdtempSync(join(tmpdir(), `wa-${runtime}-`));
  const file = join(dir, 'app.mjs');
  writeFileSync(file, bundle.code);
  // A process group of its own: deno's bin is a node launcher that starts the real binary as its child, and
  // killing the launcher alone left that server running after the suite.
  const child: ChildProcess = spawn(bin, args(file), {
    detached: true,
    cwd: dir,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, DENO_DIR: join(dir, '.deno'), DENO_NO_UPDATE_CHECK: '1', NO_COLOR: '1' },
  });
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /\{"port":(\d+)\}/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    child.once('exit', (code) =>
      reject(new Error(`${runtime} exited with ${code} before listening:\n${stderr}`)),
    );
    child.once('error', reject);
  });
  return {
    url: `http://127.0.0.1:${port}`,
    bundle,
    stop: async () => {
      if (child.exitCode === null && child.pid !== undefined) process.kill(-child.pid, 'SIGTERM');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
