/**
 * `onProgress` on every operation that makes many requests, and the documented resume of each after it was cut
 * mid-way, over real sockets: nothing lost, nothing done twice.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type BatchSendProgress,
  type FeedbacksRangeProgress,
  GatewayClient,
  PlatformClient,
  type SendManyProgress,
  type StreamRangeProgress,
} from '../../src/index.js';
import { startServer } from '../helpers/http-server.js';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function serve(handler: Parameters<typeof startServer>[0]) {
  const s = await startServer(handler);
  closers.push(s.close);
  return s;
}

function json(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

describe('sendMany', () => {
  it('reports done/total/failed/wait, and after an abort mid-way resending the notSent ones sends each message once', async () => {
    const received: string[] = [];
    const stop = new AbortController();
    let calls = 0;
    const server = await serve((_req, res, body) => {
      calls++;
      if (calls === 3) {
        // One rate-limit answer, to see the wait in the progress.
        return json(res, 429, {
          isSuccess: false,
          errors: { code: 'RATE_001', group: 'RATE', description: 'slow', params: { retry_after: 0 } },
        });
      }
      const text = (JSON.parse(body) as { text: { body: string } }).text.body;
      received.push(text);
      if (received.length === 10) stop.abort(new Error('operator stop'));
      json(res, 200, { isSuccess: true, data: { messages: [{ id: `wamid.${text}` }], contacts: [] } });
    });
    const gw = new GatewayClient({ apiKey: 'pk_k', baseUrl: server.url, logLevel: 'off', rateLimit: false });
    const messages = Array.from({ length: 40 }, (_, i) => ({
      to: '998901234567',
      type: 'text' as const,
      text: { body: `m-${i}` },
    }));
    const progress: SendManyProgress[] = [];
    const results = [];
    for await (const r of gw.messages.sendMany(messages, {
      concurrency: 3,
      signal: stop.signal,
      onProgress: (p) => progress.push(p),
    })) {
      results.push(r);
    }
    expect(results).toHaveLength(40);
    const notSent = results.filter((r) => !r.ok && r.notSent).map((r) => r.index);
    expect(notSent.length).toBeGreaterThan(0);
    expect(results.every((r) => r.ok || r.notSent)).toBe(true);
    expect(progress.at(-1)).toEqual({
      done: 40,
      inDoubtUntil: 40,
      total: 40,
      failed: notSent.length,
      waitMs: 0,
    });
    // One report per result, and one for the 429's wait.
    expect(progress).toHaveLength(41);
    expect(progress.map((p) => p.done)).toEqual([...progress.map((p) => p.done)].sort((a, b) => a - b));

    // Resume: exactly the messages that did not go out.
    for await (const r of gw.messages.sendMany(notSent.map((i) => messages[i]!))) expect(r.ok).toBe(true);
    expect([...received].sort()).toEqual(messages.map((m) => m.text.body).sort());
  });
});

describe('batchSendAll', () => {
  it('reports chunks done of total; after an abort, resending `skipped` reaches every conversation once', async () => {
    const reached: string[] = [];
    const stop = new AbortController();
    const server = await serve((_req, res, body) => {
      const { conversations } = JSON.parse(body) as { conversations: string[] };
      reached.push(...conversations);
      res.writeHead(200);
      res.end();
    });
    const platform = new PlatformClient({
      platformUrl: server.url,
      streamUrl: server.url,
      token: 't',
      logLevel: 'off',
    });
    const conversations = Array.from({ length: 10 }, (_, i) => `00000000-0000-4000-8000-00000000000${i}`);
    const progress: BatchSendProgress[] = [];
    const first = await platform.messages.batchSendAll(
      { message: 'Closed today', conversations },
      {
        chunkSize: 2,
        signal: stop.signal,
        onProgress: (p) => {
          progress.push(p);
          // Stopped between two chunks, as an operator would.
          if (p.done === 2) stop.abort();
        },
      },
    );
    expect(first.sent).toHaveLength(4);
    expect(first.skipped).toHaveLength(6);
    expect(progress.at(-1)).toEqual({ done: 5, total: 5, sent: 4, errors: 0, waitMs: 0 });
    const second = await platform.messages.batchSendAll({
      message: 'Closed today',
      conversations: first.skipped,
    });
    expect(second.sent).toEqual(first.skipped);
    expect([...reached].sort()).toEqual([...conversations].sort());
  });
});

describe('feedbacksRange', () => {
  it('reports each window with the records it added and the instant covered', async () => {
    const server = await serve((req, res) => {
      const start = new URL(req.url ?? '', 'http://x').searchParams.get('start_date') ?? '';
      json(res, 200, {
        feedbacks: [
          {
            created_at: start,
            conversation: null,
            channel: null,
            customer: null,
            type: 'nps',
            satisfaction: 9,
          },
        ],
      });
    });
    const platform = new PlatformClient({
      platformUrl: server.url,
      streamUrl: server.url,
      token: 't',
      logLevel: 'off',
    });
    const progress: FeedbacksRangeProgress[] = [];
    const all = await platform.reports.feedbacksRange(
      { from: '2024-01-01T00:00:00Z', to: '2024-01-03T00:00:00Z' },
      { windowDays: 1, onProgress: (p) => progress.push(p) },
    );
    expect(
      progress.map((p) => [p.done, p.total, p.coveredTo.toISOString(), p.page.length, p.records]),
    ).toEqual([
      [1, 2, '2024-01-02T00:00:00.000Z', 1, 1],
      [2, 2, '2024-01-03T00:00:00.000Z', 1, 2],
    ]);
    expect(all).toHaveLength(2);
  });
});

describe('streamRange', () => {
  // Twelve records; 5 and 6 share one millisecond, the instant where the export is killed.
  const records = Array.from({ length: 12 }, (_, i) => {
    const id = i + 1;
    const second = id <= 5 ? id : id === 6 ? 5 : id - 1;
    return { id, created_at: `2024-01-01T00:00:${String(second).padStart(2, '0')}.000Z` };
  });
  const FROM = '2024-01-01T00:00:00Z';
  const TO = '2024-01-01T00:01:00Z';

  it('a process killed mid-range (SIGKILL) resumes from its checkpoint: every record once', async () => {
    let requests = 0;
    const held: ServerResponse[] = [];
    const server = await serve((req, res) => {
      requests++;
      const q = new URL(req.url ?? '', 'http://x').searchParams;
      const gt = Date.parse(q.get('created_at__gt') ?? '');
      const lt = Date.parse(q.get('created_at__lt') ?? '');
      const inRange = records.filter((r) => Date.parse(r.created_at) > gt && Date.parse(r.created_at) < lt);
      res.writeHead(200, { 'content-type': 'application/x-ndjson' });
      if (requests === 1) {
        // The first run gets six records (through the shared millisecond), then the answer hangs: it is killed.
        res.write(
          `${inRange
            .slice(0, 6)
            .map((r) => JSON.stringify(r))
            .join('\n')}\n`,
        );
        held.push(res);
        return;
      }
      res.end(inRange.map((r) => JSON.stringify(r)).join('\n'));
    });
    closers.unshift(async () => {
      for (const res of held) res.destroy();
    });
    const dir = await mkdtemp(join(tmpdir(), 'wa-gateway-resume-'));
    closers.push(() => rm(dir, { recursive: true, force: true }));
    const out = join(dir, 'out.txt');
    const checkpoint = join(dir, 'checkpoint.json');
    const script = fileURLToPath(new URL('./fixtures/stream-range-child.ts', import.meta.url));
    const child: ChildProcess = spawn(
      process.execPath,
      ['--import', 'tsx', script, server.url, out, checkpoint, FROM, TO],
      {
        stdio: 'ignore',
      },
    );
    const exited = new Promise<NodeJS.Signals | null>((resolve) =>
      child.once('exit', (_code, signal) => resolve(signal)),
    );
    // A condition, polled: the child has checkpointed the sixth record.
    const deadline = Date.now() + 20_000;
    const readCheckpoint = (): StreamRangeProgress | undefined => {
      try {
        return existsSync(checkpoint)
          ? (JSON.parse(readFileSync(checkpoint, 'utf8')) as StreamRangeProgress)
          : undefined;
      } catch {
        return undefined; // caught mid-write
      }
    };
    while (readCheckpoint()?.records !== 6) {
      if (Date.now() > deadline) throw new Error('the child never checkpointed six records');
      await new Promise((r) => setTimeout(r, 20));
    }
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');

    const saved = readFileSync(out, 'utf8').trim().split('\n').map(Number);
    const cp = readCheckpoint()!;
    expect(cp).toMatchObject({ records: 6, lastCreatedAt: '2024-01-01T00:00:05.000Z', idsAtLast: [5, 6] });

    const platform = new PlatformClient({
      platformUrl: server.url,
      streamUrl: server.url,
      token: 't',
      logLevel: 'off',
    });
    const resumed: number[] = [];
    for await (const r of platform.messages.streamRange(
      { from: cp.lastCreatedAt!, to: TO },
      { skipIds: cp.idsAtLast },
    )) {
      resumed.push(r.id);
    }
    expect([...saved, ...resumed]).toEqual(records.map((r) => r.id));
  });
});
