import { getEventListeners } from 'node:events';
import { HttpResponse, http } from 'msw';
import { describe, expect, it } from 'vitest';
import {
  AuthenticationError,
  BadRequestError,
  ConfigurationError,
  ConnectionError,
  InternalServerError,
  MessageValidationError,
  PermissionDeniedError,
  StreamError,
  TimeoutError,
} from '../../src/core/errors.js';
import {
  type Feedback,
  PlatformClient,
  type PlatformClientOptions,
  StreamInterruptedError,
  type StreamMessage,
} from '../../src/platform/index.js';
import { useMswServer } from '../helpers/msw.js';
import { CHANNEL, CONV, PLATFORM, STREAM, TOKEN } from '../helpers/platform.js';

const server = useMswServer();
const encoder = new TextEncoder();

function client(extra: Partial<PlatformClientOptions> = {}) {
  return new PlatformClient({ platformUrl: PLATFORM, streamUrl: STREAM, token: TOKEN, ...extra });
}

function message(id: number, createdAt = '2024-05-01T10:00:00.000000Z', content = `Привет 👋 #${id}`) {
  return {
    id,
    created_at: createdAt,
    conversation: {
      uuid: CONV,
      customer: { name: 'Зарина', uuid: CONV, email: null, phone_number: '998901234567' },
      is_archived: false,
    },
    channel: { uuid: CHANNEL, name: 'Main', backend: 'whatsapp' },
    type: 'text',
    agent: null,
    customer: { name: 'Зарина' },
    content,
    data: {},
    group: { name: 'Support' },
  };
}

/** A body delivered in small chunks of varying size, so lines and multi-byte characters are split. */
function chunked(text: string, { cutAfter }: { cutAfter?: number } = {}): ReadableStream<Uint8Array> {
  const bytes = encoder.encode(text);
  const end = cutAfter ?? bytes.length;
  let offset = 0;
  let size = 1;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (offset >= end) {
        if (cutAfter === undefined) controller.close();
        else controller.error(new TypeError('terminated'));
        return;
      }
      const next = Math.min(end, offset + size);
      controller.enqueue(bytes.slice(offset, next));
      offset = next;
      size = (size % 7) + 1;
    },
  });
}

function serveStream(
  body: () => ReadableStream<Uint8Array> | string,
  contentType = 'application/x-ndjson',
): URL[] {
  const urls: URL[] = [];
  server.use(
    http.get(`${STREAM}/stream/messages/`, ({ request }) => {
      urls.push(new URL(request.url));
      return new HttpResponse(body(), { headers: { 'content-type': contentType } });
    }),
  );
  return urls;
}

async function collect<T>(iterable: AsyncIterable<T>): Promise<{ items: T[]; error: unknown }> {
  const items: T[] = [];
  try {
    for await (const item of iterable) items.push(item);
    return { items, error: undefined };
  } catch (error) {
    return { items, error };
  }
}

