import type { Redis } from 'ioredis';
import { expect, it } from 'vitest';
import { runCli } from '../../src/cli/main.js';
import { CampaignTracker, UpstreamError } from '../../src/index.js';
import { RedisCampaignStore } from '../../src/redis/index.js';
import { statusObject } from '../../src/testing/webhook-fixtures.js';
import { describeRedis, type RedisServer, useRedis } from '../helpers/redis-server.js';

function io(env: Record<string, string> = {}) {
  const out = { stdout: '', stderr: '' };
  return {
    out,
    io: {
      stdout: (t: string) => {
        out.stdout += t;
      },
      stderr: (t: string) => {
        out.stderr += t;
      },
      env,
      interrupted: new Promise<void>(() => {}),
    },
  };
}

/** The campaigns frames of an inbox event stream, one at a time, as they come. */
async function* campaignFrames(url: string, signal: AbortSignal): AsyncGenerator<unknown> {
  const res = await fetch(url, { signal });
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffered = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffered += value;
    // Only whole frames (ended by a blank line) are read; the rest waits for the next chunk.
    const frames = buffered.split('\n\n');
    buffered = frames.pop() ?? '';
    for (const frame of frames) {
      if (!frame.startsWith('data: ')) continue;
      const event = JSON.parse(frame.slice(6)) as { kind: string; campaigns?: unknown };
      if (event.kind === 'campaigns') yield event.campaigns;
    }
  }
}

