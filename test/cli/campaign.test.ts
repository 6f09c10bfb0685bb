import { type AddressInfo, createServer } from 'node:net';
import type { Redis } from 'ioredis';
import { expect, it, vi } from 'vitest';
import { unanswered } from '../../src/cli/campaign-store.js';
import { runCli } from '../../src/cli/main.js';
import { CampaignTracker, GatewayClient, UpstreamError } from '../../src/index.js';
import { CampaignQueue, RedisCampaignStore, RedisStoreError } from '../../src/redis/index.js';
import { statusObject } from '../../src/testing/webhook-fixtures.js';
import { cliIo } from '../helpers/cli-io.js';
import { startServer } from '../helpers/http-server.js';
import { waitFor } from '../helpers/manual-clock.js';
import { sendOk } from '../helpers/msw.js';
import { queueCoreOf } from '../helpers/queue-core.js';
import { describeRedis, type RedisServer, useRedis } from '../helpers/redis-server.js';

const io = cliIo;

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

it.each([
  ['report', 'c1'],
  ['status', 'c1'],
])(
  "campaign %s with nothing on the port: one message, the command's, saying why (no store line on the console)",
  async (action, id) => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const error = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      const t = io({ REDIS_URL: `redis://:SECRET-PW@127.0.0.1:${port}` });
      expect(await runCli(['campaign', action, id], t.io)).toBe(1);
      expect(t.out.stderr).toBe(
        `wa-gateway campaign: cannot reach the Redis at redis://127.0.0.1:${port}: connection refused: nothing ` +
          'listens on that port (is redis-server running? is the port right?).\n',
      );
      expect([...warn.mock.calls, ...error.mock.calls]).toEqual([]);
    } finally {
      warn.mockRestore();
      error.mockRestore();
    }
  },
);

