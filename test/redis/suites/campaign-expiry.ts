/**
 * RedisCampaignStore's expiry on a real Redis (one node: campaign-store.test.ts; a cluster: cluster.proof.test.ts):
 * every key of a campaign expires with the last write to any of them, so no key is left without an expiry, no
 * counter is recreated after it expired, and no count goes below zero, in any order of send result, statuses and
 * expiry. A campaign's age is simulated by shortening the expiry of its keys (Redis then expires them itself),
 * never by waiting out a retention.
 */
import { beforeEach, expect, it } from 'vitest';
import { CampaignTracker, NotSentError } from '../../../src/index.js';
import { RedisCampaignStore } from '../../../src/redis/index.js';
import { statusObject } from '../../../src/testing/webhook-fixtures.js';
import { waitFor } from '../../helpers/manual-clock.js';
import type { RedisTarget } from '../../helpers/redis-target.js';

const RETENTION = 3_600_000;
const accepted = (index: number, messageId: string) => ({
  result: { index, ok: true as const, messageId, contacts: [] },
  to: `99890000000${index}`,
});
const failed = (id: string) =>
  statusObject('failed', {
    id,
    errors: [{ code: 131026, title: 'Undeliverable', message: 'x', error_data: { details: 'x' } }],
  });

/** The expiry tests of the campaign store, on `target`. */
export function campaignExpirySuite(target: () => RedisTarget): void {
  beforeEach(async () => {
    await target().flush();
  });
  const redis = () => target().redis;

  /**
   * The keys under `prefix`: the messages' (a pointer, and on a cluster a state beside the campaign once a
   * status moved it), and the campaign's (counters, examples, refusals, failures).
   */
  async function keys(prefix: string) {
    const all = await target().keys(`${prefix}*`);
    return {
      all,
      messages: all.filter((k) => /camp:[ms]:/.test(k)),
      campaign: all.filter((k) => /camp:[cxrf]:/.test(k)),
    };
  }

  /** Lets Redis expire `list` now (as the retention running out would), and waits until it has. */
  async function expire(list: string[]) {
    for (const key of list) await redis().pexpire(key, 1);
    const gone = async () => (await Promise.all(list.map((k) => redis().exists(k)))).every((n) => n === 0);
    await waitFor(gone, 'Redis to expire the keys');
  }

  /** No key without an expiry; no counter below zero. */
  async function expectSound(prefix: string, where = '') {
    for (const key of (await keys(prefix)).all)
      expect(await redis().pttl(key), `${where} ${key}`).toBeGreaterThan(0);
    for (const key of (await keys(prefix)).campaign.filter((k) => k.includes('camp:c:'))) {
      const counts = await redis().hgetall(key);
      for (const [field, n] of Object.entries(counts))
        expect(Number(n), `${where} ${key} ${field}`).toBeGreaterThanOrEqual(0);
    }
  }

  it('a status refreshes the expiry of every campaign key (counters, examples, refusals, failures)', async () => {
    const prefix = 'exp1:';
    const store = new RedisCampaignStore({ redis: redis(), prefix, retentionMs: RETENTION });
    const tracker = new CampaignTracker({ store, retryableFailureCodes: [131026] });
    const refused = { index: 2, ok: false as const, error: new NotSentError('stopped'), notSent: true };
    await tracker.record('c', [
      accepted(0, 'wamid.a'),
      accepted(1, 'wamid.b'),
      { result: refused, to: '998900000002' },
    ]);
    await tracker.apply(failed('wamid.b'));
    // Most of the retention has gone by for every key of the campaign.
    const before = await keys(prefix);
    expect(before.campaign.length).toBe(4);
    for (const key of [...before.campaign, ...before.messages]) await redis().pexpire(key, 60_000);
    await tracker.apply(statusObject('sent', { id: 'wamid.a' }));
    for (const key of before.campaign)
      expect(await redis().pttl(key), key).toBeGreaterThan(RETENTION - 60_000);
    // wamid.a's key was written by the status (its pointer; on a cluster its state, new); wamid.b's was not.
    const ttls = await Promise.all((await keys(prefix)).messages.map((k) => redis().pttl(k)));
    expect(ttls.filter((t) => t > RETENTION - 60_000)).toHaveLength(1);
    await expectSound(prefix);
  });

  it('a status for a message that outlived its campaign’s counters does not recreate them (no key without expiry, no sent: -1)', async () => {
    const prefix = 'exp2:';
    const store = new RedisCampaignStore({ redis: redis(), prefix, retentionMs: RETENTION });
    const tracker = new CampaignTracker({ store });
    await tracker.record('c', [accepted(0, 'wamid.a')]);
    await tracker.apply(statusObject('sent', { id: 'wamid.a' }));
    await expire((await keys(prefix)).campaign);
    // The message outlived them (its pointer; on a cluster its state too).
    expect((await keys(prefix)).messages.length).toBeGreaterThan(0);
    await tracker.apply(statusObject('delivered', { id: 'wamid.a' }));
    await expectSound(prefix);
    const report = await tracker.report('c');
    if (report) for (const n of Object.values(report.funnel)) expect(n).toBeGreaterThanOrEqual(0);
  });

  it('no order of send result, statuses and expiries leaves a key without expiry or a counter below zero', async () => {
    const steps = ['record', 'sent', 'delivered', 'expire campaign', 'expire message'] as const;
    const orders: (typeof steps)[number][][] = [];
    const permute = (done: (typeof steps)[number][], left: (typeof steps)[number][]) => {
      if (left.length === 0) orders.push(done);
      for (const s of left)
        permute(
          [...done, s],
          left.filter((x) => x !== s),
        );
    };
    permute([], [...steps]);
    expect(orders).toHaveLength(120);
    for (const [n, order] of orders.entries()) {
      const prefix = `perm${n}:`;
      const store = new RedisCampaignStore({
        redis: redis(),
        prefix,
        retentionMs: RETENTION,
        parkMs: RETENTION,
      });
      const tracker = new CampaignTracker({ store });
      // A campaign send is under way: a status before its result is parked, then applied by the record.
      await store.sending('c');
      for (const step of order) {
        if (step === 'record') await tracker.record('c', [accepted(0, 'wamid.a')]);
        else if (step === 'sent' || step === 'delivered')
          await tracker.apply(statusObject(step, { id: 'wamid.a' }));
        else {
          const k = await keys(prefix);
          const gone = step === 'expire campaign' ? k.campaign : k.messages;
          if (gone.length > 0) await expire(gone);
        }
      }
      await expectSound(prefix, order.join(' → '));
    }
  }, 60_000);
}
