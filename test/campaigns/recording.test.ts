/**
 * How `sendMany({ campaign })` records, against a gateway answered by msw, on a clock the test moves: results are
 * written by count or by age (never older than half the store's `parkMs`, so a status parked before its result
 * is never lost to a slow consumer or a slow source); leaving the loop waits for the sends in flight and records
 * them, or throws `CampaignRecordError` with them.
 */
import { http } from 'msw';
import { describe, expect, it } from 'vitest';
import {
  type CampaignClock,
  type CampaignObserver,
  CampaignRecordError,
  type CampaignStore,
  CampaignTracker,
  ConfigurationError,
  MemoryCampaignStore,
  type OutboundMessage,
} from '../../src/index.js';
import { statusObject } from '../../src/testing/webhook-fixtures.js';
import { deferred, manualClock, waitFor } from '../helpers/manual-clock.js';
import { GW, useMswServer } from '../helpers/msw.js';
import { accept, gateway as answering, client, collect, msg, type SendBody } from './msw-sends.js';

const server = useMswServer();
const gateway = (onRequest?: (body: string) => Promise<void> | undefined) => answering(server, onRequest);

/** `tracker` as the gateway's observer, counting the results handed to its recorders. */
function counted(tracker: CampaignTracker) {
  const seen = { added: 0 };
  const observer: CampaignObserver = {
    recorder(campaign) {
      const inner = tracker.recorder(campaign);
      return {
        get ready() {
          return inner.ready;
        },
        get isReady() {
          return inner.isReady;
        },
        beginSend: () => inner.beginSend(),
        endSend: () => inner.endSend(),
        add: (result, message) => {
          seen.added++;
          return inner.add(result, message);
        },
        flush: () => inner.flush(),
        close: () => inner.close(),
      };
    },
  };
  return { seen, observer };
}

/** An async source of `messages` that tells when `sendMany` closes it (its `finally`, as the loop is left). */
function closable(messages: OutboundMessage[], onReturn: () => void): AsyncIterable<OutboundMessage> {
  let i = 0;
  return {
    [Symbol.asyncIterator]: () => ({
      next: async () =>
        i < messages.length ? { value: messages[i++]!, done: false } : { value: undefined, done: true },
      return: async () => {
        onReturn();
        return { value: undefined, done: true };
      },
    }),
  };
}

/** A memory store whose `record` fails while `down` is set, and whose `commit` fails while `commitDown` is. */
function flakyStore() {
  const memory = new MemoryCampaignStore();
  const state = { down: false, commitDown: false };
  const store: CampaignStore = {
    parkMs: memory.parkMs,
    sending: (campaign) => memory.sending(campaign),
    record: (campaign, batch) =>
      state.down ? Promise.reject(new Error('store down')) : memory.record(campaign, batch),
    lookup: (wamid, park) => memory.lookup(wamid, park),
    commit: (change) => (state.commitDown ? Promise.reject(new Error('store down')) : memory.commit(change)),
    totals: (campaign) => memory.totals(campaign),
    refusals: (campaign) => memory.refusals(campaign),
    failedRetries: (campaign) => memory.failedRetries(campaign),
    campaigns: () => memory.campaigns(),
  };
  return Object.assign(state, { store });
}

describe('leaving a sendMany({ campaign }) loop early', () => {
  /**
   * Four sends in flight: m0 is answered once all four have reached the gateway, m1..m3 only once the loop's
   * `finally` has closed the source (the loop is being left).
   */
  function fourInFlight() {
    const all = deferred();
    const leaving = deferred();
    let seen = 0;
    server.use(
      http.post(`${GW}/v1/wa/message`, async ({ request }) => {
        const body = (await request.json()) as SendBody;
        if (++seen === 4) all.resolve();
        await (body.text.body === 'm0' ? all.promise : leaving.promise);
        return accept(body);
      }),
    );
    const source = closable([0, 1, 2, 3].map(msg), () => leaving.resolve());
    return { source, seen: () => seen };
  }

  it('resolves once the results of the sends in flight are recorded', async () => {
    const tracker = new CampaignTracker({ batchSize: 1 });
    const { source, seen } = fourInFlight();
    for await (const r of client(tracker).messages.sendMany(source, { campaign: 'c' })) {
      expect(r).toMatchObject({ index: 0, ok: true });
      break;
    }
    expect(seen()).toBe(4);
    // The gateway accepted four sends: all four are in the campaign when the loop has been left.
    expect((await tracker.report('c'))?.funnel).toMatchObject({ accepted: 4, notSent: 0, maybeSent: 0 });
  });

  it('throws CampaignRecordError with them when the store fails after the break', async () => {
    const flaky = flakyStore();
    const tracker = new CampaignTracker({ store: flaky.store, batchSize: 1 });
    const { source } = fourInFlight();
    const left = (async () => {
      for await (const r of client(tracker).messages.sendMany(source, { campaign: 'c' })) {
        expect(r).toMatchObject({ index: 0, ok: true });
        flaky.down = true;
        break;
      }
    })();
    const error = await left.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(CampaignRecordError);
    const unrecorded = (error as CampaignRecordError).unrecorded;
    expect(unrecorded.map((u) => u.result.ok && u.result.messageId).sort()).toEqual([
      'wamid.m1',
      'wamid.m2',
      'wamid.m3',
    ]);
    expect((await tracker.report('c'))?.funnel.accepted).toBe(1);
    flaky.down = false;
    await tracker.record('c', unrecorded);
    expect((await tracker.report('c'))?.funnel.accepted).toBe(4);
  });

  it('records them too when the loop body throws (the body’s error is the one that surfaces)', async () => {
    const tracker = new CampaignTracker({ batchSize: 1 });
    const { source } = fourInFlight();
    const boom = new Error('boom');
    await expect(
      (async () => {
        for await (const _ of client(tracker).messages.sendMany(source, { campaign: 'c' })) throw boom;
      })(),
    ).rejects.toBe(boom);
    expect((await tracker.report('c'))?.funnel.accepted).toBe(4);
  });
});

