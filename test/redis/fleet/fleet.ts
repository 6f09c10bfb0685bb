/**
 * Helpers of the inbox fleet tests: receiver and worker child processes, and a sender that delivers like the
 * gateway (immediately, then +1 s and +2 s after a 5xx or a connection error; a 4xx is final) through a load
 * balancer that stops routing to a receiver once a connection to it was refused or reset.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { InboxCounts } from '../../../src/redis/index.js';
import { messageEnvelope, textMessage } from '../../../src/testing/index.js';

const here = fileURLToPath(new URL('.', import.meta.url));

export const FLEET_SECRET = 'fleet-webhook-secret-0123456789abcdef0123';

export interface Child {
  process: ChildProcess;
  /** For a receiver: its port. */
  port: number;
  /** Asks a worker over IPC. */
  ask<T>(op: 'counts' | 'replay'): Promise<T>;
  /** SIGTERM and wait for the exit; answers the exit code. */
  stop(): Promise<number | null>;
  /** What the child's SDK logger received (`<level> <message>`), sent over IPC. */
  logs: string[];
}

export function spawnChild(file: string, env: Record<string, string>): Promise<Child> {
  const child = spawn(process.execPath, ['--import', 'tsx', `${here}${file}`], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  let seq = 0;
  const waiting = new Map<number, { resolve(v: unknown): void; reject(e: unknown): void }>();
  const logs: string[] = [];
  child.on('message', (m: { id: number; result?: unknown; error?: string; log?: string }) => {
    if (m.log !== undefined) {
      logs.push(m.log);
      return;
    }
    const w = waiting.get(m.id);
    waiting.delete(m.id);
    if (m.error !== undefined) w?.reject(new Error(m.error));
    else w?.resolve(m.result);
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    let out = '';
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      const match = /READY ?(\d*)/.exec(out);
      if (match) {
        child.stdout?.off('data', onData);
        child.stdout?.resume();
        resolve({
          process: child,
          port: Number(match[1] || 0),
          logs,
          ask: <T>(op: 'counts' | 'replay') =>
            new Promise<T>((res, rej) => {
              const id = ++seq;
              waiting.set(id, { resolve: res as (v: unknown) => void, reject: rej });
              child.send({ id, op });
            }),
          stop: () => {
            if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
            return exited;
          },
        });
      }
    };
    child.stdout?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`${file} exited with ${code} before it was ready`)));
  });
}

export function startReceiver(redisUrl: string, queueName: string): Promise<Child> {
  return spawnChild('receiver.ts', {
    REDIS_URL: redisUrl,
    QUEUE_NAME: queueName,
    WEBHOOK_SECRET: FLEET_SECRET,
  });
}

export function startWorker(
  redisUrl: string,
  queueName: string,
  outFile: string,
  options: { failRate: number; concurrency: number; lockMs?: number },
): Promise<Child> {
  return spawnChild('worker.ts', {
    REDIS_URL: redisUrl,
    QUEUE_NAME: queueName,
    OUT_FILE: outFile,
    FAIL_RATE: String(options.failRate),
    CONCURRENCY: String(options.concurrency),
    ...(options.lockMs ? { LOCK_MS: String(options.lockMs) } : {}),
  });
}

/** A small seeded PRNG, so a run's routing can be replayed. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const eventKey = (i: number) => `wamid.FLEET${String(i).padStart(6, '0')}`;

export interface DeliveryStats {
  /** Events the gateway got a 200 for. */
  acked: Set<string>;
  /** Events the gateway gave up on (three failures, or a 4xx). */
  dropped: string[];
  /** Answers by status (0 = connection error). */
  answers: Map<number, number>;
}

/**
 * Delivers `count` events, one per delivery, `concurrency` at a time, each to a random receiver that the balancer
 * still routes to, on the gateway's retry schedule. `onAck` is called after each 200.
 */
export async function deliver(options: {
  count: number;
  concurrency: number;
  ports: () => number[];
  seed: number;
  /** After each 200: how many so far, the event, and when the POST that got it was sent. */
  onAck?: (acked: number, key: string, sentAt: number) => void;
  /** Every answer (0 = connection error), as it arrives. */
  onAnswer?: (status: number) => void;
  key?: (i: number) => string;
}): Promise<DeliveryStats> {
  const random = prng(options.seed);
  const key = options.key ?? eventKey;
  const down = new Set<number>();
  const stats: DeliveryStats = { acked: new Set(), dropped: [], answers: new Map() };
  const count = (status: number) => stats.answers.set(status, (stats.answers.get(status) ?? 0) + 1);
  const pick = (): number => {
    const all = options.ports();
    const up = all.filter((p) => !down.has(p));
    const from = up.length > 0 ? up : all;
    return from[Math.floor(random() * from.length)]!;
  };
  const deliverOne = async (i: number): Promise<void> => {
    const body = JSON.stringify(messageEnvelope(textMessage({ id: key(i), text: { body: `event ${i}` } })));
    for (const waitMs of [0, 1000, 2000]) {
      if (waitMs > 0) await new Promise((r) => setTimeout(r, waitMs));
      const port = pick();
      const sentAt = Date.now();
      const { status, refused } = await post(port, body);
      if (refused) down.add(port);
      count(status);
      options.onAnswer?.(status);
      if (status === 200) {
        stats.acked.add(key(i));
        options.onAck?.(stats.acked.size, key(i), sentAt);
        return;
      }
      if (status >= 400 && status < 500) break;
    }
    stats.dropped.push(key(i));
  };
  let next = 0;
  await Promise.all(
    Array.from({ length: options.concurrency }, async () => {
      while (next < options.count) await deliverOne(next++);
    }),
  );
  return stats;
}

/**
 * One POST. Answers the status; 0 with `refused` for a receiver that is not there (connection refused or reset:
 * the balancer stops routing to it), 0 without for no answer within 5 s (the gateway's timeout; a slow receiver
 * is still a receiver).
 */
async function post(port: number, body: string): Promise<{ status: number; refused: boolean }> {
  try {
    const res = await fetch(`http://127.0.0.1:${port}/webhooks`, {
      method: 'POST',
      headers: { authorization: `Bearer ${FLEET_SECRET}`, 'content-type': 'application/json' },
      body,
      signal: AbortSignal.timeout(5000),
    });
    await res.arrayBuffer();
    return { status: res.status, refused: false };
  } catch (error) {
    const code = (error as { cause?: { code?: unknown } }).cause?.code;
    return {
      status: 0,
      refused: code === 'ECONNREFUSED' || code === 'ECONNRESET' || code === 'UND_ERR_SOCKET',
    };
  }
}

/** Completions per event, from the workers' files. */
export function completions(files: string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const file of files) {
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      if (line) counts.set(line, (counts.get(line) ?? 0) + 1);
    }
  }
  return counts;
}

/** Waits until the queue is idle, replaying the failed set until it stays empty. Answers how many were replayed. */
export async function drain(worker: Child, timeoutMs: number): Promise<number> {
  const until = Date.now() + timeoutMs;
  let replayed = 0;
  for (;;) {
    const c = await worker.ask<InboxCounts>('counts');
    if (c.waiting + c.active + c.delayed === 0) {
      if (c.failed === 0) return replayed;
      replayed += await worker.ask<number>('replay');
    }
    if (Date.now() > until) throw new Error(`queue not drained in time: ${JSON.stringify(c)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
