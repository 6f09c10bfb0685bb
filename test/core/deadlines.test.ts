import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Deadlines, type Expiring } from '../../src/core/attempt.js';

const entry = (log: string[], name: string): Expiring => ({
  at: 0,
  slot: -1,
  expire: () => log.push(name),
});

describe('Deadlines: one timer for every request in flight', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('expires each entry at its own deadline, never before, and never one that was cleared', async () => {
    const deadlines = new Deadlines();
    const log: string[] = [];
    const a = entry(log, 'a');
    const b = entry(log, 'b');
    const c = entry(log, 'c');
    deadlines.add(a, 100);
    deadlines.add(b, 300);
    deadlines.add(c, 200);
    deadlines.clear(c);
    await vi.advanceTimersByTimeAsync(99);
    expect(log).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(log).toEqual(['a']);
    await vi.advanceTimersByTimeAsync(199);
    expect(log).toEqual(['a']);
    await vi.advanceTimersByTimeAsync(1);
    expect(log).toEqual(['a', 'b']);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('re-arms for an entry due sooner than the armed one', async () => {
    const deadlines = new Deadlines();
    const log: string[] = [];
    deadlines.add(entry(log, 'late'), 1000);
    deadlines.add(entry(log, 'soon'), 10);
    await vi.advanceTimersByTimeAsync(10);
    expect(log).toEqual(['soon']);
    await vi.advanceTimersByTimeAsync(990);
    expect(log).toEqual(['soon', 'late']);
  });

  it('keeps the others when entries are cleared out of order, and clearing twice is harmless', async () => {
    const deadlines = new Deadlines();
    const log: string[] = [];
    const all = ['a', 'b', 'c', 'd'].map((name) => entry(log, name));
    for (const e of all) deadlines.add(e, 50);
    deadlines.clear(all[1]!);
    deadlines.clear(all[1]!);
    deadlines.clear(all[0]!);
    await vi.advanceTimersByTimeAsync(50);
    expect(log.sort()).toEqual(['c', 'd']);
  });

  it('waits out a timeout longer than setTimeout can hold without spinning (no 1 ms re-fires)', async () => {
    const deadlines = new Deadlines();
    const log: string[] = [];
    const armed = vi.spyOn(globalThis, 'setTimeout');
    deadlines.add(entry(log, 'far'), Number.MAX_SAFE_INTEGER);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(log).toEqual([]);
    expect(armed).toHaveBeenCalledTimes(1);
    expect(armed.mock.calls[0]![1]).toBe(2 ** 31 - 1);
    armed.mockRestore();
  });
});

describe('Deadlines keep the process alive only while a request is in flight', () => {
  const root = fileURLToPath(new URL('../..', import.meta.url));
  // `timeout` kills a child still alive after it (`execFileSync` blocks, so the test's own timeout cannot).
  const run = (script: string, timeout?: number) =>
    execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: root,
      encoding: 'utf8',
      ...(timeout ? { timeout } : {}),
    }).trim();
  const client = `
    const { GatewayClient } = await import(${JSON.stringify(join(root, 'src/index.ts'))});
    const message = { to: '998901234567', type: 'text', text: { body: 'hi' } };
  `;

  it('a call waiting on a fetch that holds no handle still ends in its TimeoutError', () => {
    // A stub fetch (as msw or a test double is) that answers only to its signal and holds no socket: only the
    // deadline timer can end the call, so it must keep the process alive until then.
    const out = run(`${client}
      const fetch = (_url, init) =>
        new Promise((_, reject) => init.signal.addEventListener('abort', () => reject(init.signal.reason)));
      const gw = new GatewayClient({ apiKey: 'gw_key_0123456789abcdef', baseUrl: 'http://127.0.0.1:9',
        fetch, timeoutMs: 200, maxRetries: 0, rateLimit: false });
      await gw.messages.send(message).then(() => console.log('sent'), (e) => console.log(e.name));
    `);
    expect(out.split('\n').at(-1)).toBe('TimeoutError');
  }, 30_000);

  it("a caller's signal that cannot be listened to fails the call without holding the process for timeoutMs", () => {
    // A real AbortSignal (so the option check lets it through) whose registration throws: the deadline entry added
    // before it must be cleared on the way out, or its ref'd timer holds the process for the whole 60 s timeout.
    const out = run(
      `${client}
      const gw = new GatewayClient({ apiKey: 'gw_key_0123456789abcdef', baseUrl: 'http://127.0.0.1:9',
        fetch: async () => Response.json({ isSuccess: true, data: { contacts: [], messages: [{ id: 'wamid.1' }] } }),
        timeoutMs: 60_000, maxRetries: 0, rateLimit: false });
      const signal = new AbortController().signal;
      signal.addEventListener = () => { throw new TypeError('this signal refuses listeners'); };
      const started = performance.now();
      await gw.messages.send(message, { signal }).then(() => console.log('sent'), (e) => console.log(e.message));
      process.on('exit', () => console.log(performance.now() - started < 30_000 ? 'exited' : 'held'));
    `,
      40_000,
    );
    expect(out.split('\n').slice(-2)).toEqual(['this signal refuses listeners', 'exited']);
  }, 60_000);

  it("an idle client does not hold the process after its call (the 60 s timer stays armed, unref'd)", () => {
    const out = run(`${client}
      const gw = new GatewayClient({ apiKey: 'gw_key_0123456789abcdef', baseUrl: 'http://127.0.0.1:9',
        fetch: async () => Response.json({ isSuccess: true, data: { contacts: [], messages: [{ id: 'wamid.1' }] } }),
        timeoutMs: 60_000,
        maxRetries: 0, rateLimit: false });
      const started = performance.now();
      await gw.messages.send(message);
      process.on('exit', () => console.log(performance.now() - started < 30_000 ? 'exited' : 'held'));
    `);
    expect(out.split('\n').at(-1)).toBe('exited');
  }, 30_000);
});