describe('NDJSON decoding', () => {
  it('yields every record, whatever the chunking, and sends the query and token', async () => {
    const records = Array.from({ length: 50 }, (_, i) => message(i + 1));
    let auth: string | null = null;
    const urls: URL[] = [];
    server.use(
      http.get(`${STREAM}/stream/messages/`, ({ request }) => {
        auth = request.headers.get('authorization');
        urls.push(new URL(request.url));
        return new HttpResponse(chunked(records.map((r) => JSON.stringify(r)).join('\n') + '\n'), {
          headers: { 'content-type': 'application/x-ndjson' },
        });
      }),
    );
    const { items, error } = await collect(
      client().messages.stream({
        type: 'text',
        sender: 'customer',
        channel: CHANNEL,
        conversation_uuid: CONV,
        conversation_customer: true,
        created_at__gt: new Date('2024-05-01T00:00:00Z'),
        created_at__lt: '2024-05-02T00:00:00.000000Z',
      }),
    );
    expect(error).toBeUndefined();
    expect(items).toEqual(records);
    expect(auth).toBe(`JWT ${TOKEN}`);
    expect(urls[0]?.pathname).toBe('/stream/messages/');
    expect(Object.fromEntries(urls[0]?.searchParams ?? [])).toEqual({
      type: 'text',
      sender: 'customer',
      channel: CHANNEL,
      conversation_uuid: CONV,
      conversation_customer: 'true',
      created_at__gt: '2024-05-01T00:00:00.000Z',
      created_at__lt: '2024-05-02T00:00:00.000000Z',
    });
  });

  it('tolerates CRLF, blank lines and a last line without a line break', async () => {
    serveStream(
      () =>
        `${JSON.stringify(message(1))}\r\n\r\n\n${JSON.stringify(message(2))}\r\n${JSON.stringify(message(3))}`,
    );
    const { items, error } = await collect(client().messages.stream());
    expect(error).toBeUndefined();
    expect(items.map((m) => m.id)).toEqual([1, 2, 3]);
  });

  it('an empty stream yields nothing', async () => {
    serveStream(() => '');
    expect(await collect(client().messages.stream())).toEqual({ items: [], error: undefined });
  });

  it('a stream cut mid-line yields every complete record, then StreamError with recordsDelivered', async () => {
    const text =
      [1, 2, 3].map((i) => JSON.stringify(message(i))).join('\n') + '\n' + JSON.stringify(message(4));
    const cut = encoder.encode(text).length - 20;
    serveStream(() => chunked(text, { cutAfter: cut }));
    const { items, error } = await collect(client().messages.stream());
    expect(items.map((m) => m.id)).toEqual([1, 2, 3]);
    expect(error).toBeInstanceOf(StreamInterruptedError);
    const e = error as StreamInterruptedError;
    expect(e).toBeInstanceOf(StreamError);
    expect(e.recordsDelivered).toBe(3);
    expect(e.lastCreatedAt).toBe(message(3).created_at);
    expect(e.message).toMatch(/cut after 3 complete records \(in the middle of the next record\)/);
    expect(e.cause).toBeInstanceOf(ConnectionError);
    expect(e.cause).not.toBeInstanceOf(TimeoutError);
  });

  it('a server silent longer than idleTimeoutMs: the records it sent, then a TimeoutError as the cause', async () => {
    serveStream(
      () =>
        new ReadableStream<Uint8Array>({
          start(controller) {
            controller.enqueue(
              encoder.encode(`${JSON.stringify(message(1))}\n${JSON.stringify(message(2))}\n`),
            );
            // Then nothing: neither data nor an end.
          },
        }),
    );
    const started = performance.now();
    const { items, error } = await collect(client().messages.stream({}, { idleTimeoutMs: 60 }));
    // The stream would otherwise hang forever: a failure bound, generous for a busy machine.
    expect(performance.now() - started).toBeLessThan(10_000);
    expect(items.map((m) => m.id)).toEqual([1, 2]);
    expect(error).toBeInstanceOf(StreamInterruptedError);
    const e = error as StreamInterruptedError;
    expect(e.message).toBe('The message stream stalled after 2 complete records: no data for 60 ms.');
    expect(e.recordsDelivered).toBe(2);
    expect(e.lastCreatedAt).toBe(message(2).created_at);
    expect(e.cause).toBeInstanceOf(TimeoutError);
    expect((e.cause as TimeoutError).timeoutMs).toBe(60);
  });

  it('the idle timeout defaults to the request timeout', async () => {
    serveStream(
      () =>
        new ReadableStream<Uint8Array>({
          start(controller) {
            controller.enqueue(encoder.encode(`${JSON.stringify(message(1))}\n`));
          },
        }),
    );
    const { items, error } = await collect(client({ timeoutMs: 80 }).messages.stream());
    expect(items).toHaveLength(1);
    expect((error as StreamInterruptedError).cause).toBeInstanceOf(TimeoutError);
    expect(((error as StreamInterruptedError).cause as TimeoutError).timeoutMs).toBe(80);
  });

  it('a slow reader is never taken for a silent server', async () => {
    serveStream(() =>
      chunked(Array.from({ length: 4 }, (_, i) => `${JSON.stringify(message(i + 1))}\n`).join('')),
    );
    const ids: number[] = [];
    for await (const m of client().messages.stream({}, { idleTimeoutMs: 20 })) {
      ids.push(m.id);
      await new Promise((r) => setTimeout(r, 60));
    }
    expect(ids).toEqual([1, 2, 3, 4]);
  });

  it('refuses a timeout or idle timeout that is not a positive number, before any request', () => {
    const urls = serveStream(() => '');
    expect(() => client().messages.stream({}, { idleTimeoutMs: 0 })).toThrow(/idleTimeoutMs/);
    expect(() => client().messages.stream({}, { timeoutMs: -5 })).toThrow(ConfigurationError);
    expect(() =>
      client().messages.streamRange(
        { from: '2024-01-01T00:00:00Z', to: '2024-01-02T00:00:00Z' },
        { idleTimeoutMs: Number.NaN },
      ),
    ).toThrow(/idleTimeoutMs/);
    expect(urls).toHaveLength(0);
  });

  it('leaves no listener on a long-lived signal shared by streams that end, break, fail or are refused', async () => {
    const text = [1, 2, 3].map((i) => `${JSON.stringify(message(i))}\n`).join('');
    let mode: 'full' | 'cut' | 'bad' | 'refused' = 'full';
    server.use(
      http.get(`${STREAM}/stream/messages/`, () => {
        if (mode === 'refused') return HttpResponse.json({ detail: 'no' }, { status: 403 });
        const body =
          mode === 'cut'
            ? chunked(text, { cutAfter: 30 })
            : mode === 'bad'
              ? `${text}not json\n`
              : chunked(text);
        return new HttpResponse(body, { headers: { 'content-type': 'application/x-ndjson' } });
      }),
    );
    const shared = new AbortController();
    const c = client();
    const listeners = () => getEventListeners(shared.signal, 'abort').length;
    for (const m of ['full', 'cut', 'bad', 'refused'] as const) {
      mode = m;
      for (let i = 0; i < 5; i++) await collect(c.messages.stream({}, { signal: shared.signal }));
    }
    mode = 'full';
    for (let i = 0; i < 5; i++) {
      for await (const _ of c.messages.stream({}, { signal: shared.signal })) break;
    }
    expect(listeners()).toBe(0);
  });

  it('a stream that ends cleanly in the middle of a line is a StreamError too', async () => {
    serveStream(() => `${JSON.stringify(message(1))}\n{"id":2,"created_at":"2024-05-01`);
    const { items, error } = await collect(client().messages.stream());
    expect(items.map((m) => m.id)).toEqual([1]);
    expect(error).toBeInstanceOf(StreamInterruptedError);
    expect((error as StreamError).message).toMatch(/ended in the middle of line 2/);
    expect((error as StreamError).recordsDelivered).toBe(1);
    expect((error as StreamInterruptedError).lastCreatedAt).toBe(message(1).created_at);
  });

  it('an invalid line: the records before it, then StreamError naming the line, not its content', async () => {
    const secret = 'customer card 4111 1111 1111 1111';
    serveStream(
      () =>
        `${JSON.stringify(message(1))}\n\n${JSON.stringify(message(2))}\n{"content": "${secret}"\n${JSON.stringify(message(3))}\n`,
    );
    const { items, error } = await collect(client().messages.stream());
    expect(items.map((m) => m.id)).toEqual([1, 2]);
    expect(error).toBeInstanceOf(StreamError);
    const e = error as StreamError;
    expect(e.message).toBe('Line 4 of the message stream is not valid JSON.');
    // Not an interruption: resuming would meet the same line again.
    expect(e).not.toBeInstanceOf(StreamInterruptedError);
    expect(e.recordsDelivered).toBe(2);
    expect(e.cause).toBeUndefined();
    expect(JSON.stringify(e)).not.toContain('4111');
  });

  it('a JSON line that is not a message record is refused', async () => {
    serveStream(() => `${JSON.stringify(message(1))}\n{"detail":"internal"}\n`);
    const { items, error } = await collect(client().messages.stream());
    expect(items).toHaveLength(1);
    expect((error as StreamError).message).toMatch(/Line 2 .* not a message record/);
  });

  it('the light check holds id and created_at to the schema itself: a fractional id is refused', async () => {
    serveStream(() => `${JSON.stringify(message(1))}\n${JSON.stringify({ ...message(2), id: 2.5 })}\n`);
    const { items, error } = await collect(client().messages.stream());
    expect(items.map((m) => m.id)).toEqual([1]);
    expect((error as StreamError).message).toMatch(/Line 2 .* not a message record \(it needs an integer id/);
  });

  it("validate: 'full' checks every field with the schema", async () => {
    const bad = { ...message(2), agent: 42 };
    serveStream(() => `${JSON.stringify(message(1))}\n${JSON.stringify(bad)}\n`);
    const light = await collect(client().messages.stream());
    expect(light.items).toHaveLength(2);
    const full = await collect(client().messages.stream({}, { validate: 'full' }));
    expect(full.items).toHaveLength(1);
    expect(full.error).toBeInstanceOf(StreamError);
    expect((full.error as StreamError).message).toMatch(/Line 2 .*agent: invalid_type/);
  });

  it('a line longer than the bound without a break ends in StreamError (bounded memory)', async () => {
    // The e2e suite checks memory over a real socket; here: the decoder gives up rather than buffer on.
    serveStream(() => `${JSON.stringify(message(1))}\n${'x'.repeat(4 * 1024 * 1024 + 10)}\n`);
    const { items, error } = await collect(client().messages.stream());
    expect(items).toHaveLength(1);
    expect(error).toBeInstanceOf(StreamError);
    expect((error as StreamError).message).toMatch(/line 2 exceeds 4194304 characters/);
  });

  it('maps error answers to their classes', async () => {
    for (const [status, Class] of [
      [400, BadRequestError],
      [401, AuthenticationError],
      [403, PermissionDeniedError],
    ] as const) {
      server.use(
        http.get(`${STREAM}/stream/messages/`, () =>
          HttpResponse.json({ detail: `status ${status}` }, { status }),
        ),
      );
      const { error } = await collect(client().messages.stream());
      expect(error).toBeInstanceOf(Class);
      expect((error as Error).message).toContain(`status ${status}`);
    }
  });

  it('refuses a range over one week before any request', () => {
    const urls = serveStream(() => '');
    expect(() =>
      client().messages.stream({
        created_at__gt: '2024-05-01T00:00:00Z',
        created_at__lt: '2024-05-08T00:00:01Z',
      }),
    ).toThrow(/streamRange/);
    expect(() => client().messages.stream({ channel: 'main' })).toThrow(MessageValidationError);
    expect(urls).toHaveLength(0);
  });

  it('an aborted signal ends the stream with its reason', async () => {
    serveStream(() =>
      chunked(Array.from({ length: 500 }, (_, i) => `${JSON.stringify(message(i + 1))}\n`).join('')),
    );
    const controller = new AbortController();
    const reason = new Error('shutting down');
    const seen: StreamMessage[] = [];
    const result = await collect(
      (async function* () {
        for await (const m of client().messages.stream({}, { signal: controller.signal })) {
          seen.push(m);
          if (seen.length === 3) controller.abort(reason);
          yield m;
        }
      })(),
    );
    expect(result.error).toBe(reason);
    expect(seen.length).toBeLessThan(500);
  });
});

describe('text/event-stream decoding', () => {
  it('reads each event data as one record, skipping comments and keep-alives', async () => {
    const multiLine = JSON.stringify(message(3), null, 1).split('\n');
    const text =
      ': connected\n\n' +
      `data: ${JSON.stringify(message(1))}\n\n` +
      `event: message\nid: 2\ndata: ${JSON.stringify(message(2))}\n\n` +
      'data:\n\n' +
      `${multiLine.map((l) => `data: ${l}`).join('\n')}\n\n`;
    serveStream(() => chunked(text), 'text/event-stream; charset=utf-8');
    const { items, error } = await collect(client().messages.stream());
    expect(error).toBeUndefined();
    expect(items).toEqual([message(1), message(2), message(3)]);
  });

  it('an event that is not JSON is a StreamError without its content', async () => {
    serveStream(() => `data: ${JSON.stringify(message(1))}\n\ndata: secret stuff\n\n`, 'text/event-stream');
    const { items, error } = await collect(client().messages.stream());
    expect(items).toHaveLength(1);
    expect((error as StreamError).message).toBe('Event 2 of the message stream is not valid JSON.');
  });

  it('a cut event stream yields the complete events, then StreamError', async () => {
    const text = `data: ${JSON.stringify(message(1))}\n\ndata: ${JSON.stringify(message(2))}\n\ndata: {"id":3,`;
    serveStream(() => chunked(text, { cutAfter: encoder.encode(text).length }), 'text/event-stream');
    const { items, error } = await collect(client().messages.stream());
    expect(items.map((m) => m.id)).toEqual([1, 2]);
    expect((error as StreamError).recordsDelivered).toBe(2);
  });
});

// -----------------------------------------------------------------------------------------------------------
// streamRange

interface Stored {
  id: number;
  /** Microseconds since the epoch: the server's precision. */
  us: number;
}

function isoMicros(us: number): string {
  const ms = Math.floor(us / 1000);
  return new Date(ms).toISOString().replace('Z', `${String(us % 1000).padStart(3, '0')}Z`);
}

function parseMicros(value: string): number {
  const m = /\.(\d+)Z$/.exec(value);
  const frac = (m?.[1] ?? '').padEnd(6, '0').slice(0, 6);
  return Math.floor(Date.parse(value) / 1000) * 1_000_000 + Number(frac);
}

/**
 * A stream endpoint over an in-memory data set: exclusive bounds compared in microseconds, answers in
 * created_at order truncated to `cap`, and a 400 for a span over one week (as the spec says).
 */
function serveDataset(
  data: Stored[],
  {
    cap,
    order = 'asc',
    cut,
    fail,
  }: {
    cap: number;
    order?: 'asc' | 'desc';
    /** The `request`th request (from 1) is cut in the middle of the record after the first `after`. */
    cut?: { request: number; after: number };
    /** An answer that replaces the `request`th request's (from 1). */
    fail?: (request: number) => Response | undefined;
  },
) {
  const requests: { gt: string; lt: string; spanMs: number; type: string | null }[] = [];
  server.use(
    http.get(`${STREAM}/stream/messages/`, ({ request }) => {
      const q = new URL(request.url).searchParams;
      const gt = q.get('created_at__gt') ?? '';
      const lt = q.get('created_at__lt') ?? '';
      const spanMs = Date.parse(lt) - Date.parse(gt);
      requests.push({ gt, lt, spanMs, type: q.get('type') });
      const failed = fail?.(requests.length);
      if (failed) return failed;
      if (spanMs > 7 * 24 * 3600 * 1000)
        return HttpResponse.json({ detail: 'Range too long.' }, { status: 400 });
      const lo = parseMicros(gt);
      const hi = parseMicros(lt);
      const rows = data
        .filter((d) => d.us > lo && d.us < hi)
        .sort((x, y) => (order === 'asc' ? x.us - y.us || x.id - y.id : y.us - x.us || y.id - x.id))
        .slice(0, cap)
        .map((d) => JSON.stringify(message(d.id, isoMicros(d.us))));
      const text = rows.length ? `${rows.join('\n')}\n` : '';
      const body =
        cut?.request === requests.length
          ? chunked(text, { cutAfter: encoder.encode(rows.slice(0, cut.after).join('\n')).length + 20 })
          : text;
      return new HttpResponse(body, { headers: { 'content-type': 'application/x-ndjson' } });
    }),
  );
  return requests;
}

const DAY = 24 * 3600 * 1000;
const T0 = Date.parse('2024-01-01T00:00:00Z');

/** Messages over three weeks, crowded at the day boundaries where windows meet. */
function dataset(): Stored[] {
  const out: Stored[] = [];
  let id = 1;
  const at = (ms: number, extraUs = 0) => out.push({ id: id++, us: ms * 1000 + extraUs });
  at(T0, -1); // just before `from`: excluded
  for (let d = 0; d <= 21; d++) {
    const midnight = T0 + d * DAY;
    at(midnight); // exactly on a boundary
    at(midnight, 1);
    at(midnight, 999);
    at(midnight - 1, 999); // the last microsecond before it
    at(midnight - 1);
    at(midnight + 1);
    for (let k = 0; k < 3; k++) at(midnight, 500); // three in the same microsecond
    at(midnight + 6 * 3600 * 1000 + d);
  }
  return out;
}

describe('messages.streamRange', () => {
  const from = new Date(T0);
  const to = new Date(T0 + 21 * DAY);
  const expected = (data: Stored[]) =>
    data
      .filter((d) => Math.floor(d.us / 1000) >= T0 && Math.floor(d.us / 1000) <= T0 + 21 * DAY)
      .sort((x, y) => x.us - y.us || x.id - y.id)
      .map((d) => d.id);

  it('splits a three-week range into week windows and yields each message once, in order', async () => {
    const data = dataset();
    const requests = serveDataset(data, { cap: 100_000 });
    const { items, error } = await collect(client().messages.streamRange({ from, to, type: 'text' }));
    expect(error).toBeUndefined();
    expect(items.map((m) => m.id)).toEqual(expected(data));
    expect(requests).toHaveLength(4);
    for (const r of requests) {
      expect(r.spanMs).toBeLessThan(7 * DAY);
      expect(r.type).toBe('text');
    }
  });

  it('loses nothing and repeats nothing at the edges of one-day windows', async () => {
    const data = dataset();
    const requests = serveDataset(data, { cap: 100_000 });
    const { items } = await collect(client().messages.streamRange({ from, to }, { windowMs: DAY }));
    const ids = items.map((m) => m.id);
    expect(ids).toEqual(expected(data));
    expect(new Set(ids).size).toBe(ids.length);
    expect(requests).toHaveLength(22);
    // Window 2 holds the milliseconds of 2 January; its exclusive bounds are one millisecond outside them.
    expect(requests[1]).toMatchObject({ gt: '2024-01-01T23:59:59.999Z', lt: '2024-01-03T00:00:00.000Z' });
  });

  it('continues a window that hit the per-request cap from its last created_at', async () => {
    const data = dataset();
    // A day window's request returns 12 messages, 8 of them within two milliseconds; the cap is 10.
    const requests = serveDataset(data, { cap: 10 });
    const { items, error } = await collect(
      client().messages.streamRange({ from, to }, { windowMs: DAY, maxPerRequest: 10 }),
    );
    expect(error).toBeUndefined();
    expect(items.map((m) => m.id)).toEqual(expected(data));
    expect(requests.length).toBeGreaterThan(22);
  });

  it('stops with StreamError when more messages than the cap crowd the point to continue from', async () => {
    serveDataset(dataset(), { cap: 5 });
    const { items, error } = await collect(
      client().messages.streamRange({ from, to }, { windowMs: DAY, maxPerRequest: 5 }),
    );
    expect(error).toBeInstanceOf(StreamError);
    expect((error as StreamError).message).toMatch(
      /more than 5 messages have a created_at within one millisecond/,
    );
    expect((error as StreamError).recordsDelivered).toBe(items.length);
  });

  it('refuses to continue a capped answer that is not in created_at order', async () => {
    serveDataset(dataset(), { cap: 5, order: 'desc' });
    const { items, error } = await collect(
      client().messages.streamRange({ from, to }, { windowMs: DAY, maxPerRequest: 5 }),
    );
    expect(error).toBeInstanceOf(StreamError);
    expect((error as StreamError).message).toMatch(/not in created_at order/);
    expect((error as StreamError).recordsDelivered).toBe(items.length);
  });

  it('a window cut part-way throws StreamInterruptedError; resuming from lastCreatedAt loses nothing', async () => {
    const data = dataset();
    serveDataset(data, { cap: 100_000, cut: { request: 3, after: 5 } });
    const first = await collect(client().messages.streamRange({ from, to }, { windowMs: DAY }));
    expect(first.error).toBeInstanceOf(StreamInterruptedError);
    const e = first.error as StreamInterruptedError;
    expect(e.recordsDelivered).toBe(first.items.length);
    expect(e.lastCreatedAt).toBe(first.items.at(-1)?.created_at);
    expect(e.cause).toBeInstanceOf(ConnectionError);

    serveDataset(data, { cap: 100_000 });
    const rest = await collect(
      client().messages.streamRange({ from: e.lastCreatedAt ?? from, to }, { windowMs: DAY }),
    );
    expect(rest.error).toBeUndefined();
    // The resume repeats only records of the last millisecond delivered.
    const seen = new Set(first.items.map((m) => m.id));
    const repeated = rest.items.filter((m) => seen.has(m.id));
    const lastMs = Date.parse(e.lastCreatedAt ?? '');
    for (const m of repeated) expect(Date.parse(m.created_at)).toBe(lastMs);
    const ids = [...first.items, ...rest.items.filter((m) => !seen.has(m.id))].map((m) => m.id);
    expect(ids).toEqual(expected(data));
  });

  it('a later request that fails on the connection or with a 5xx interrupts the range, with the cause', async () => {
    for (const answer of [
      () => HttpResponse.error(),
      () => HttpResponse.json({ detail: 'down' }, { status: 503 }),
    ]) {
      serveDataset(dataset(), { cap: 100_000, fail: (n) => (n === 2 ? answer() : undefined) });
      const { items, error } = await collect(
        client({ maxRetries: 0 }).messages.streamRange({ from, to }, { windowMs: DAY }),
      );
      expect(error).toBeInstanceOf(StreamInterruptedError);
      const e = error as StreamInterruptedError;
      expect(e.message).toMatch(
        /streamRange stopped after \d+ records: the request from 2024-01-02T00:00:00.000Z failed/,
      );
      expect(e.recordsDelivered).toBe(items.length);
      expect(items.length).toBeGreaterThan(0);
      expect(e.lastCreatedAt).toBe(items.at(-1)?.created_at);
      expect(e.cause instanceof ConnectionError || e.cause instanceof InternalServerError).toBe(true);
    }
  });

  it('the first request fails with its own error, and a refusal is never taken for an interruption', async () => {
    serveDataset(dataset(), { cap: 100_000, fail: (n) => (n === 1 ? HttpResponse.error() : undefined) });
    const first = await collect(
      client({ maxRetries: 0 }).messages.streamRange({ from, to }, { windowMs: DAY }),
    );
    expect(first.error).toBeInstanceOf(ConnectionError);
    serveDataset(dataset(), {
      cap: 100_000,
      fail: (n) => (n === 2 ? HttpResponse.json({ detail: 'no' }, { status: 403 }) : undefined),
    });
    const later = await collect(client().messages.streamRange({ from, to }, { windowMs: DAY }));
    expect(later.error).toBeInstanceOf(PermissionDeniedError);
  });

  it('checks its arguments before any request', () => {
    const requests = serveDataset([], { cap: 10 });
    expect(() => client().messages.streamRange({ from: to, to: from })).toThrow(/before/);
    expect(() => client().messages.streamRange({ from: 'yesterday', to })).toThrow(MessageValidationError);
    expect(() => client().messages.streamRange({ from, to }, { windowMs: 8 * DAY })).toThrow(/windowMs/);
    expect(requests).toHaveLength(0);
  });
});

// -----------------------------------------------------------------------------------------------------------
// feedbacksRange

describe('reports.feedbacksRange', () => {
  function feedback(createdAt: string, n: number): Feedback {
    return {
      created_at: createdAt,
      conversation: { uuid: CONV, type: null, created_at: createdAt },
      channel: { uuid: CHANNEL, name: 'Main', backend: 'whatsapp' },
      customer: { uuid: CONV, name: `Customer ${n}`, phone_number: null, email: null },
      type: 'emoji',
      language: 'en',
      satisfaction: n % 5,
      message: null,
    };
  }

  // Windows were 28 days; a window is now one calendar month (the platform's rule, addMonth), or windowDays if shorter.
  it('fetches a long range in windows of one calendar month and returns each feedback once, in order', async () => {
    const start = Date.parse('2024-01-01T00:00:00Z');
    const all: Feedback[] = [];
    for (let i = 0; i < 100; i++) all.push(feedback(new Date(start + i * 0.73 * DAY).toISOString(), i));
    // One exactly on the first window boundary, which inclusive bounds return twice.
    all.push(feedback('2024-02-01T00:00:00.000Z', 1000));
    const requests: { start: string; end: string }[] = [];
    server.use(
      http.get(`${PLATFORM}/reports/feedbacks/`, ({ request }) => {
        const q = new URL(request.url).searchParams;
        const s = q.get('start_date') ?? '';
        const e = q.get('end_date') ?? '';
        requests.push({ start: s, end: e });
        expect(q.get('type')).toBe('emoji');
        const rows = all
          .filter(
            (f) => Date.parse(f.created_at) >= Date.parse(s) && Date.parse(f.created_at) <= Date.parse(e),
          )
          .reverse(); // newest first: the helper must still return them in order
        return HttpResponse.json({ feedbacks: rows });
      }),
    );
    const end = start + 69.3 * DAY;
    const rows = await client().reports.feedbacksRange({
      from: new Date(start),
      to: new Date(end),
      type: 'emoji',
    });
    const want = all
      .filter((f) => Date.parse(f.created_at) <= end)
      .sort((a, b) => Date.parse(a.created_at) - Date.parse(b.created_at));
    expect(want.length).toBeGreaterThan(90);
    expect(rows).toEqual(want);
    expect(requests.map((r) => [r.start, r.end])).toEqual([
      ['2024-01-01T00:00:00.000Z', '2024-02-01T00:00:00.000Z'],
      ['2024-02-01T00:00:00.000Z', '2024-03-01T00:00:00.000Z'],
      ['2024-03-01T00:00:00.000Z', new Date(end).toISOString()],
    ]);
    const shorter = requests.length;
    await client().reports.feedbacksRange(
      { from: new Date(start), to: new Date(end), type: 'emoji' },
      { windowDays: 10 },
    );
    expect(requests.slice(shorter).map((r) => Date.parse(r.end) - Date.parse(r.start))).toEqual([
      ...Array(6).fill(10 * DAY),
      end - start - 60 * DAY,
    ]);
  });
});

describe('text/event-stream cut mid-event (review finding)', () => {
  it('ends in StreamInterruptedError after the complete events, not silently', async () => {
    const first = { id: 1, created_at: '2024-01-01T00:00:00.000Z', type: 'text', content: 'a' };
    const text = `data: ${JSON.stringify(first)}\n\ndata: {"id": 2, "created_at": "2024-01-01T00:00:01.000Z"`;
    serveStream(() => text, 'text/event-stream');
    const got: number[] = [];
    const e = await (async () => {
      for await (const m of client().messages.stream({})) got.push(m.id);
    })().catch((x: unknown) => x);
    expect(got).toEqual([1]);
    expect(e).toBeInstanceOf(StreamInterruptedError);
  });
});
