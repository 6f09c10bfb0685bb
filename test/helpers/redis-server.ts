import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe } from 'vitest';
import { available, redisServer } from './system-servers.js';

/** `describe` when redis-server is installed (always in CI), `describe.skip` otherwise. */
export const describeRedis = describe.skipIf(!available(redisServer));

/**
 * A real redis-server on 127.0.0.1 with a port of its own and a scratch dir; no persistence unless `appendOnly`
 * (AOF with an fsync before every reply, so what Redis acknowledged survives `stop()`/`start()`).
 */
export interface RedisServer {
  readonly port: number;
  readonly url: string;
  /** Stops it (SIGTERM) and waits for the exit. */
  stop(): Promise<void>;
  /** SIGKILL, as a crash would. */
  kill(): Promise<void>;
  /**
   * SIGSTOP: the server still accepts connections and bytes (the kernel does) but never answers, as a frozen VM
   * or a network that drops replies. Always `resume()` it (in a `finally`).
   */
  pause(): void;
  /** SIGCONT after `pause()`: it answers what it was sent meanwhile. */
  resume(): void;
  /** Starts it again on the same port (after stop or kill). Data is gone unless started with `appendOnly`. */
  start(): Promise<void>;
  /** Stops it and removes its scratch dir: for afterAll. */
  dispose(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const address = srv.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

function launch(bin: string, port: number, dir: string, appendOnly: boolean): Promise<ChildProcess> {
  const persistence = appendOnly
    ? ['--appendonly', 'yes', '--appendfsync', 'always']
    : ['--appendonly', 'no'];
  return spawnRedisServer(bin, [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--save',
    '',
    ...persistence,
    '--dir',
    dir,
  ]);
}

/** Spawns `redis-server` with `args`; resolves once it accepts connections, rejects if it exits first. */
export function spawnRedisServer(bin: string, args: string[]): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes('Ready to accept connections')) {
        child.stdout?.off('data', onData);
        child.stdout?.resume();
        resolve(child);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.resume();
    child.once('exit', (code) =>
      reject(new Error(`redis-server exited with ${code} before it was ready:\n${out}`)),
    );
    child.once('error', reject);
  });
}

function exited(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill(signal);
  });
}

/** Starts a redis-server; retries on a port taken between the probe and the bind. */
export async function startRedis(options: { appendOnly?: boolean } = {}): Promise<RedisServer> {
  const appendOnly = options.appendOnly === true;
  const bin = redisServer.path;
  if (!bin) throw new Error(`redis-server not found (${redisServer.enable})`);
  const dir = mkdtempSync(join(tmpdir(), 'wa-redis-'));
  let port = 0;
  let child: ChildProcess | undefined;
  for (let attempt = 0; attempt < 5 && !child; attempt++) {
    port = await freePort();
    child = await launch(bin, port, dir, appendOnly).catch(() => undefined);
  }
  if (!child) throw new Error('redis-server did not start on a free port after 5 attempts');
  let current: ChildProcess | undefined = child;
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    async stop() {
      if (current) await exited(current, 'SIGTERM');
      current = undefined;
    },
    async kill() {
      if (current) await exited(current, 'SIGKILL');
      current = undefined;
    },
    pause() {
      current?.kill('SIGSTOP');
    },
    resume() {
      current?.kill('SIGCONT');
    },
    async start() {
      if (current) return;
      current = await launch(bin, port, dir, appendOnly);
    },
    async dispose() {
      current?.kill('SIGCONT'); // a paused server would not act on SIGTERM
      if (current) await exited(current, 'SIGTERM');
      current = undefined;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Resolves once an ioredis client is connected (`'ready'`), or has lost its connection (`'gone'`). */
export function whenClient(
  client: { status: string; once(event: string, listener: () => void): unknown },
  wanted: 'ready' | 'gone',
): Promise<void> {
  if (wanted === 'ready' && client.status === 'ready') return Promise.resolve();
  if (wanted === 'gone' && client.status !== 'ready') return Promise.resolve();
  return new Promise((resolve) => client.once(wanted === 'ready' ? 'ready' : 'close', () => resolve()));
}

/**
 * Inside a `describeRedis`: a redis-server of its own and one connected ioredis client for the block, started
 * before its tests and stopped after them. `use` receives both (a file keeps them in its own variables).
 */
export function useRedis(use: (server: RedisServer, redis: Redis) => void): void {
  let server: RedisServer | undefined;
  let redis: Redis | undefined;
  beforeAll(async () => {
    server = await startRedis();
    redis = new Redis(server.url, { maxRetriesPerRequest: 1 });
    await whenClient(redis, 'ready');
    use(server, redis);
  });
  afterAll(async () => {
    redis?.disconnect();
    await server?.dispose();
  });
}
