/**
 * A real Redis Cluster on 127.0.0.1 from Debian's redis-server: three primaries and three replicas, made with
 * `redis-cli --cluster create`, each node on a port of its own (and its bus port, +10,000) with a scratch dir.
 *
 * CI starts one for the whole run (`.ci/run`, by `tsx test/helpers/redis-cluster.ts`) and exports its nodes in
 * `WA_REDIS_CLUSTER` (`127.0.0.1:7000,127.0.0.1:7001,...`); `sharedCluster()` uses that one when set, else starts
 * one for the suite file. A suite that kills nodes (the failover proof) starts its own with `startRedisCluster()`.
 */
import { type ChildProcess, execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Cluster, type ClusterOptions, Redis } from 'ioredis';
import { spawnRedisServer } from './redis-server.js';
import { redisServer } from './system-servers.js';

const run = promisify(execFile);

/** One node of a test cluster. */
export interface ClusterNode {
  readonly port: number;
  /** Its role now (a failover changes it). */
  role(): Promise<'master' | 'slave'>;
}

export interface RedisCluster {
  /** `127.0.0.1:<port>` of every node, comma-separated: what `WA_REDIS_CLUSTER` and `redis-cluster://` carry. */
  readonly nodes: string;
  /** `redis-cluster://127.0.0.1:7000,...`: the URL the test fixtures' `connect()` understands. */
  readonly url: string;
  readonly ports: readonly number[];
  /** A connected ioredis Cluster; the caller disconnects it. */
  client(options?: ClusterOptions): Promise<Cluster>;
  /** The ports of the primaries now, each with the slot ranges it serves. */
  primaries(): Promise<{ port: number; slots: [number, number][] }[]>;
  /** The replica of the primary on `port`. */
  replicaOf(port: number): Promise<number>;
  /** SIGKILLs the node on `port`, as a crash would. */
  kill(port: number): Promise<void>;
  /** Starts the node on `port` again (it rejoins from its nodes.conf, as a replica if it was failed over). */
  restart(port: number): Promise<void>;
  /** Sets a config value on every node (`appendonly yes`). */
  configSet(name: string, value: string): Promise<void>;
  /** Waits until every slot is served and every node agrees (after a failover or a restart). */
  settled(timeoutMs?: number): Promise<void>;
  /** Deletes every key on every primary. */
  flush(): Promise<void>;
  /** Stops the nodes this process started and removes their dirs; nothing for a cluster CI started. */
  dispose(): Promise<void>;
}

function portsFree(ports: number[]): Promise<boolean> {
  return Promise.all(
    ports.map(
      (port) =>
        new Promise<boolean>((resolve) => {
          const server = createServer();
          server.once('error', () => resolve(false));
          server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
        }),
    ),
  ).then((all) => all.every(Boolean));
}

/** Six consecutive free ports below 55,535 whose cluster bus ports (+10,000) are free too. */
async function freePorts(): Promise<number[]> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const base = 20_000 + Math.floor(Math.random() * 30_000);
    const ports = Array.from({ length: 6 }, (_, i) => base + i);
    if (await portsFree([...ports, ...ports.map((p) => p + 10_000)])) return ports;
  }
  throw new Error('no six free ports (and bus ports) for a Redis Cluster after 50 tries');
}

function launch(port: number, dir: string, appendOnly: boolean): Promise<ChildProcess> {
  const bin = redisServer.path;
  if (!bin) throw new Error(`redis-server not found (${redisServer.enable})`);
  return spawnRedisServer(bin, [
    ...['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', ''],
    ...['--appendonly', appendOnly ? 'yes' : 'no', '--appendfsync', 'always'],
    ...['--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf'],
    // A primary that stops answering is failed over after about a second: short enough for a test.
    ...['--cluster-node-timeout', '1000', '--cluster-replica-validity-factor', '0'],
    // A replica copies its primary at once, not after the default 5 s wait for other replicas to join the transfer.
    ...['--repl-diskless-sync-delay', '0'],
  ]);
}