describeRedis('wa-gateway campaign report', () => {
  let server: RedisServer;
  let redis: Redis;
  useRedis((s, client) => {
    server = s;
    redis = client;
  });

  async function seed(prefix = 'cli:'): Promise<void> {
    // The tracker that applies the statuses names no retryable codes: the CLI's reading decides.
    const tracker = new CampaignTracker({ store: new RedisCampaignStore({ redis, prefix }) });
    const gw001 = new UpstreamError({
      status: 502,
      code: 'GW_001',
      group: 'UPSTREAM_ERROR',
      description: 'Upstream rejected the message: recipient is not registered',
      body: {},
    });
    await tracker.record('spring, sale', [
      { result: { index: 0, ok: true, messageId: 'wamid.a', contacts: [] }, to: '998900000000' },
      { result: { index: 1, ok: true, messageId: 'wamid.b', contacts: [] }, to: '998900000001' },
      { result: { index: 2, ok: false, error: gw001, notSent: true }, to: '998900000002' },
    ]);
    const billable = { billable: true, pricing_model: 'PMP', category: 'marketing' };
    await tracker.apply(statusObject('read', { id: 'wamid.a', timestamp: '1700000000' }));
    await tracker.apply(
      statusObject('delivered', { id: 'wamid.a', timestamp: '1700000000', pricing: billable }),
    );
    await tracker.apply(
      statusObject('failed', {
        id: 'wamid.b',
        timestamp: '1700000005',
        errors: [{ code: 131026, title: 'Undeliverable', message: 'x', error_data: { details: 'x' } }],
      }),
    );
  }

  it('prints the table, --json and --csv from REDIS_URL or --redis-url', async () => {
    await seed();
    const table = io({ REDIS_URL: server.url });
    expect(await runCli(['campaign', 'report', 'spring, sale', '--prefix', 'cli:'], table.io)).toBe(0);
    expect(table.out.stdout).toMatch(/accepted\s+2\n/);
    expect(table.out.stdout).toMatch(/read\s+1\s+50\.0%/);
    expect(table.out.stdout).toMatch(/131026\s+1\s+e\.g\. wamid\.b/);
    expect(table.out.stdout).toMatch(/GW_001\s+1\s+\(1 not sent\)/);
    // Without --retryable-codes no failure is retried (and GW_001 never is): the table says how to list them.
    expect(table.out.stdout).toMatch(/to retry\s+0\n/);
    expect(table.out.stdout).toContain('--retryable-codes <codes>');
    expect(table.out.stdout).toMatch(/first event\s+2023-11-14T22:13:20\.000Z\n/);

    const json = io();
    const args = ['campaign', 'report', 'spring, sale', '--prefix', 'cli:', '--redis-url', server.url];
    expect(await runCli([...args, '--json', '--retryable-codes', '131049, 131026'], json.io)).toBe(0);
    const parsed = JSON.parse(json.out.stdout) as { funnel: unknown; billable: number; retries: unknown[] };
    expect(parsed.funnel).toEqual({
      accepted: 2,
      sent: 1,
      delivered: 1,
      read: 1,
      failed: 1,
      notSent: 1,
      maybeSent: 0,
    });
    expect(parsed.billable).toBe(1);
    expect(parsed.retries).toEqual([
      { to: '998900000001', reason: 'failed', code: '131026', wamid: 'wamid.b' },
    ]);

    const csv = io();
    expect(await runCli([...args, '--csv', 'refused'], csv.io)).toBe(0);
    expect(csv.out.stdout).toBe(
      'index,to,code,not_sent,description\n2,998900000002,GW_001,true,Upstream rejected the message: recipient is not registered\n',
    );
    const retries = io();
    expect(await runCli([...args, '--csv', 'retries'], retries.io)).toBe(0);
    expect(retries.out.stdout).toBe('to,reason,code,index,wamid\n');
    expect(await runCli([...args, '--csv', 'retries', '--retryable-codes', '131026'], retries.io)).toBe(0);
    expect(retries.out.stdout).toContain('\n998900000001,failed,131026,,wamid.b\n');

    const list = io({ REDIS_URL: server.url });
    expect(await runCli(['campaign', 'list', '--prefix', 'cli:'], list.io)).toBe(0);
    expect(list.out.stdout).toBe('spring, sale\n');
  });

  it('sandbox --campaigns: the inbox draws the campaigns recorded in that Redis, and follows them', async () => {
    await seed('inbox:');
    let stop!: () => void;
    const t = io();
    const run = runCli(
      ['sandbox', '--port', '0', '--campaigns', server.url, '--campaigns-prefix', 'inbox:'],
      {
        ...t.io,
        interrupted: new Promise<void>((r) => {
          stop = r;
        }),
      },
    );
    try {
      await expect.poll(() => t.out.stdout, { timeout: 10_000 }).toContain('campaign funnels from redis://');
      const inbox = /web inbox: (\S+)/.exec(t.out.stdout)![1]!;
      const stream = new AbortController();
      const frames = campaignFrames(`${inbox}inbox/events`, stream.signal);
      const funnel = { accepted: 2, sent: 1, delivered: 1, read: 1, failed: 1, notSent: 1, maybeSent: 0 };
      expect((await frames.next()).value).toEqual([
        { id: 'spring, sale', funnel, billable: 1, failures: [{ code: '131026', count: 1 }] },
      ]);
      // Another process (the app) records a send: the page's funnel follows, with no reload.
      const app = new CampaignTracker({ store: new RedisCampaignStore({ redis, prefix: 'inbox:' }) });
      await app.record('spring, sale', [
        { result: { index: 3, ok: true, messageId: 'wamid.c', contacts: [] }, to: '998900000003' },
      ]);
      expect((await frames.next()).value).toMatchObject([{ funnel: { ...funnel, accepted: 3 } }]);
      stream.abort();
    } finally {
      stop();
      expect(await run).toBe(0);
    }
  });

  it('sandbox --campaigns: a Redis out of reach is said at start (exit 1, no password printed); a bad URL is a usage error', async () => {
    const down = io();
    const closed = 'redis://:s3cret-pass@127.0.0.1:1';
    expect(await runCli(['sandbox', '--port', '0', '--campaigns', closed], down.io)).toBe(1);
    expect(down.out.stderr).toContain(
      'cannot read campaigns from the Redis at --campaigns redis://127.0.0.1:1',
    );
    expect(down.out.stderr).not.toContain('s3cret-pass');
    const bad = io();
    expect(await runCli(['sandbox', '--campaigns', 'http://127.0.0.1:6379'], bad.io)).toBe(2);
    expect(bad.out.stderr).toContain('--campaigns must start with redis:// or rediss://');
    const prefixOnly = io();
    expect(await runCli(['sandbox', '--campaigns-prefix', 'x:'], prefixOnly.io)).toBe(2);
    expect(prefixOnly.out.stderr).toContain('--campaigns-prefix goes with --campaigns <redis url>');
    const clusterOnly = io();
    expect(await runCli(['sandbox', '--campaigns-cluster'], clusterOnly.io)).toBe(2);
    expect(clusterOnly.out.stderr).toContain('--campaigns-cluster goes with --campaigns <redis url>');
  });

  it('exits 1 for an unknown campaign and 2 without a Redis, with a bad --csv or bad --retryable-codes', async () => {
    const unknown = io({ REDIS_URL: server.url });
    expect(await runCli(['campaign', 'report', 'nope'], unknown.io)).toBe(1);
    expect(unknown.out.stderr).toContain("no campaign 'nope'");
    const none = io();
    expect(await runCli(['campaign', 'report', 'x'], none.io)).toBe(2);
    expect(none.out.stderr).toContain('REDIS_URL');
    const bad = io({ REDIS_URL: server.url });
    expect(await runCli(['campaign', 'report', 'x', '--csv', 'all'], bad.io)).toBe(2);
    const codes = io({ REDIS_URL: server.url });
    expect(await runCli(['campaign', 'report', 'x', '--retryable-codes', '131026,,1'], codes.io)).toBe(2);
    expect(codes.out.stderr).toContain('--retryable-codes takes upstream error codes');
  });
});