describe('results are written by count or by age', () => {
  /** A tracker and a memory store on one manual clock; `parkMs` 10 s, so results wait at most 5 s. */
  function onClock(options: { maxBatchAgeMs?: number } = {}) {
    const clock = manualClock();
    const store = new MemoryCampaignStore({ parkMs: 10_000, now: clock.now });
    const tracker = new CampaignTracker({ store, clock: clock as CampaignClock, ...options });
    return { clock, store, tracker };
  }
  const delivered = (id: string) =>
    statusObject('delivered', {
      id,
      pricing: { billable: true, pricing_model: 'PMP', category: 'marketing' },
    });

  it('a slow consumer: a status that beat its result is applied within half of parkMs, not at the end', async () => {
    const { clock, tracker } = onClock({ maxBatchAgeMs: 5_000 });
    const { seen, observer } = counted(tracker);
    gateway();
    const loop = client(observer).messages.sendMany([msg(0), msg(1)], { campaign: 'c' });
    // The consumer takes one result and then stalls: both results wait in the recorder (batchSize 256).
    expect((await loop.next()).value).toMatchObject({ index: 0, ok: true });
    await waitFor(() => seen.added === 2, 'the recorder to hold both results');
    // The gateway delivered the statuses before the results were written: parked.
    await tracker.apply(delivered('wamid.m0'));
    await tracker.apply(delivered('wamid.m1'));
    expect(await tracker.report('c')).toBeUndefined();
    clock.advance(4_999);
    await new Promise((r) => setImmediate(r));
    expect(await tracker.report('c')).toBeUndefined();
    clock.advance(1);
    await waitFor(
      async () => (await tracker.report('c'))?.funnel.delivered === 2,
      'the buffer to be written',
    );
    expect((await tracker.report('c'))?.funnel).toMatchObject({ accepted: 2, sent: 2, delivered: 2 });
    // Long after parkMs, with the consumer still stalled: nothing parked is left to expire.
    clock.advance(60_000);
    await tracker.apply(delivered('wamid.stranger'));
    expect((await loop.next()).value).toMatchObject({ index: 1, ok: true });
    expect((await loop.next()).done).toBe(true);
    expect((await tracker.report('c'))?.funnel).toMatchObject({ accepted: 2, sent: 2, delivered: 2 });
    expect((await tracker.report('c'))?.billable).toBe(2);
  });

  it('a slow source: results are written while it waits, and sends after a long pause still park', async () => {
    const { clock, tracker } = onClock();
    const gate = deferred();
    const m1Sent = deferred();
    const m1Answer = deferred();
    gateway((body) => {
      if (body !== 'm1') return undefined;
      m1Sent.resolve();
      return m1Answer.promise;
    });
    async function* slow() {
      yield msg(0);
      await gate.promise;
      yield msg(1);
    }
    const { seen, observer } = counted(tracker);
    const done = collect(client(observer).messages.sendMany(slow(), { campaign: 'c' }));
    await waitFor(() => seen.added === 1, 'the recorder to hold m0’s result');
    await tracker.apply(delivered('wamid.m0'));
    clock.advance(1_000);
    await waitFor(async () => (await tracker.report('c'))?.funnel.delivered === 1, 'm0 to be written');
    // The source waits far longer than parkMs; then m1's status beats its send's answer.
    clock.advance(10 * 60_000);
    gate.resolve();
    await m1Sent.promise;
    await tracker.apply(delivered('wamid.m1'));
    m1Answer.resolve();
    expect((await done).map((r) => r.ok)).toEqual([true, true]);
    expect((await tracker.report('c'))?.funnel).toMatchObject({ accepted: 2, delivered: 2 });
  });

  it('a send out for longer than parkMs: the note is renewed meanwhile, so its early status still parks', async () => {
    const { clock, tracker } = onClock();
    const out = deferred();
    const answer = deferred();
    gateway(() => {
      out.resolve();
      return answer.promise;
    });
    const done = collect(client(tracker).messages.sendMany([msg(0)], { campaign: 'c' }));
    await out.promise;
    // A minute (six parkMs) goes by, a renewal at a time, while the request is out.
    for (let step = 0; step < 18; step++) {
      clock.advance(3_334);
      await new Promise((r) => setImmediate(r));
    }
    await tracker.apply(delivered('wamid.m0'));
    answer.resolve();
    expect((await done).map((r) => r.ok)).toEqual([true]);
    expect((await tracker.report('c'))?.funnel).toMatchObject({ accepted: 1, delivered: 1 });
    // Closed, and idle before that: the recorder holds no timer.
    expect(clock.pending()).toBe(0);
  });

  it('an idle recorder holds no timer: nothing keeps it alive if its loop is dropped', async () => {
    const { clock, tracker } = onClock();
    const { seen, observer } = counted(tracker);
    gateway();
    const loop = client(observer).messages.sendMany([msg(0), msg(1)], { campaign: 'c' });
    expect((await loop.next()).value).toMatchObject({ index: 0, ok: true });
    await waitFor(() => seen.added === 2, 'both results in the recorder');
    // The loop is dropped here without return(): its results are written by age, then its timers end.
    clock.advance(1_000);
    await waitFor(
      async () => (await tracker.report('c'))?.funnel.accepted === 2,
      'the results to be written',
    );
    clock.advance(10_000);
    expect(clock.pending()).toBe(0);
  });

  it('writes a full batch at once, without waiting for its age', async () => {
    const clock = manualClock();
    const tracker = new CampaignTracker({ batchSize: 2, clock });
    gateway();
    const loop = client(tracker).messages.sendMany([0, 1, 2, 3].map(msg), { campaign: 'c' });
    expect((await loop.next()).value).toMatchObject({ index: 0, ok: true });
    // The clock never moves: only the count writes.
    await waitFor(async () => (await tracker.report('c'))?.funnel.accepted === 4, 'two full batches');
    expect(await collect(loop)).toHaveLength(3);
  });

  it('refuses an age above half of the store’s parkMs', () => {
    const store = new MemoryCampaignStore({ parkMs: 10_000 });
    expect(() => new CampaignTracker({ store, maxBatchAgeMs: 5_001 })).toThrow(ConfigurationError);
    expect(() => new CampaignTracker({ store, maxBatchAgeMs: 0 })).toThrow(ConfigurationError);
    expect(() => new CampaignTracker({ store, maxBatchAgeMs: 5_000 })).not.toThrow();
  });

  it('a message whose `to` throws is reported invalid and recorded, and the loop ends', async () => {
    gateway();
    const tracker = new CampaignTracker({ store: new MemoryCampaignStore() });
    const hostile = {
      type: 'text',
      text: { body: 'hi' },
      get to(): string {
        throw new Error('boom');
      },
    } as unknown as OutboundMessage;
    const results = await collect(client(tracker).messages.sendMany([msg(0), hostile], { campaign: 'c' }));
    expect(results.map((r) => r.ok)).toEqual([true, false]);
    expect((await tracker.report('c'))?.funnel.accepted).toBe(1);
  });

  it('a recorder of the user’s own that throws: every result is still yielded, then the loop throws its error', async () => {
    gateway();
    const tracker = new CampaignTracker({ store: new MemoryCampaignStore() });
    const { observer } = counted(tracker);
    const throwing: CampaignObserver = {
      recorder(campaign) {
        const inner = observer.recorder(campaign);
        return Object.assign(Object.create(inner) as typeof inner, {
          add: () => Promise.reject(new Error('my store is down')),
          close: () => inner.close(),
          beginSend: () => inner.beginSend(),
          endSend: () => inner.endSend(),
        });
      },
    };
    const seen: boolean[] = [];
    const loop = (async () => {
      for await (const r of client(throwing).messages.sendMany([msg(0), msg(1)], { campaign: 'c' }))
        seen.push(r.ok);
    })();
    await expect(loop).rejects.toThrow('my store is down');
    expect(seen).toEqual([true, true]);
  });

  it('a status parked before its result that cannot be applied after: handed back alone, the results stay recorded once', async () => {
    const flaky = flakyStore();
    const tracker = new CampaignTracker({ store: flaky.store, batchSize: 1 });
    const sent = deferred();
    const answer = deferred();
    gateway(() => {
      sent.resolve();
      return answer.promise;
    });
    const loop = collect(client(tracker).messages.sendMany([msg(0)], { campaign: 'c' }));
    await sent.promise;
    await tracker.apply(statusObject('delivered', { id: 'wamid.m0' }));
    flaky.commitDown = true;
    answer.resolve();
    const error = await loop.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(CampaignRecordError);
    const { unrecorded, unapplied, message } = error as CampaignRecordError;
    expect(unrecorded).toEqual([]);
    expect(unapplied.map((s) => s.id)).toEqual(['wamid.m0']);
    expect(message).toContain('tracker.apply(status)');
    flaky.commitDown = false;
    for (const status of unapplied) await tracker.apply(status);
    expect((await tracker.report('c'))?.funnel).toMatchObject({ accepted: 1, delivered: 1 });
  });
});
