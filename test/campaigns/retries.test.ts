/**
 * What a campaign report lists to send again: the retry list is decided when the report is read, by the reading
 * tracker's `retryableFailureCodes`; a `GW_001` (the upstream refused the message) certainly did not go out, is
 * listed by `refused()` with its description, and is not in `retries()`; a bare 502 may have been sent.
 */
import { HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { SUPPRESSED_CODE } from '../../src/campaigns/suppressions.js';
import {
  type CampaignRefusal,
  type CampaignRetry,
  CampaignTracker,
  MemoryCampaignStore,
  type SendManyResult,
  UpstreamError,
} from '../../src/index.js';
import { recordedRefusal } from '../../src/redis/campaign-core.js';
import { statusObject } from '../../src/testing/webhook-fixtures.js';
import { envelope, useMswServer } from '../helpers/msw.js';
import { accept, client, collect, gateway, msg } from './msw-sends.js';

const server = useMswServer();

describe('the retry list is decided by the tracker that reads the report', () => {
  const failed = (id: string, code: number) =>
    statusObject('failed', {
      id,
      errors: [{ code, title: 'Undeliverable', message: 'x', error_data: { details: 'x' } }],
    });

  it('failures applied by a tracker without codes are retried by a reader with them, and not the reverse', async () => {
    const store = new MemoryCampaignStore();
    const applier = new CampaignTracker({ store });
    await applier.record('c', [
      { result: { index: 0, ok: true, messageId: 'wamid.a', contacts: [] }, to: '998900000000' },
      { result: { index: 1, ok: true, messageId: 'wamid.b', contacts: [] }, to: '998900000001' },
    ]);
    await applier.apply(failed('wamid.a', 131026));
    await applier.apply(failed('wamid.b', 131051));
    const retries = async (tracker: CampaignTracker) => collect((await tracker.report('c'))!.retries());
    expect(await retries(new CampaignTracker({ store, retryableFailureCodes: [131026] }))).toEqual([
      { to: '998900000000', reason: 'failed', code: '131026', wamid: 'wamid.a' },
    ]);
    expect(
      await retries(new CampaignTracker({ store, retryableFailureCodes: ['131051', 131026] })),
    ).toHaveLength(2);
    const eager = new CampaignTracker({ store, retryableFailureCodes: [131026, 131051] });
    await eager.apply(failed('wamid.a', 131026));
    expect(await retries(new CampaignTracker({ store }))).toEqual([]);
  });
});

describe('GW_001: the upstream refused the message', () => {
  it('is not sent, listed by refused() with its description, and not retried; a bare 502 may have been sent', async () => {
    gateway(server, undefined, (body) => {
      if (body.text.body === 'm1')
        return HttpResponse.json(
          envelope('GW_001', 'UPSTREAM_ERROR', 'Upstream rejected the message: recipient is not registered'),
          { status: 502 },
        );
      if (body.text.body === 'm2')
        return new HttpResponse('<html>502 Bad Gateway</html>', {
          status: 502,
          headers: { 'content-type': 'text/html' },
        });
      return accept(body);
    });
    const tracker = new CampaignTracker();
    const results: SendManyResult[] = await collect(
      client(tracker).messages.sendMany([0, 1, 2].map(msg), { campaign: 'c' }),
    );
    expect(results.map((r) => (r.ok ? 'ok' : r.notSent))).toEqual(['ok', true, false]);
    expect(results[1]?.ok === false && results[1].error).toBeInstanceOf(UpstreamError);
    const report = (await tracker.report('c'))!;
    expect(report.funnel).toMatchObject({ accepted: 1, notSent: 1, maybeSent: 1 });
    expect(report.refusals).toEqual([
      { code: 'GW_001', count: 1, notSent: 1, exampleTo: msg(1).to },
      { code: 'HTTP_502', count: 1, notSent: 0, exampleTo: msg(2).to },
    ]);
    // Listed in the order they were recorded, which is the order the concurrent sends settled in.
    const refused: CampaignRefusal[] = (await collect(report.refused())).sort((a, b) => a.index - b.index);
    expect(refused).toEqual([
      {
        index: 1,
        to: msg(1).to,
        code: 'GW_001',
        notSent: true,
        description: 'Upstream rejected the message: recipient is not registered',
      },
      { index: 2, to: msg(2).to, code: 'HTTP_502', notSent: false, description: expect.any(String) },
    ]);
    // The same message would get the same answer; the one that may be out must be checked first.
    const retries: CampaignRetry[] = await collect(report.retries());
    expect(retries).toEqual([]);
  });
});

describe("the campaign queue's own refusals", () => {
  it('a suppressed recipient (opted out) is never offered for a retry; a cancelled message is', async () => {
    const tracker = new CampaignTracker();
    await tracker.record('c', [
      {
        result: {
          index: 0,
          ok: false,
          notSent: true,
          // The queue's own refusal, with the code the tracker leaves out (typed by recordedRefusal's union).
          error: recordedRefusal(SUPPRESSED_CODE, 'opted out: wrote STOP', false),
        },
        to: '998900000000',
      },
      {
        result: {
          index: 1,
          ok: false,
          notSent: true,
          error: recordedRefusal('CANCELLED', 'cancelled: wrong list', false),
        },
        to: '998900000001',
      },
    ]);
    const report = (await tracker.report('c'))!;
    expect(report.refusals.map((r) => r.code)).toEqual(['CANCELLED', 'SUPPRESSED']);
    expect(await collect(report.retries())).toEqual([
      { to: '998900000001', reason: 'not_sent', code: 'CANCELLED', index: 1 },
    ]);
  });
});