function redisCli(): string {
  return redisServer.path ? join(redisServer.path, '..', 'redis-cli') : 'redis-cli';
}

async function nodeInfo(port: number, section: string): Promise<string> {
  return ask(port, 'CLUSTER', section);
}

/** One command to one node, on a connection of its own. */
async function ask(port: number, ...command: [string, ...string[]]): Promise<string> {
  const client = new Redis(port, '127.0.0.1', {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  client.on('error', () => {});
  try {
    await client.connect();
    return String(await client.call(...command));
  } finally {
    client.disconnect();
  }
}

async function waitFor(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if (await check()) return;
    } catch {
      // Not up yet.
    }
    if (Date.now() > deadline) throw new Error(`the Redis Cluster did not ${what} within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The cluster's view from `port`: node lines of `CLUSTER NODES`. */
async function clusterNodes(port: number) {
  const text = await nodeInfo(port, 'NODES');
  return text
    .trim()
    .split('\n')
    .map((line) => {
      const [id, address, flags, master, , , , link, ...slots] = line.split(' ');
      return {
        id: id as string,
        port: Number((address as string).split('@')[0]!.split(':')[1]),
        flags: (flags as string).split(','),
        master: master as string,
        connected: link === 'connected',
        slots: slots
          .filter((s) => !s.startsWith('['))
          .map((s) => {
            const [from, to] = s.split('-').map(Number);
            return [from!, to ?? from!] as [number, number];
          }),
      };
    });
}

/** Starts a three-primary, three-replica cluster on free loopback ports. */
export async function startRedisCluster(options: { appendOnly?: boolean } = {}): Promise<RedisCluster> {
  const ports = await freePorts();
  const dir = mkdtempSync(join(tmpdir(), 'wa-redis-cluster-'));
  const dirs = new Map(ports.map((p) => [p, join(dir, String(p))]));
  const children = new Map<number, ChildProcess>();
  try {
    await Promise.all(
      ports.map(async (port) => {
        mkdirSync(dirs.get(port)!, { recursive: true });
        children.set(port, await launch(port, dirs.get(port)!, options.appendOnly === true));
      }),
    );
    await run(redisCli(), [
      '--cluster',
      'create',
      ...ports.map((p) => `127.0.0.1:${p}`),
      '--cluster-replicas',
      '1',
      '--cluster-yes',
    ]);
  } catch (error) {
    for (const child of children.values()) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  const cluster = describeCluster(ports, {
    kill: async (port) => {
      const child = children.get(port);
      children.delete(port);
      if (!child || child.exitCode !== null) return;
      await new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGKILL');
      });
    },
    restart: async (port) => {
      if (children.has(port)) return;
      children.set(port, await launch(port, dirs.get(port)!, options.appendOnly === true));
    },
    dispose: async () => {
      await Promise.all(
        [...children.values()].map(
          (child) =>
            new Promise<void>((resolve) => {
              if (child.exitCode !== null || child.signalCode !== null) return resolve();
              child.once('exit', () => resolve());
              child.kill('SIGTERM');
            }),
        ),
      );
      children.clear();
      rmSync(dir, { recursive: true, force: true });
    },
  });
  await cluster.settled(30_000);
  // A replica promoted before its first copy finished would come up empty: a failover measured then measures the
  // harness, not Redis. Every replica has its primary's data before the cluster is handed out.
  await waitFor(
    async () => {
      for (const port of ports) {
        const info = await ask(port, 'INFO', 'replication');
        if (/role:slave/.test(info) && !/master_link_status:up/.test(info)) return false;
        if (/role:slave/.test(info) && /master_sync_in_progress:1/.test(info)) return false;
      }
      return true;
    },
    30_000,
    'copy every primary to its replica',
  );
  return cluster;
}

function describeCluster(
  ports: number[],
  own: Pick<RedisCluster, 'kill' | 'restart' | 'dispose'>,
): RedisCluster {
  const nodes = ports.map((p) => `127.0.0.1:${p}`).join(',');
  const alive = new Set(ports);
  const anyAlive = () => [...alive][0] as number;
  const primaries = async () =>
    (await clusterNodes(anyAlive()))
      .filter((n) => alive.has(n.port) && n.flags.includes('master') && n.slots.length > 0)
      .map((n) => ({ port: n.port, slots: n.slots }));
  const cluster: RedisCluster = {
    nodes,
    url: `redis-cluster://${nodes}`,
    ports,
    async client(options = {}) {
      const client = new Cluster(
        ports.map((port) => ({ host: '127.0.0.1', port })),
        { ...options, redisOptions: { maxRetriesPerRequest: 1, ...options.redisOptions } },
      );
      await new Promise<void>((resolve, reject) => {
        client.once('ready', () => resolve());
        client.once('error', reject);
      });
      return client;
    },
    primaries,
    async replicaOf(port) {
      const all = await clusterNodes(anyAlive());
      const primary = all.find((n) => n.port === port);
      const replica = all.find((n) => n.master === primary?.id);
      if (!replica) throw new Error(`no replica of ${port}`);
      return replica.port;
    },
    async kill(port) {
      alive.delete(port);
      await own.kill(port);
    },
    async restart(port) {
      await own.restart(port);
      alive.add(port);
    },
    async configSet(name, value) {
      await Promise.all(
        [...alive].map(async (port) => {
          const client = new Redis(port, '127.0.0.1', { maxRetriesPerRequest: 1 });
          try {
            await client.config('SET', name, value);
          } finally {
            client.disconnect();
          }
        }),
      );
    },
    async settled(timeoutMs = 20_000) {
      await waitFor(
        async () => {
          for (const port of alive) {
            if (!/cluster_state:ok/.test(await nodeInfo(port, 'INFO'))) return false;
          }
          const view = await clusterNodes(anyAlive());
          // Served by a node that is up: a killed primary still listed as master is not failed over yet.
          const served = view.filter(
            (n) =>
              alive.has(n.port) &&
              n.flags.includes('master') &&
              n.slots.length > 0 &&
              !n.flags.includes('fail'),
          );
          const covered = served.reduce((sum, n) => sum + n.slots.reduce((s, [a, b]) => s + b - a + 1, 0), 0);
          return (
            covered === 16_384 &&
            view.filter((n) => alive.has(n.port)).every((n) => n.connected || n.flags.includes('myself'))
          );
        },
        timeoutMs,
        'settle',
      );
    },
    async flush() {
      for (const { port } of await primaries()) {
        const client = new Redis(port, '127.0.0.1', { maxRetriesPerRequest: 1 });
        try {
          await client.flushall();
        } finally {
          client.disconnect();
        }
      }
    },
    dispose: own.dispose,
  };
  return cluster;
}

/** A cluster CI started (`WA_REDIS_CLUSTER`): used as it is, never stopped from here. */
function existingCluster(nodes: string): RedisCluster {
  const ports = nodes.split(',').map((n) => Number(n.trim().split(':')[1]));
  const refuse = async () => {
    throw new Error('a cluster CI started is shared: start your own (startRedisCluster) to kill nodes');
  };
  return describeCluster(ports, { kill: refuse, restart: refuse, dispose: async () => {} });
}

/** The suite file's cluster: CI's (`WA_REDIS_CLUSTER`) when set, else one of its own, started once. */
export async function sharedCluster(): Promise<RedisCluster> {
  const nodes = process.env['WA_REDIS_CLUSTER'];
  return nodes ? existingCluster(nodes) : startRedisCluster();
}

// `tsx test/helpers/redis-cluster.ts start <dir-for-pid-file>`: what .ci/run calls to start CI's cluster. It prints
// the nodes and stays in the foreground until SIGTERM, then stops them.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const cluster = await startRedisCluster();
  process.stdout.write(`${cluster.nodes}\n`);
  const stop = () => void cluster.dispose().then(() => process.exit(0));
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}
