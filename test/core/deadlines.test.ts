import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Deadlines, type Expiring } from '../../src/core/deadlines.js';

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
});
