import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConnectionError, StreamError, TimeoutError } from '../../src/core/errors.js';
import { PlatformClient, StreamInterruptedError } from '../../src/platform/index.js';
import { startServer } from '../helpers/http-server.js';

const TOKEN = 'e2e-token-0123456789abcdef';
const CONV = '3f2b8c1e-4d5a-4b6c-9e7f-0a1b2c3d4e5f';
const CHANNEL = '0c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f';
const T0 = Date.parse('2024-05-01T00:00:00Z');

function line(i: number): string {
  return `${JSON.stringify({
    id: i + 1,
    created_at: new Date(T0 + i * 1000).toISOString(),
    conversation: {
      uuid: CONV,
      customer: {
        name: `Customer ${i % 977}`,
        uuid: CONV,
        email: `c${i % 977}@example.com`,
        phone_number: '998901234567',
      },
      is_archived: false,
    },
    channel: { uuid: CHANNEL, name: 'Main WhatsApp', backend: 'whatsapp' },
    type: i % 10 === 0 ? 'media' : 'text',
    agent: i % 2 === 0 ? null : 'agent@example.com',
    customer: i % 2 === 0 ? { name: 'Customer', uuid: CONV } : null,
    content: `Hello, I would like to know the status of my order number ${i}. Thanks!`,
    data:
      i % 10 === 0
        ? { url: `https://cdn.example.com/m/${i}.jpg`, type: 'image/jpeg', in_working_hours: true }
        : {},
    group: { name: 'Support' },
  })}\n`;
}

interface StreamRun {
  written: number;
  /** Resolves when the server sees the response close; `finished` tells whether it wrote everything. */
  closed: Promise<{ finished: boolean; written: number }>;
}

let url = '';
let close: () => Promise<void>;
const runs: StreamRun[] = [];
let loginBodies: unknown[] = [];
let reportAuth: string[] = [];

/**
 * Writes `n` records lazily, honouring back pressure: the next write waits for 'drain'. `cutAfter`: half a
 * record after that many, then the connection dies. `stallAfter`: silence after that many, connection open.
 */
async function writeRecords(
  res: ServerResponse,
  n: number,
  run: StreamRun,
  { cutAfter, stallAfter }: { cutAfter?: number; stallAfter?: number } = {},
) {
  res.writeHead(200, { 'content-type': 'application/x-ndjson' });
  for (let i = 0; i < n && !res.destroyed; i++) {
    if (cutAfter !== undefined && i === cutAfter) {
      res.write(line(i).slice(0, 40));
      await new Promise((r) => setTimeout(r, 20));
      res.socket?.destroy();
      return;
    }
    if (stallAfter !== undefined && i === stallAfter) {
      res.write(line(i).slice(0, 40));
      return;
    }
    run.written++;
    if (!res.write(line(i))) {
      await new Promise<void>((resolve) => {
        const done = () => {
          res.off('drain', done);
          res.off('close', done);
          resolve();
        };
        res.on('drain', done);
        res.on('close', done);
      });
    }
  }
  if (!res.destroyed) res.end();
}

beforeAll(async () => {
  const started = await startServer(async (req, res, body) => {
    const u = new URL(req.url ?? '/', 'http://x');
    if (req.method === 'POST' && u.pathname === '/jwt/') {
      loginBodies.push(JSON.parse(body));
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({ token: TOKEN, account: { uuid: CONV }, otp: false, client: { device_id: 'd1' } }),
      );
      return;
    }
    if (req.headers.authorization !== `JWT ${TOKEN}`) {
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ detail: 'Invalid Authorization header.' }));
      return;
    }
    if (u.pathname === '/reports/') {
      reportAuth.push(req.headers.authorization);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          messages: [{ date: '2024-05-01', outgoing_messages: 1, incoming_messages: 2, total_messages: 3 }],
        }),
      );
      return;
    }
    if (u.pathname === '/stream/messages/') {
      const n = Number(u.searchParams.get('n') ?? '100000');
      const at = (name: string) => {
        const value = u.searchParams.get(name);
        return value === null ? undefined : Number(value);
      };
      const run: StreamRun = { written: 0, closed: undefined as never };
      run.closed = new Promise((resolve) =>
        res.on('close', () => resolve({ finished: res.writableFinished, written: run.written })),
      );
      runs.push(run);
      await writeRecords(res, n, run, { cutAfter: at('cut'), stallAfter: at('stall') });
      return;
    }
    res.writeHead(404).end();
  });
  url = started.url;
  close = started.close;
});

afterAll(async () => {
  await close();
});

/**
 * `extra` is a test-only query (`n`, `cut`) for the stream endpoint. The SDK's stream query is typed, so a
 * custom fetch appends it on the way out.
 */
function client(extra = '') {
  return new PlatformClient({
    platformUrl: url,
    streamUrl: url,
    username: 'ops',
    password: 'e2e password',
    fetch: (input, init) => {
      const target = new URL(input instanceof Request ? input.url : String(input));
      if (target.pathname === '/stream/messages/') {
        for (const [k, v] of new URLSearchParams(extra)) target.searchParams.set(k, v);
      }
      return fetch(target, init);
    },
  });
}

describe('platform over a real socket', () => {
  it('logs in, then reads a report with the JWT header', async () => {
    loginBodies = [];
    reportAuth = [];
    const c = client();
    const report = await c.reports.get({ data: 'messages' });
    expect(report.messages?.[0]?.total_messages).toBe(3);
    expect(loginBodies).toEqual([{ username: 'ops', password: 'e2e password' }]);
    expect(reportAuth).toEqual([`JWT ${TOKEN}`]);
  });

  it('streams 100,000 messages with bounded memory while the server writes with back pressure', async () => {
    const c = client('n=100000');
    (globalThis as { gc?: () => void }).gc?.();
    const start = process.memoryUsage();
    let peakHeap = 0;
    let peakRss = 0;
    let count = 0;
    let lastId = 0;
    let stalled: { before: number; after: number } | undefined;
    for await (const m of c.messages.stream()) {
      count++;
      if (m.id !== lastId + 1) throw new Error(`out of order at ${m.id}`);
      lastId = m.id;
      if (count % 2000 === 0) {
        const now = process.memoryUsage();
        peakHeap = Math.max(peakHeap, now.heapUsed - start.heapUsed);
        peakRss = Math.max(peakRss, now.rss - start.rss);
      }
      if (count === 5000) {
        // Stop pulling: once the socket buffers are full the server must stall, not race ahead to the end.
        const run = runs.at(-1)!;
        const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
        let previous = -1;
        for (let i = 0; i < 40 && run.written !== previous; i++) {
          previous = run.written;
          await sleep(50);
        }
        const before = run.written;
        await sleep(200);
        stalled = { before, after: run.written };
      }
    }
    expect(count).toBe(100_000);
    expect(stalled?.after).toBe(stalled?.before);
    // Socket buffers hold a few MB at most: far from the 100,000 records (60 MB) a non-pulling reader would let in.
    expect(stalled!.after - 5000).toBeLessThan(30_000);
    expect(peakHeap / 2 ** 20).toBeLessThan(100);
    expect(peakRss / 2 ** 20).toBeLessThan(100);
    await expect(runs.at(-1)!.closed).resolves.toMatchObject({ finished: true });
  });

  it('breaking out of the loop closes the connection before the server has written everything', async () => {
    const c = client('n=100000');
    let count = 0;
    for await (const _ of c.messages.stream()) {
      if (++count === 10) break;
    }
    const closed = await runs.at(-1)!.closed;
    expect(closed.finished).toBe(false);
    expect(closed.written).toBeLessThan(100_000);
  });

  it('aborting the signal ends the loop with its reason and closes the connection', async () => {
    const c = client('n=100000');
    const controller = new AbortController();
    const reason = new Error('shutting down');
    let count = 0;
    const error = await (async () => {
      for await (const _ of c.messages.stream({}, { signal: controller.signal })) {
        if (++count === 10) controller.abort(reason);
      }
    })().catch((e: unknown) => e);
    expect(error).toBe(reason);
    expect(count).toBe(10);
    const closed = await runs.at(-1)!.closed;
    expect(closed.finished).toBe(false);
    expect(closed.written).toBeLessThan(100_000);
  });

  it('a connection destroyed mid-line yields the complete records, then StreamError', async () => {
    const c = client('n=100&cut=7');
    const ids: number[] = [];
    const error = await (async () => {
      for await (const m of c.messages.stream()) ids.push(m.id);
    })().catch((e: unknown) => e);
    expect(ids).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(error).toBeInstanceOf(StreamError);
    expect(error).toBeInstanceOf(StreamInterruptedError);
    const e = error as StreamInterruptedError;
    expect(e.recordsDelivered).toBe(7);
    expect(e.message).toMatch(/cut after 7 complete records/);
    expect(e.lastCreatedAt).toBe(new Date(T0 + 6 * 1000).toISOString());
    expect(e.cause).toBeInstanceOf(ConnectionError);
  });

  it('a server that falls silent mid-record ends in a TimeoutError after idleTimeoutMs and the socket is closed', async () => {
    const c = client('n=100&stall=5');
    const ids: number[] = [];
    const started = performance.now();
    const error = await (async () => {
      for await (const m of c.messages.stream({}, { idleTimeoutMs: 150 })) ids.push(m.id);
    })().catch((e: unknown) => e);
    expect(performance.now() - started).toBeLessThan(5000);
    expect(ids).toEqual([1, 2, 3, 4, 5]);
    expect(error).toBeInstanceOf(StreamInterruptedError);
    const e = error as StreamInterruptedError;
    expect(e.message).toMatch(
      /stalled after 5 complete records \(in the middle of the next record\): no data for 150 ms/,
    );
    expect(e.cause).toBeInstanceOf(TimeoutError);
    expect(e.lastCreatedAt).toBe(new Date(T0 + 4 * 1000).toISOString());
    await expect(runs.at(-1)!.closed).resolves.toMatchObject({ finished: false, written: 5 });
  });

  it('a consumer slower than idleTimeoutMs is not taken for a silent server', async () => {
    const c = client('n=3000');
    let count = 0;
    // The idle timeout is long enough that a busy machine's pauses between healthy chunks stay under it; the
    // consumer then pauses well past it between two pulls: the server is not the one keeping quiet.
    for await (const _ of c.messages.stream({}, { idleTimeoutMs: 1000 })) {
      if (++count === 1500) await new Promise((r) => setTimeout(r, 2500));
    }
    expect(count).toBe(3000);
  });
});
