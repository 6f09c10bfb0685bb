/**
 * Bars: 100,000 messages stream through `messages.stream` at ≥ 0.9× the throughput of a bare baseline (fetch,
 * split on '\n', JSON.parse) of the same bytes, with ≤ 64 MB of extra memory.
 *
 * The server runs in a child process (this same file, started with STREAM_BENCH_SERVER=1) so its writes do not
 * share the measured event loop; it holds the 100,000 records pre-serialised and writes them with back
 * pressure. Rounds interleave the baseline and the SDK so drift in machine load hits both alike.
 *
 * Informational figures, printed in `detail`: the ratio of CPU time (baseline / SDK) over the same rounds, which
 * a machine shared with other work disturbs far less than the wall-clock ratio of the bar; the same stream
 * through `Readable.fromWeb(body).pipe(ndjson.parse())` (the decoder DESIGN.md first named; the SDK decodes
 * lines itself, see src/platform/stream-decoding.ts) and through `validate: 'full'` (a zod parse per record).
 *
 * The SDK side is the source (`src/`, through tsx), not `dist/`.
 *
 * Run: `npx tsx bench/stream.bench.ts` (or with `node --expose-gc --import tsx` for a cleaner memory start).
 */
import { fork } from 'node:child_process';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import { fileURLToPath } from 'node:url';
import { PlatformClient } from '../src/platform/index.js';
import { median as med, QUICK, report, round } from './lib.js';

const N = 100_000;
const T0 = Date.parse('2024-05-01T00:00:00Z');
const CONV = '3f2b8c1e-4d5a-4b6c-9e7f-0a1b2c3d4e5f';
const CHANNEL = '0c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f';

/** A realistic record: ~600 bytes, nested objects, Cyrillic and emoji content, media data on one in ten. */
function record(i: number): string {
  return JSON.stringify({
    id: i + 1,
    created_at: new Date(T0 + i * 997).toISOString().replace('Z', '123+00:00'),
    conversation: {
      uuid: CONV,
      customer: {
        name: `Зарина Каримова ${i % 977}`,
        uuid: '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d',
        email: `customer${i % 977}@example.com`,
        phone_number: `99890${String(1_000_000 + (i % 977))}`,
      },
      is_archived: false,
    },
    channel: { uuid: CHANNEL, name: 'Main WhatsApp', backend: 'whatsapp' },
    type: i % 10 === 0 ? 'media' : 'text',
    agent: i % 2 === 0 ? null : 'agent.smith@example.com',
    customer: i % 2 === 0 ? { name: 'Зарина', uuid: '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d' } : null,
    content: `Здравствуйте! Where is my order #${i}? It was due yesterday 🙏 Thanks`,
    data:
      i % 10 === 0
        ? {
            url: `https://cdn.example.com/media/${i}.jpg`,
            type: 'image/jpeg',
            quote: null,
            language: 'ru',
            recipient: '998901234567',
            identifier: `wamid.HBgM${i}`,
            in_working_hours: true,
          }
        : {},
    group: { name: 'Support' },
  });
}

if (process.env['STREAM_BENCH_SERVER'] === '1') {
  const body = Buffer.from(Array.from({ length: N }, (_, i) => `${record(i)}\n`).join(''));
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/x-ndjson' });
    let offset = 0;
    const write = () => {
      while (offset < body.length) {
        const ok = res.write(body.subarray(offset, offset + 65536));
        offset += 65536;
        if (!ok) {
          res.once('drain', write);
          return;
        }
      }
      res.end();
    };
    write();
  });
  server.listen(0, '127.0.0.1', () => {
    process.stdout.write(`${(server.address() as AddressInfo).port}\n`);
  });
} else {
  await main();
}

