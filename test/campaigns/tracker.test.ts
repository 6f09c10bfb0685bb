import { describe, expect, it } from 'vitest';
import {
  CampaignRecordError,
  CampaignTracker,
  ConfigurationError,
  MemoryCampaignStore,
  PaymentRequiredError,
} from '../../src/index.js';
import { statusObject } from '../../src/testing/webhook-fixtures.js';

const accepted = (index: number, messageId: string) => ({
  result: { index, ok: true as const, messageId, contacts: [] },
  to: `99890000000${index}`,
});

describe('CampaignTracker', () => {
  it('applies a status arriving before its send result once the result is recorded (parked while sending)', async () => {
    const tracker = new CampaignTracker();
    const recorder = tracker.recorder('c');
    await recorder.ready;
    await tracker.apply(
      statusObject('delivered', {
        id: 'wamid.1',
        pricing: { billable: true, pricing_model: 'PMP', category: 'marketing' },
      }),
    );
    recorder.add(accepted(0, 'wamid.1').result, { to: '998900000000' });
    await recorder.close();
    const report = await tracker.report('c');
    expect(report?.funnel).toMatchObject({ accepted: 1, sent: 1, delivered: 1, read: 0 });
    expect(report?.billable).toBe(1);
  });

  it('never counts a late or duplicate status twice, and failed is final', async () => {
    const tracker = new CampaignTracker({ retryableFailureCodes: ['131026'] });
    await tracker.record('c', [accepted(0, 'wamid.a'), accepted(1, 'wamid.b')]);
    const billable = { billable: true, pricing_model: 'PMP', category: 'marketing' };
    for (const s of ['read', 'delivered', 'delivered', 'sent'] as const)
      await tracker.apply(statusObject(s, { id: 'wamid.a', pricing: billable }));
    const failed = {
      id: 'wamid.b',
      errors: [{ code: 131026, title: 'Undeliverable', message: 'x', error_data: { details: 'x' } }],
    };
    await tracker.apply(statusObject('failed', failed));
    await tracker.apply(statusObject('read', { id: 'wamid.b' }));
    await tracker.apply(statusObject('failed', failed));
    const report = await tracker.report('c');
    expect(report?.latest).toEqual({ accepted: 0, sent: 0, delivered: 0, read: 1, failed: 1 });
    expect(report?.billable).toBe(1);
    expect(report?.failures).toEqual([{ code: '131026', count: 1, exampleWamid: 'wamid.b' }]);
    const retries = [];
    for await (const r of report!.retries()) retries.push(r);
    expect(retries).toEqual([{ to: '998900000001', reason: 'failed', code: '131026', wamid: 'wamid.b' }]);
  });

  it('ignores other events and statuses of no campaign; an unknown campaign has no report', async () => {
    const store = new MemoryCampaignStore();
    const tracker = new CampaignTracker({ store });
    await tracker.apply(statusObject('sent', { id: 'wamid.unknown' }));
    await tracker.apply({ kind: 'message' } as never);
    expect(await tracker.report('nope')).toBeUndefined();
    expect(await tracker.campaigns()).toEqual([]);
  });

  it('keeps refusals apart: not sent (retried) and may have been sent (listed, not retried)', async () => {
    const tracker = new CampaignTracker();
    const bill = new PaymentRequiredError({
      status: 402,
      code: 'BILL_001',
      group: 'PAYMENT_REQUIRED',
      description: 'Insufficient balance.',
      body: {},
    });
    await tracker.record('c', [
      { result: { index: 0, ok: false, error: bill, notSent: true }, to: '998900000000' },
      { result: { index: 1, ok: false, error: bill, notSent: false }, to: '998900000001' },
    ]);
    const report = await tracker.report('c');
    expect(report?.funnel).toMatchObject({ accepted: 0, notSent: 1, maybeSent: 1 });
    expect(report?.refusals).toEqual([{ code: 'BILL_001', count: 2, notSent: 1, exampleTo: '998900000000' }]);
    const retries = [];
    for await (const r of report!.retries()) retries.push(r.to);
    expect(retries).toEqual(['998900000000']);
    const refused = [];
    for await (const r of report!.refused()) refused.push(r.notSent);
    expect(refused).toEqual([true, false]);
  });

  it('a store that fails: sendMany results come back in CampaignRecordError, to be recorded later', async () => {
    const store = new MemoryCampaignStore();
    const failing = Object.assign(Object.create(store) as MemoryCampaignStore, {
      record: () => Promise.reject(new Error('down')),
    });
    const tracker = new CampaignTracker({ store: failing, batchSize: 1 });
    const recorder = tracker.recorder('c');
    await recorder.add(accepted(0, 'wamid.x').result, { to: '998900000000' });
    const error = await recorder.close().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CampaignRecordError);
    expect((error as CampaignRecordError).unrecorded).toHaveLength(1);
    const healthy = new CampaignTracker({ store });
    await healthy.record('c', (error as CampaignRecordError).unrecorded);
    expect((await healthy.report('c'))?.funnel.accepted).toBe(1);
  });

  it('message: one message by its wamid with its latest status, in a MemoryCampaignStore; a store without get is refused', async () => {
    const store = new MemoryCampaignStore();
    const tracker = new CampaignTracker({ store });
    await tracker.record('c', [accepted(0, 'wamid.1'), accepted(1, 'wamid.2')]);
    await tracker.apply(statusObject('delivered', { id: 'wamid.1' }));
    expect(await tracker.message('c', 'wamid.1')).toEqual({
      campaign: 'c',
      wamid: 'wamid.1',
      to: '998900000000',
      status: 'delivered',
      // The fixture's delivery is billable.
      billable: true,
    });
    expect(await tracker.message('c', 'wamid.2')).toMatchObject({ status: 'accepted' });
    expect(await tracker.message('other', 'wamid.1')).toBeUndefined();
    expect(await tracker.message('c', 'x'.repeat(300))).toBeUndefined();
    // Reading a wamid it does not know parks nothing, even while a send is under way.
    await store.sending('c');
    expect(await tracker.message('c', 'wamid.3')).toBeUndefined();
    await tracker.record('c', [accepted(2, 'wamid.3')]);
    expect(await tracker.message('c', 'wamid.3')).toMatchObject({ status: 'accepted' });
    await expect(tracker.message('c', '')).rejects.toBeInstanceOf(ConfigurationError);
    await expect(tracker.message('', 'wamid.1')).rejects.toBeInstanceOf(ConfigurationError);
    const { get: _get, ...withoutGet } = Object.fromEntries(
      ['sending', 'record', 'lookup', 'commit', 'totals', 'refusals', 'failedRetries', 'campaigns'].map(
        (k) => [k, (store as unknown as Record<string, (...a: unknown[]) => unknown>)[k]!.bind(store)],
      ),
    ) as Record<string, unknown>;
    const own = new CampaignTracker({ store: withoutGet as never });
    await expect(own.message('c', 'wamid.1')).rejects.toThrow(/get\(wamid\)/);
  });

  it('refuses bad options with ConfigurationError', () => {
    expect(() => new CampaignTracker({ batchSize: 0 })).toThrow(ConfigurationError);
    expect(() => new CampaignTracker({ store: {} as never })).toThrow(ConfigurationError);
    expect(() => new CampaignTracker({ clock: { now: Date.now } as never })).toThrow(ConfigurationError);
    expect(() => new MemoryCampaignStore({ now: 5 as never })).toThrow(ConfigurationError);
    // A string where the codes go threw a TypeError (`.map is not a function`).
    expect(() => new CampaignTracker({ retryableFailureCodes: 'abc' as never })).toThrow(
      /new CampaignTracker: `retryableFailureCodes` must be an array of upstream codes/,
    );
    expect(() => new CampaignTracker({ retryableFailureCodes: [{}] as never })).toThrow(ConfigurationError);
  });
});