it('the "did not answer" message names the Redis without a password in its query (ioredis reads it there)', () => {
  const error = new RedisStoreError('RedisCampaignStore.campaigns: Command timed out.', {
    failure: 'unavailable',
    operation: 'campaigns',
  });
  const source = {
    flag: '--redis-url',
    clusterFlag: '--cluster',
    command: 'wa-gateway campaign',
    once: true,
  };
  const url = 'redis://127.0.0.1:7401/0?password=QUERYSECRET';
  const message = unanswered(error, { ...source, url, timeoutMs: 200 })?.message;
  expect(message).toContain(
    'the Redis at redis://127.0.0.1:7401/0 (query hidden) did not answer within 0.2 s',
  );
  expect(message).not.toContain('QUERYSECRET');
});

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
      'index,to,code,not_sent,description,key\n2,998900000002,GW_001,true,Upstream rejected the message: recipient is not registered,\n',
    );
    const retries = io();
    expect(await runCli([...args, '--csv', 'retries'], retries.io)).toBe(0);
    // A sendMany campaign's messages have no key: its column is empty.
    expect(retries.out.stdout).toBe('to,reason,code,index,wamid,key\n');
    expect(await runCli([...args, '--csv', 'retries', '--retryable-codes', '131026'], retries.io)).toBe(0);
    expect(retries.out.stdout).toContain('\n998900000001,failed,131026,,wamid.b,\n');

    const list = io({ REDIS_URL: server.url });
    expect(await runCli(['campaign', 'list', '--prefix', 'cli:'], list.io)).toBe(0);
    expect(list.out.stdout).toBe('spring, sale\n');
  });

  it('report prints the accepted with no status yet; campaign message finds a sendMany message by its wamid', async () => {
    await seed('msg:');
    // A third accepted message whose statuses never arrive: the lost receipt.
    await new CampaignTracker({ store: new RedisCampaignStore({ redis, prefix: 'msg:' }) }).record(
      'spring, sale',
      [{ result: { index: 3, ok: true, messageId: 'wamid.c', contacts: [] }, to: '998900000003' }],
    );
    const env = { REDIS_URL: server.url };
    const table = io(env);
    expect(await runCli(['campaign', 'report', 'spring, sale', '--prefix', 'msg:'], table.io)).toBe(0);
    expect(table.out.stdout).toMatch(/\n {2}accepted\s+3\n {2}no status\s+1\s+33\.3%\n/);
    const json = io(env);
    expect(await runCli(['campaign', 'report', 'spring, sale', '--prefix', 'msg:', '--json'], json.io)).toBe(
      0,
    );
    expect(JSON.parse(json.out.stdout).latest).toEqual({
      accepted: 1,
      sent: 0,
      delivered: 0,
      read: 1,
      failed: 1,
    });

    const silent = io(env);
    expect(
      await runCli(['campaign', 'message', 'spring, sale', 'wamid.c', '--prefix', 'msg:'], silent.io),
    ).toBe(0);
    expect(silent.out.stdout).toBe(
      'campaign spring, sale, message wamid.c\n' +
        '  to          998900000003\n' +
        '  state       accepted\n' +
        '  status      none yet (accepted, no status event since)\n' +
        '  billable    no\n',
    );
    const read = io(env);
    const args = ['campaign', 'message', 'spring, sale', 'wamid.a', '--prefix', 'msg:', '--json'];
    expect(await runCli(args, read.io)).toBe(0);
    expect(JSON.parse(read.out.stdout)).toEqual({
      campaign: 'spring, sale',
      wamid: 'wamid.a',
      to: '998900000000',
      status: 'read',
      billable: true,
    });
    const unknown = io(env);
    expect(
      await runCli(['campaign', 'message', 'spring, sale', 'wamid.z', '--prefix', 'msg:'], unknown.io),
    ).toBe(1);
    expect(unknown.out.stderr).toContain(
      "no message 'wamid.z' in a campaign 'spring, sale' under prefix 'msg:'",
    );
    expect(unknown.out.stdout).toBe('');
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

  // The URL could only be the flag's value: a password in it showed in ps for as long as the sandbox ran.
  it('sandbox --campaigns alone reads $REDIS_URL (before another flag too); a password in the flag is warned of', async () => {
    await seed('env:');
    for (const args of [
      ['sandbox', '--campaigns', '--port', '0', '--campaigns-prefix', 'env:'],
      ['sandbox', '--port', '0', '--campaigns-prefix', 'env:', '--campaigns'],
    ]) {
      const t = io({ REDIS_URL: server.url });
      const run = runCli(args, t.io);
      await expect.poll(() => t.out.stdout + t.out.stderr, { timeout: 10_000 }).toContain('campaign funnels');
      t.stop();
      expect(await run).toBe(0);
      expect(t.out.stdout).toContain(`campaign funnels from ${server.url}`);
      expect(t.out.stderr).not.toContain('warning');
    }
    const unset = io();
    expect(await runCli(['sandbox', '--port', '0', '--campaigns'], unset.io)).toBe(2);
    expect(unset.out.stderr).toContain('--campaigns without a URL reads $REDIS_URL, which is not set.');
    // Given in the flag all the same: taken, with the warning (and the password never printed).
    const flagged = io();
    expect(
      await runCli(['sandbox', '--port', '0', '--campaigns', 'redis://:s3cret-pass@127.0.0.1:1'], flagged.io),
    ).toBe(1);
    expect(flagged.out.stderr).toContain(
      'warning: the password in --campaigns shows in ps and shell history',
    );
    expect(flagged.out.stderr).not.toContain('s3cret-pass');
  });

  it("sandbox --campaigns: a password in the URL's query (ioredis reads it) is used, and not printed", async () => {
    await redis.config('SET', 'requirepass', 'QUERYSECRET');
    const t = io();
    try {
      const run = runCli(
        ['sandbox', '--port', '0', '--campaigns', `${server.url}/0?password=QUERYSECRET`],
        t.io,
      );
      await expect.poll(() => t.out.stdout + t.out.stderr, { timeout: 10_000 }).toContain('campaign funnels');
      t.stop();
      expect(await run).toBe(0);
    } finally {
      // The fixture's client authenticated before the password was set: its connection stays usable.
      await redis.config('SET', 'requirepass', '');
    }
    expect(t.out.stdout).toContain(`campaign funnels from ${server.url}/0 (query hidden)\n`);
    expect(t.out.stdout + t.out.stderr).not.toContain('QUERYSECRET');
  });

  // ioredis goes on in database 0 when SELECT fails: the command read (and a pause wrote) another database's
  // campaigns, with exit 0 (the CLI audit).
  it('a REDIS_URL naming a database the server lacks fails the command, saying so, and reads no other', async () => {
    await seed('cli:');
    const t = io({ REDIS_URL: `${server.url}/99` });
    expect(await runCli(['campaign', 'report', 'spring, sale', '--prefix', 'cli:'], t.io)).toBe(1);
    expect(t.out.stdout).toBe('');
    expect(t.out.stderr).toContain("the Redis has no database of the URL's number");
    const db0 = io({ REDIS_URL: server.url });
    expect(await runCli(['campaign', 'report', 'spring, sale', '--prefix', 'cli:'], db0.io)).toBe(0);
  });

  it('--cluster against one Redis says to drop it (it read as an outage: ClusterAllFailedError)', async () => {
    const t = io({ REDIS_URL: server.url });
    expect(await runCli(['campaign', 'list', '--cluster'], t.io)).toBe(2);
    expect(t.out.stderr).toContain(
      `the Redis at ${server.url} is not a node of a Redis Cluster (cluster support disabled): drop --cluster.`,
    );
    expect(t.out.stderr).not.toContain('ClusterAllFailedError');
  });

  // It waited for good: a cluster client's reads queue until it reaches a node, with no time limit. The check at
  // start now ends at the client's first error that says it never will (its first slots refresh), no timer.
  it('sandbox --campaigns-cluster against one Redis ends at start, saying to drop the flag (it hung)', async () => {
    const t = io();
    const args = ['sandbox', '--port', '0', '--campaigns', server.url, '--campaigns-cluster'];
    expect(await runCli(args, t.io)).toBe(2);
    expect(t.out.stderr).toContain(
      `the Redis at ${server.url} is not a node of a Redis Cluster (cluster support disabled): drop ` +
        '--campaigns-cluster.',
    );
    expect(t.out.stdout).toBe('');
  }, 30_000);

  it('a bad $REDIS_URL is named as the variable, not as a flag never passed', async () => {
    const t = io({ REDIS_URL: '127.0.0.1:6379' });
    expect(await runCli(['campaign', 'list'], t.io)).toBe(2);
    expect(t.out.stderr).toContain('$REDIS_URL must start with redis:// or rediss://');
    expect(t.out.stderr).not.toContain('--redis-url must');
  });

  it('sandbox --campaigns: a Redis out of reach is said at start (exit 1, no password printed); a bad URL is a usage error', async () => {
    // A password in the user info or in the query (ioredis reads it there too) is never printed.
    for (const [url, secret, shown] of [
      ['redis://:s3cret-pass@127.0.0.1:1', 's3cret-pass', 'redis://127.0.0.1:1 ('],
      [
        'redis://127.0.0.1:1/2?password=QUERYSECRET#x',
        'QUERYSECRET',
        'redis://127.0.0.1:1/2 (query hidden) (',
      ],
    ]) {
      const down = io();
      expect(await runCli(['sandbox', '--port', '0', '--campaigns', url!], down.io)).toBe(1);
      expect(down.out.stderr).toContain(`cannot read campaigns from the Redis at --campaigns ${shown}`);
      expect(down.out.stderr).not.toContain(secret);
    }
    const bad = io();
    expect(await runCli(['sandbox', '--campaigns', 'http://127.0.0.1:6379'], bad.io)).toBe(2);
    expect(bad.out.stderr).toContain('--campaigns must start with redis:// or rediss://');
    const prefixOnly = io();
    expect(await runCli(['sandbox', '--campaigns-prefix', 'x:'], prefixOnly.io)).toBe(2);
    expect(prefixOnly.out.stderr).toContain('--campaigns-prefix goes with --campaigns [<redis url>]');
    const clusterOnly = io();
    expect(await runCli(['sandbox', '--campaigns-cluster'], clusterOnly.io)).toBe(2);
    expect(clusterOnly.out.stderr).toContain('--campaigns-cluster goes with --campaigns [<redis url>]');
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

describeRedis('wa-gateway campaign status|pause|resume|cancel|resend|drop (a CampaignQueue)', () => {
  let server: RedisServer;
  let redis: Redis;
  useRedis((s, client) => {
    server = s;
    redis = client;
  });
  const text = (to: string) => ({ to, type: 'text' as const, text: { body: 'hi' } });

  it('shows the queue, pauses with a reason, resumes and cancels, from REDIS_URL', async () => {
    const queue = new CampaignQueue({ redis, prefix: 'q1:' });
    try {
      // Scheduled an hour ahead, and no worker: the campaign stands still while the CLI acts on it.
      const startAt = new Date(Date.now() + 3_600_000);
      await queue.enqueue('spring', ['998900000001', '998900000002'].map(text), { startAt });
      const env = { REDIS_URL: server.url };
      const status = io(env);
      expect(await runCli(['campaign', 'status', 'spring', '--prefix', 'q1:'], status.io)).toBe(0);
      // When it starts, as --json has it.
      expect(status.out.stdout).toContain(
        `campaign spring: scheduled\n  starts at ${startAt.toISOString()}\n`,
      );
      expect(status.out.stdout).toMatch(/queued\s+2\n/);
      expect(status.out.stdout).toMatch(/resolved\s+0\n/);
      const pause = io(env);
      const why = ['--reason', 'wrong price'];
      expect(await runCli(['campaign', 'pause', 'spring', '--prefix', 'q1:', ...why], pause.io)).toBe(0);
      expect(pause.out.stdout).toBe('paused spring\n');
      expect(await queue.status('spring')).toMatchObject({
        state: 'paused',
        hold: { code: 'PAUSED', description: 'wrong price', by: 'person' },
      });
      const json = io(env);
      expect(await runCli(['campaign', 'status', 'spring', '--prefix', 'q1:', '--json'], json.io)).toBe(0);
      expect(JSON.parse(json.out.stdout)).toMatchObject({ state: 'paused', queued: 2, inDoubtMessages: [] });
      expect(await runCli(['campaign', 'resume', 'spring', '--prefix', 'q1:'], io(env).io)).toBe(0);
      expect((await queue.status('spring'))?.state).toBe('scheduled');
      const cancel = io(env);
      expect(await runCli(['campaign', 'cancel', 'spring', '--prefix', 'q1:'], cancel.io)).toBe(0);
      expect(cancel.out.stdout).toContain('2 messages that never started recorded not sent');
      expect(await queue.status('spring')).toMatchObject({ state: 'cancelled', cancelled: 2 });
      // Final: resume is refused with the reason, exit 1.
      const again = io(env);
      expect(await runCli(['campaign', 'resume', 'spring', '--prefix', 'q1:'], again.io)).toBe(1);
      expect(again.out.stderr).toContain('was cancelled');
    } finally {
      await queue.close();
    }
  });

  it('a campaign enqueued with no messages: status says finished with 0, report prints its zeros', async () => {
    const queue = new CampaignQueue({ redis, prefix: 'q7:' });
    try {
      await queue.enqueue('empty', []);
      // Scheduled, nothing recorded yet: its report is zeros too, not "no campaign".
      await queue.enqueue('soon', [text('998900000001')], { startAt: Date.now() + 3_600_000 });
      const env = { REDIS_URL: server.url };
      const status = io(env);
      expect(await runCli(['campaign', 'status', 'empty', '--prefix', 'q7:'], status.io)).toBe(0);
      expect(status.out.stdout).toMatch(/^campaign empty: finished\n/);
      expect(status.out.stdout).toMatch(/total\s+0\n/);
      expect(status.out.stdout).toMatch(/queued\s+0\n/);
      const json = io(env);
      expect(await runCli(['campaign', 'status', 'empty', '--prefix', 'q7:', '--json'], json.io)).toBe(0);
      expect(JSON.parse(json.out.stdout)).toMatchObject({ state: 'finished', total: 0, inDoubtMessages: [] });
      for (const id of ['empty', 'soon']) {
        const report = io(env);
        expect(await runCli(['campaign', 'report', id, '--prefix', 'q7:'], report.io), id).toBe(0);
        expect(report.out.stdout).toMatch(new RegExp(`^campaign ${id}\n\\s+accepted\\s+0\n`));
        expect(report.out.stdout).toMatch(/to retry\s+0\n/);
        const reportJson = io(env);
        expect(await runCli(['campaign', 'report', id, '--prefix', 'q7:', '--json'], reportJson.io)).toBe(0);
        expect(JSON.parse(reportJson.out.stdout)).toMatchObject({
          campaign: id,
          funnel: { accepted: 0 },
          retries: [],
        });
      }
      const list = io(env);
      expect(await runCli(['campaign', 'list', '--prefix', 'q7:'], list.io)).toBe(0);
      expect(list.out.stdout.split('\n').sort()).toEqual(['', 'empty', 'soon']);
    } finally {
      await queue.close();
    }
  });

  it("report --csv retries and refused: a queue campaign's messages with their keys and positions", async () => {
    const queue = new CampaignQueue({ redis, prefix: 'q8:' });
    // The gateway accepts every message, each with a wamid of its own.
    const accepting = await startServer((_req, res, body) => {
      const to = String((JSON.parse(body) as { to?: unknown }).to);
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify(sendOk(`wamid.Q8-${to}`, to)));
    });
    const gateway = new GatewayClient({ apiKey: 'sk_test_x', baseUrl: accepting.url, rateLimit: false });
    const worker = queue.work({ gateway, pollMs: 50 });
    try {
      await queue.enqueue('keyed', ['998900000001', '998900000002'].map(text), {
        key: (_m, i) => `order-${i + 1}`,
      });
      await waitFor(async () => (await queue.status('keyed'))?.accepted === 2, 'two accepted');
      await worker.close();
      // The second one fails upstream (a status names only its wamid)...
      await queue.apply(
        statusObject('failed', { id: 'wamid.Q8-998900000002', recipient_id: '998900000002' }),
      );
      // ...and two more, never sent, are recorded not sent by a cancel: worth a retry.
      await queue.enqueue('keyed', ['998900000003', '998900000004'].map(text), {
        key: (_m, i) => `order-${i + 3}`,
      });
      expect(await queue.cancel('keyed')).toBe(2);
      const env = { REDIS_URL: server.url };
      const args = ['campaign', 'report', 'keyed', '--prefix', 'q8:'];
      const retries = io(env);
      expect(await runCli([...args, '--csv', 'retries', '--retryable-codes', '131026'], retries.io)).toBe(0);
      const [header, ...rows] = retries.out.stdout.trimEnd().split('\n');
      expect(header).toBe('to,reason,code,index,wamid,key');
      expect(rows.sort()).toEqual([
        '998900000002,failed,131026,1,wamid.Q8-998900000002,order-2',
        '998900000003,not_sent,CANCELLED,2,,order-3',
        '998900000004,not_sent,CANCELLED,3,,order-4',
      ]);
      const refused = io(env);
      expect(await runCli([...args, '--csv', 'refused'], refused.io)).toBe(0);
      const [refusedHeader, ...refusedRows] = refused.out.stdout.trimEnd().split('\n');
      expect(refusedHeader).toBe('index,to,code,not_sent,description,key');
      const why = 'the campaign was cancelled before this message was sent';
      expect(refusedRows.sort()).toEqual([
        `2,998900000003,CANCELLED,true,${why},order-3`,
        `3,998900000004,CANCELLED,true,${why},order-4`,
      ]);
      // One message, by its key: accepted with no status yet, failed, or cancelled.
      const one = (key: string, ...more: string[]) => {
        const t = io(env);
        return runCli(['campaign', 'message', 'keyed', key, '--prefix', 'q8:', ...more], t.io).then(
          (code) => ({
            code,
            ...t.out,
          }),
        );
      };
      const silent = await one('order-1');
      expect(silent.code).toBe(0);
      expect(silent.stdout).toMatch(
        new RegExp(
          '^campaign keyed, message order-1\n {2}to {10}998900000001\n {2}position {4}1\n {2}state {7}accepted\n' +
            ' {2}wamid {7}wamid\\.Q8-998900000001\n {2}status {6}none yet \\(accepted, no status event since\\)\n' +
            ' {2}started {5}\\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z\n$',
        ),
      );
      expect((await one('order-2')).stdout).toMatch(/status {6}failed\n/);
      expect((await one('order-3')).stdout).toMatch(
        /state {7}not sent\n {2}code {8}CANCELLED\n {2}started {5}-\n$/,
      );
      const asJson = await one('order-3', '--json');
      expect(JSON.parse(asJson.stdout)).toEqual({
        campaign: 'keyed',
        key: 'order-3',
        to: '998900000003',
        position: 3,
        startedAt: null,
        state: 'not_sent',
        code: 'CANCELLED',
      });
      // A key is the key: the recipient of a keyed message finds nothing.
      const byRecipient = await one('998900000001');
      expect(byRecipient.code).toBe(1);
      expect(byRecipient.stderr).toContain("no message with key '998900000001' in campaign 'keyed'");
      const json = io(env);
      expect(await runCli([...args, '--json', '--retryable-codes', '131026'], json.io)).toBe(0);
      expect((JSON.parse(json.out.stdout) as { retries: unknown[] }).retries).toContainEqual({
        to: '998900000002',
        reason: 'failed',
        code: '131026',
        wamid: 'wamid.Q8-998900000002',
        index: 1,
        key: 'order-2',
      });
    } finally {
      await worker.close();
      await queue.close();
      await accepting.close();
    }
  });

  it("says why a running campaign waits: the gateway's RATE_001 hold, until when", async () => {
    const queue = new CampaignQueue({ redis, prefix: 'q5:' });
    try {
      // No worker: the campaign runs and stands still while a RATE_001's hold is written as a worker writes it.
      await queue.enqueue('held', ['998900000001'].map(text));
      expect((await queue.status('held'))?.waiting).toBeUndefined();
      const before = Date.now();
      await queueCoreOf(redis, 'q5:').ledger.hold('held', 60_000);
      const status = await queue.status('held');
      expect(status).toMatchObject({ state: 'running', waiting: { reason: 'rate_limit' } });
      // Redis's clock and this one are the same machine's: the hold ends a minute from now.
      const until = Date.parse(status?.waiting?.until ?? '');
      expect(until).toBeGreaterThanOrEqual(before + 59_000);
      expect(until).toBeLessThanOrEqual(Date.now() + 61_000);
      const env = { REDIS_URL: server.url };
      const shown = io(env);
      expect(await runCli(['campaign', 'status', 'held', '--prefix', 'q5:'], shown.io)).toBe(0);
      expect(shown.out.stdout).toContain(
        `campaign held: running\n  waiting until ${status?.waiting?.until}: the gateway's rate limit (RATE_001)`,
      );
      const json = io(env);
      expect(await runCli(['campaign', 'status', 'held', '--prefix', 'q5:', '--json'], json.io)).toBe(0);
      expect(JSON.parse(json.out.stdout)).toMatchObject({ waiting: { reason: 'rate_limit' } });
      // A paused campaign waits for a person, not for the gateway: its hold says why, `waiting` is empty.
      await queue.pause('held', 'checking the price');
      expect(await queue.status('held')).toMatchObject({ state: 'paused', waiting: undefined });
    } finally {
      await queue.close();
    }
  });

  it('lists the messages in doubt, and resend and drop decide them', async () => {
    const queue = new CampaignQueue({ redis, prefix: 'q2:' });
    // A gateway that reads each request and cuts the connection: every message may have been sent.
    const cutter = await startServer((req) => void req.socket.destroy());
    const gateway = new GatewayClient({
      apiKey: 'sk_test_x',
      baseUrl: cutter.url,
      rateLimit: false,
      maxRetries: 0,
    });
    const worker = queue.work({ gateway, pollMs: 50 });
    try {
      await queue.enqueue('doubt', ['998900000001', '998900000002'].map(text));
      await waitFor(async () => (await queue.status('doubt'))?.inDoubt === 2, 'two in doubt');
      const env = { REDIS_URL: server.url };
      const status = io(env);
      expect(await runCli(['campaign', 'status', 'doubt', '--prefix', 'q2:'], status.io)).toBe(0);
      expect(status.out.stdout).toMatch(/in doubt\s+2\n/);
      expect(status.out.stdout).toMatch(/998900000001 {2}to 998900000001 {2}cut in flight at /);
      expect(status.out.stdout).toContain('campaign resend|drop <id> <key>');
      const doubtful = io(env);
      expect(
        await runCli(['campaign', 'message', 'doubt', '998900000001', '--prefix', 'q2:'], doubtful.io),
      ).toBe(0);
      expect(doubtful.out.stdout).toMatch(/state {7}in doubt: cut in flight\n/);
      expect(doubtful.out.stdout).toContain('then: campaign resend|drop doubt 998900000001\n');
      await worker.close();
      // Another campaign's message to the same recipient waits behind the one in doubt, and says so.
      await queue.enqueue('april', ['998900000001'].map(text));
      const held = io(env);
      expect(await runCli(['campaign', 'message', 'april', '998900000001', '--prefix', 'q2:'], held.io)).toBe(
        0,
      );
      expect(held.out.stdout).toMatch(
        /state {7}queued, behind a message in doubt to the same recipient \(campaign doubt, key 998900000001\)\n/,
      );
      expect(held.out.stdout).toContain(
        'check whether that message reached the customer, then: campaign resend|drop doubt 998900000001\n',
      );
      const drop = io(env);
      expect(await runCli(['campaign', 'drop', 'doubt', '998900000001', '--prefix', 'q2:'], drop.io)).toBe(0);
      expect(drop.out.stdout).toBe('dropped doubt 998900000001\n');
      const dropped = io(env);
      expect(
        await runCli(['campaign', 'message', 'doubt', '998900000001', '--prefix', 'q2:'], dropped.io),
      ).toBe(0);
      expect(dropped.out.stdout).toMatch(/state {7}dropped \(it was in doubt: it may have been sent\)\n/);
      const resend = io(env);
      expect(
        await runCli(['campaign', 'resend', 'doubt', '998900000002', '--prefix', 'q2:'], resend.io),
      ).toBe(0);
      expect(await queue.status('doubt')).toMatchObject({ inDoubt: 0, dropped: 1, queued: 1 });
      const twice = io(env);
      expect(await runCli(['campaign', 'drop', 'doubt', '998900000001', '--prefix', 'q2:'], twice.io)).toBe(
        1,
      );
      expect(twice.out.stderr).toContain('no message of this campaign is in doubt under that key');
    } finally {
      await worker.close();
      await queue.close();
      await cutter.close();
    }
  });

  it('says when there is nothing to resume, and prints a gateway hold with its control characters escaped', async () => {
    const warnings: string[] = [];
    const queue = new CampaignQueue({
      redis,
      prefix: 'q6:',
      logger: { warn: (m) => warnings.push(m), error: (m) => warnings.push(m) },
    });
    // A gateway refusing every send with BILL_001, its description holding a terminal escape and a carriage return.
    const description = 'Balance \u001b[2J\u001b]0;pwned\u0007 is zero\rOK';
    const billing = await startServer((_req, res) => {
      res.writeHead(402, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          isSuccess: false,
          errors: { code: 'BILL_001', group: 'PAYMENT_REQUIRED', description },
        }),
      );
    });
    const gateway = new GatewayClient({ apiKey: 'sk_test_x', baseUrl: billing.url, rateLimit: false });
    const worker = queue.work({ gateway, pollMs: 50 });
    try {
      await queue.enqueue('bill', ['998900000001'].map(text));
      const env = { REDIS_URL: server.url };
      await waitFor(async () => (await queue.status('bill'))?.state === 'paused', 'the BILL_001 pause');
      await worker.close();
      expect(warnings).toContain('wa-gateway-sdk: CampaignQueue paused a campaign (BILL_001)');
      expect((await queue.status('bill'))?.hold?.description).toBe(description);
      const shown = io(env);
      expect(await runCli(['campaign', 'status', 'bill', '--prefix', 'q6:'], shown.io)).toBe(0);
      expect(shown.out.stdout).not.toMatch(/\p{Cc}(?<!\n)/u);
      expect(shown.out.stdout).toContain(
        'BILL_001 Balance \\u001b[2J\\u001b]0;pwned\\u0007 is zero\\u000dOK\n',
      );
      const running = io(env);
      await queue.enqueue('idle', ['998900000002'].map(text), { startAt: Date.now() + 3_600_000 });
      expect(await runCli(['campaign', 'resume', 'idle', '--prefix', 'q6:'], running.io)).toBe(0);
      expect(running.out.stdout).toBe('idle was not paused (scheduled): nothing to resume\n');
      const paused = io(env);
      expect(await runCli(['campaign', 'pause', 'bill', '--prefix', 'q6:'], paused.io)).toBe(0);
      expect(paused.out.stdout).toBe('bill was paused already: nothing to do (its first reason is kept)\n');
    } finally {
      await worker.close();
      await queue.close();
      await billing.close();
    }
  });

  it('prints recipients, codes and wamids from Redis with their control characters escaped, in the table and CSV', async () => {
    // A recipient from a sign-up form and a gateway code, both carrying a terminal title and clear-screen sequence.
    const esc = '\u001b]0;PWNED\u0007\u001b[2J';
    const tracker = new CampaignTracker({ store: new RedisCampaignStore({ redis, prefix: 'ctl:' }) });
    const refused = new UpstreamError({
      status: 502,
      code: `GW${esc}`,
      group: 'x',
      description: `d${esc}`,
      body: {},
    });
    await tracker.record('ctl', [
      { result: { index: 0, ok: false, error: refused, notSent: true }, to: `9989${esc}` },
      { result: { index: 1, ok: true, messageId: `wamid.${esc}`, contacts: [] }, to: '998911111111' },
    ]);
    await tracker.apply(
      statusObject('failed', {
        id: `wamid.${esc}`,
        timestamp: '1700000000',
        errors: [{ code: 131026, title: 't', message: 'm', error_data: { details: 'x' } }],
      }),
    );
    const outputs: string[] = [];
    for (const args of [
      ['report', 'ctl'],
      ['report', 'ctl', '--csv', 'refused'],
      ['report', 'ctl', '--csv', 'failures'],
    ]) {
      const t = io({ REDIS_URL: server.url });
      expect(await runCli(['campaign', ...args, '--prefix', 'ctl:'], t.io)).toBe(0);
      outputs.push(t.out.stdout);
    }
    for (const out of outputs) {
      expect(out.replaceAll('\n', '')).not.toMatch(/\p{Cc}/u);
      expect(out).toContain('\\u001b]0;PWNED\\u0007\\u001b[2J');
    }
    expect(outputs[0]).toContain('e.g. 9989\\u001b]0;PWNED');
    expect(outputs[0]).toContain('e.g. wamid.\\u001b]0;PWNED');
  });

  it('refuses bad usage (exit 2) and an unknown campaign (exit 1)', async () => {
    const env = { REDIS_URL: server.url };
    const unknown = io(env);
    expect(await runCli(['campaign', 'status', 'nope'], unknown.io)).toBe(1);
    expect(unknown.out.stderr).toContain("no campaign 'nope' in the queue");
    for (const [args, message] of [
      [['campaign', 'resend', 'x'], 'needs <id> <key>'],
      [['campaign', 'pause'], 'needs the campaign <id>'],
      [['campaign', 'resume', 'x', '--reason', 'y'], '--reason goes with campaign pause or cancel'],
      [['campaign', 'pause', 'x', '--json'], '--json goes with campaign status, message or report'],
      [['campaign', 'message', 'x'], 'campaign message needs <id> <key>'],
      [['campaign', 'message', 'x', 'k', 'y'], "unexpected 'y'"],
      [
        ['campaign', 'message', 'x', 'k', '--csv', 'retries'],
        '--csv and --retryable-codes go with campaign report',
      ],
      [['campaign', 'status', 'x', 'y'], "unexpected 'y'"],
      [['campaign', 'report', 'x', '--reason', 'y'], '--reason goes with campaign pause or cancel'],
      [
        ['campaign', 'pause', 'x', '--reason', 'a\u0007b'],
        '--reason: the reason must be 1 to 200 characters',
      ],
      [['campaign', 'cancel', 'x', '--reason', 'y'.repeat(201)], '--reason: the reason must be 1 to 200'],
    ] as const) {
      const bad = io(env);
      expect(await runCli([...args], bad.io), args.join(' ')).toBe(2);
      expect(bad.out.stderr).toContain(message);
    }
    // A bad reason is refused before Redis is opened: a Redis that is not there makes no difference.
    const nowhere = io({ REDIS_URL: 'redis://127.0.0.1:1' });
    expect(await runCli(['campaign', 'pause', 'x', '--reason', ' '], nowhere.io)).toBe(2);
    expect(nowhere.out.stderr.split('\n')[0]).toBe(
      'wa-gateway campaign: --reason: the reason must be 1 to 200 characters without control characters.',
    );
    const none = io();
    expect(await runCli(['campaign', 'status', 'x'], none.io)).toBe(2);
    expect(none.out.stderr).toContain('set REDIS_URL');
  });
});