async function main(): Promise<void> {
  const child = fork(fileURLToPath(import.meta.url), [], {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, STREAM_BENCH_SERVER: '1' },
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  const port = await new Promise<string>((resolve, reject) => {
    child.once('error', reject);
    child.stdout?.once('data', (d: Buffer) => resolve(d.toString().trim()));
  });
  const url = `http://127.0.0.1:${port}`;
  try {
    await run(url);
  } finally {
    child.kill();
  }
}

async function run(url: string): Promise<void> {
  const client = new PlatformClient({ platformUrl: url, streamUrl: url, token: 'bench-token-0123456789' });
  const streamUrl = `${url}/stream/messages/`;

  let streamBytes = 0;
  // What a careful caller would write by hand: read chunks, split on '\n', JSON.parse each line.
  const baseline = async (): Promise<number> => {
    streamBytes = 0;
    const res = await fetch(streamUrl, { headers: { authorization: 'JWT bench-token-0123456789' } });
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let carry = '';
    let n = 0;
    let sum = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      streamBytes += value.byteLength;
      const parts = (carry + decoder.decode(value, { stream: true })).split('\n');
      carry = parts.pop() ?? '';
      for (const part of parts) {
        if (part === '') continue;
        sum += (JSON.parse(part) as { id: number }).id;
        n++;
      }
    }
    if (sum === 0) throw new Error('nothing read');
    return n;
  };

  const sdk = async (validate: 'light' | 'full' = 'light'): Promise<number> => {
    let n = 0;
    let sum = 0;
    for await (const m of client.messages.stream({}, { validate })) {
      sum += m.id;
      n++;
    }
    if (sum === 0) throw new Error('nothing read');
    return n;
  };

  const require = createRequire(import.meta.url);
  const ndjson = require('ndjson') as typeof import('ndjson');
  const ndjsonPipe = async (): Promise<number> => {
    const res = await fetch(streamUrl, { headers: { authorization: 'JWT bench-token-0123456789' } });
    const source = Readable.fromWeb(res.body as unknown as NodeReadableStream<Uint8Array>);
    let n = 0;
    let sum = 0;
    for await (const m of source.pipe(ndjson.parse()) as AsyncIterable<{ id: number }>) {
      sum += m.id;
      n++;
    }
    if (sum === 0) throw new Error('nothing read');
    return n;
  };

  // CPU time of this process beside the wall time: the server's writes run in the child, so this is the
  // reader's own work, and a busy machine (other processes taking the cores) inflates it far less than the wall.
  let lastCpuMs = 0;
  const time = async (fn: () => Promise<number>): Promise<number> => {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    const n = await fn();
    const wall = performance.now() - t0;
    const cpu = process.cpuUsage(c0);
    lastCpuMs = (cpu.user + cpu.system) / 1000;
    if (n !== N) throw new Error(`expected ${N} records, got ${n}`);
    return wall;
  };

  // Peak extra memory of the first SDK run in this process, sampled every 1,000 records from a collected start
  // (first, so that RSS still has room to grow and its growth means something).
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  gc?.();
  const start = process.memoryUsage();
  let peakRss = 0;
  let peakHeap = 0;
  let n = 0;
  for await (const _ of client.messages.stream()) {
    if (++n % 1000 === 0) {
      const now = process.memoryUsage();
      peakRss = Math.max(peakRss, now.rss - start.rss);
      peakHeap = Math.max(peakHeap, now.heapUsed - start.heapUsed);
    }
  }

  // Warm-up, then interleaved rounds.
  await time(baseline);
  await time(() => sdk());
  const rounds = QUICK ? 3 : 7;
  const b: number[] = [];
  const s: number[] = [];
  const nd: number[] = [];
  const full: number[] = [];
  const ratios: number[] = [];
  const cpuRatios: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const bt = await time(baseline);
    const bc = lastCpuMs;
    const st = await time(() => sdk());
    b.push(bt);
    s.push(st);
    ratios.push(bt / st);
    cpuRatios.push(bc / lastCpuMs);
    if (r < 3) {
      nd.push(await time(ndjsonPipe));
      full.push(await time(() => sdk('full')));
    }
  }
  const ratio = med(ratios);
  const baselineMs = med(b);
  report({
    bench: 'stream',
    metric: 'messages.stream throughput vs fetch+split+JSON.parse, 100k records (throughput ratio)',
    value: ratio,
    unit: 'x',
    bar: '>= 0.9x',
    limit: 0.9,
    higherIsBetter: true,
    pass: ratio >= 0.9,
    detail: {
      baselineMs: round(baselineMs, 1),
      sdkMs: round(med(s), 1),
      sdkRecordsPerSec: Math.round(N / (med(s) / 1000)),
      // Informational: the same rounds' ratio of CPU time (baseline / SDK), the noise-resistant check.
      cpuRatio: round(med(cpuRatios)),
      ndjsonPipeMs: round(med(nd), 1),
      ndjsonPipeRatio: round(baselineMs / med(nd)),
      fullValidationMs: round(med(full), 1),
      fullValidationRatio: round(baselineMs / med(full)),
    },
  });

  const mb = (bytes: number) => bytes / 2 ** 20;
  const peak = Math.max(mb(peakRss), mb(peakHeap));
  report({
    bench: 'stream',
    metric: 'messages.stream peak extra memory, 100k records (max of RSS and heap growth)',
    value: peak,
    unit: 'MB',
    bar: '<= 64MB',
    limit: 64,
    pass: peak <= 64,
    detail: {
      rssGrowthMB: round(mb(peakRss), 1),
      heapGrowthMB: round(mb(peakHeap), 1),
      gcExposed: gc ? 'yes' : 'no (run with --expose-gc for a cleaner start)',
      streamMB: round(mb(streamBytes), 1),
    },
  });
}