describe('CampaignRecorder', () => {
  it('a result added after close is written on its own', async () => {
    const tracker = new CampaignTracker();
    const recorder = tracker.recorder('c');
    await recorder.close();
    await recorder.add(accepted(0, 'wamid.late').result, { to: '998900000000' });
    expect((await tracker.report('c'))?.funnel.accepted).toBe(1);
  });

  it('flush writes what is buffered and throws CampaignRecordError once with what the store refused', async () => {
    const memory = new MemoryCampaignStore();
    let down = true;
    const store = Object.assign(Object.create(memory) as MemoryCampaignStore, {
      sending: (c: string) => memory.sending(c),
      record: (c: string, batch: Parameters<MemoryCampaignStore['record']>[1]) =>
        down ? Promise.reject(new Error('down')) : memory.record(c, batch),
    });
    const recorder = new CampaignTracker({ store }).recorder('c');
    await recorder.ready;
    recorder.add(accepted(0, 'wamid.a').result, { to: '998900000000' });
    recorder.add(accepted(1, 'wamid.b').result, { to: '998900000001' });
    const error = await recorder.flush().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CampaignRecordError);
    expect((error as CampaignRecordError).unrecorded.map((u) => u.to)).toEqual([
      '998900000000',
      '998900000001',
    ]);
    await recorder.flush();
    down = false;
    recorder.add(accepted(2, 'wamid.c').result, { to: '998900000002' });
    await recorder.close();
    expect((await memory.totals('c'))?.counts['accepted']).toBe(1);
  });
});
