/**
 * onAbort keeps one listener of the SDK's on a caller's signal however many waits share it: a shutdown signal passed
 * to a thousand concurrent sends must not trip Node's "possible EventTarget memory leak" warning.
 */
import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { onAbort, raceSignal, sleep } from '../../src/core/abort.js';

describe('onAbort', () => {
  it('a thousand waits on one signal add one listener, and each is called once on abort', () => {
    const app = new AbortController();
    const calls: number[] = [];
    const stops = Array.from({ length: 1000 }, (_, i) => onAbort(app.signal, () => calls.push(i)));
    expect(getEventListeners(app.signal, 'abort')).toHaveLength(1);
    stops[0]?.();
    app.abort();
    expect(calls).toHaveLength(999);
    expect(calls[0]).toBe(1);
    expect(getEventListeners(app.signal, 'abort')).toHaveLength(0);
  });

  it('the last stop takes the listener off; a stop called twice changes nothing', () => {
    const app = new AbortController();
    const a = onAbort(app.signal, () => {});
    const b = onAbort(app.signal, () => {});
    a();
    a();
    expect(getEventListeners(app.signal, 'abort')).toHaveLength(1);
    b();
    expect(getEventListeners(app.signal, 'abort')).toHaveLength(0);
    let called = false;
    onAbort(app.signal, () => {
      called = true;
    });
    app.abort();
    expect(called).toBe(true);
  });

  it('the same function registered by two waits is two registrations, each stopped on its own', () => {
    const app = new AbortController();
    let calls = 0;
    const listener = () => {
      calls += 1;
    };
    const first = onAbort(app.signal, listener);
    onAbort(app.signal, listener);
    first();
    app.abort();
    expect(calls).toBe(1);
  });

  it('sleep and raceSignal leave no listener behind when they settle, and reject with the reason on abort', async () => {
    const app = new AbortController();
    await Promise.all(Array.from({ length: 50 }, () => sleep(1, app.signal)));
    await Promise.all(Array.from({ length: 50 }, () => raceSignal(Promise.resolve(1), app.signal)));
    expect(getEventListeners(app.signal, 'abort')).toHaveLength(0);
    const pending = Promise.allSettled(Array.from({ length: 20 }, () => sleep(60_000, app.signal)));
    expect(getEventListeners(app.signal, 'abort')).toHaveLength(1);
    const reason = new Error('shutting down');
    app.abort(reason);
    const settled = await pending;
    expect(settled.every((s) => s.status === 'rejected' && s.reason === reason)).toBe(true);
  });
});
