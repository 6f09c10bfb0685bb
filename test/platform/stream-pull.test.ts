/**
 * `messages.stream` pulled in the ways a `for await` loop does not: many records per chunk (each pull then
 * answered from the chunk already read), early exits, overlapping `next()` calls, `return()` and `throw()`.
 * The body is served by an injected fetch with no mocking layer between, so a cancelled body is observed.
 */
import { describe, expect, it } from 'vitest';
import { StreamError } from '../../src/core/errors.js';
import { PlatformClient, type StreamMessage } from '../../src/platform/index.js';

const encoder = new TextEncoder();

function line(id: number): string {
  return `${JSON.stringify({ id, created_at: `2024-05-01T10:00:${String(id % 60).padStart(2, '0')}.000Z` })}\n`;
}

/** One chunk holding `text`, then a body that stays open (until cancelled) unless `close`. */
function served(text: string, { close = false } = {}) {
  const seen = { cancelled: false, requests: 0 };
  let sent = false;
  const body = () =>
    new ReadableStream<Uint8Array>({
      pull(controller) {
        if (!sent) {
          sent = true;
          controller.enqueue(encoder.encode(text));
        } else if (close) controller.close();
      },
      cancel() {
        seen.cancelled = true;
      },
    });
  const fetch = async () => {
    seen.requests++;
    return new Response(body(), { headers: { 'content-type': 'application/x-ndjson' } });
  };
  const client = new PlatformClient({
    platformUrl: 'https://platform.test',
    streamUrl: 'https://stream.test',
    token: 'ready-token-abcdef123456',
    fetch: fetch as typeof globalThis.fetch,
  });
  return { client, seen };
}

const ten = Array.from({ length: 10 }, (_, i) => line(i + 1)).join('');

describe('messages.stream, many records per chunk', () => {
  it('yields every record of the chunk in order, then ends', async () => {
    const { client } = served(ten, { close: true });
    const ids: number[] = [];
    for await (const m of client.messages.stream()) ids.push(m.id);
    expect(ids).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });

  it('overlapping next() calls are answered in order', async () => {
    const { client } = served(ten, { close: true });
    const records = client.messages.stream();
    const results = await Promise.all(Array.from({ length: 12 }, () => records.next()));
    expect(results.map((r) => (r.done ? 'done' : (r.value as StreamMessage).id))).toEqual([
      1,
      2,
      3,
      4,
      5,
      6,
      7,
      8,
      9,
      10,
      'done',
      'done',
    ]);
  });

  it('a break in the middle of a chunk closes the body', async () => {
    const { client, seen } = served(ten);
    const ids: number[] = [];
    for await (const m of client.messages.stream()) {
      ids.push(m.id);
      if (m.id === 3) break;
    }
    expect(ids).toEqual([1, 2, 3]);
    expect(seen.cancelled).toBe(true);
  });

  it('return() in the middle of a chunk closes the body, and later pulls are done', async () => {
    const { client, seen } = served(ten);
    const records = client.messages.stream();
    expect((await records.next()).value?.id).toBe(1);
    expect((await records.next()).value?.id).toBe(2);
    expect(await records.return(undefined)).toEqual({ value: undefined, done: true });
    expect(seen.cancelled).toBe(true);
    expect(await records.next()).toEqual({ value: undefined, done: true });
  });

  it('throw() in the middle of a chunk rejects with it, closes the body, and later pulls are done', async () => {
    const { client, seen } = served(ten);
    const records = client.messages.stream();
    await records.next();
    await records.next();
    const mine = new Error('mine');
    await expect(records.throw(mine)).rejects.toBe(mine);
    expect(seen.cancelled).toBe(true);
    expect(await records.next()).toEqual({ value: undefined, done: true });
  });

  it('an abort in the middle of a chunk ends the stream at the next pull with its reason', async () => {
    const { client, seen } = served(ten);
    const controller = new AbortController();
    const reason = new Error('shutting down');
    const ids: number[] = [];
    let error: unknown;
    try {
      for await (const m of client.messages.stream({}, { signal: controller.signal })) {
        ids.push(m.id);
        if (m.id === 2) controller.abort(reason);
      }
    } catch (e) {
      error = e;
    }
    expect(ids).toEqual([1, 2]);
    expect(error).toBe(reason);
    expect(seen.cancelled).toBe(true);
  });

  it('a bad line in the middle of a chunk: the records before it, the error, the body closed, then done', async () => {
    const { client, seen } = served(`${line(1)}${line(2)}\n{"id":3,\n${line(4)}`);
    const records = client.messages.stream();
    expect((await records.next()).value?.id).toBe(1);
    expect((await records.next()).value?.id).toBe(2);
    const error = await records.next().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StreamError);
    expect((error as StreamError).message).toBe('Line 4 of the message stream is not valid JSON.');
    expect((error as StreamError).recordsDelivered).toBe(2);
    expect(seen.cancelled).toBe(true);
    expect(await records.next()).toEqual({ value: undefined, done: true });
  });

  it('a record failing the check in the middle of a chunk is refused the same way', async () => {
    const { client, seen } = served(`${line(1)}{"id":"2","created_at":"x"}\n${line(3)}`);
    const ids: number[] = [];
    let error: unknown;
    try {
      for await (const m of client.messages.stream()) ids.push(m.id);
    } catch (e) {
      error = e;
    }
    expect(ids).toEqual([1]);
    expect((error as StreamError).message).toMatch(/^Line 2 .* not a message record/);
    expect(seen.cancelled).toBe(true);
  });
});
