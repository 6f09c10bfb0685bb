/**
 * The campaign queue with real processes on one real redis-server (append-only, fsync per write), against the
 * sandbox over real sockets, counted at the sandbox:
 *
 * - 20,000 messages, 4 worker processes (one SIGKILLed every few seconds and replaced), 2 receiver processes
 *   applying the statuses (every one twice, each send's in reverse order), Redis SIGKILLed and restarted once:
 *   0 lost, 0 sent twice, every message in doubt that went out resolved from its status, and the report equal to
 *   what the sandbox did. A message in doubt that never reached the sandbox (its worker died between the ledger
 *   write and the request) stays listed: the test plays the person who checks and resends it.
 * - BILL_001 in the middle: no send starts anywhere more than 1 s after the refusal; `resume` finishes the rest,
 *   each message once; a suppressed recipient gets nothing.
 *
 * The sandbox retries a webhook longer than the gateway's three attempts: Redis is down for a moment on purpose,
 * and a status lost then is the inbox's concern (the durable inbox), not this proof's.
 */
import { afterEach, expect, it } from 'vitest';
import { CampaignQueue, type CampaignQueueStatus, RedisSuppressionList } from '../../src/redis/index.js';
import { hashId } from '../../src/redis/keys.js';
import { type Sandbox, startSandbox } from '../../src/testing/index.js';
import { waitFor } from '../helpers/manual-clock.js';
import { describeRedis, type RedisServer, startRedis } from '../helpers/redis-server.js';
import { connect } from '../helpers/redis-target.js';
import { type Child, prng, spawnChild } from './fleet/fleet.js';

const SECRET = 'campaign-fleet-secret-0123456789abcdef';
const PREFIX = 'fleet:';
const MESSAGES = Number(process.env.FLEET_MESSAGES ?? '20000');
const to = (i: number) => `99891${String(i).padStart(7, '0')}`;
const message = (i: number) => ({ to: to(i), type: 'text' as const, text: { body: `offer ${i}` } });

async function* messages(n: number) {
  for (let i = 0; i < n; i++) yield message(i);
}

interface Fleet {
  server: RedisServer;
  sandbox: Sandbox;
  receivers: Child[];
  workers: Child[];
  close(): Promise<void>;
}

/** Redis (AOF), two receivers behind a balancer, the sandbox delivering to it, `workers` worker processes. */
async function startFleet(options: { workers: number; lockMs: number; balance?: number }): Promise<Fleet> {
  const server = await startRedis({ appendOnly: true });
  const env = { REDIS_URL: server.url, PREFIX, WEBHOOK_SECRET: SECRET };
  const receivers = await Promise.all([0, 1].map(() => spawnChild('campaign-receiver.ts', env)));
  const balancer = await spawnChild('campaign-balancer.ts', {
    RECEIVERS: receivers.map((r) => r.port).join(','),
  });
  const sandbox = await startSandbox({
    webhookUrl: `http://127.0.0.1:${balancer.port}/`,
    webhookSecret: SECRET,
    ratePerSecond: 1_000_000,
    statusDelaysMs: [0, 0, 0],
    ackTimeoutMs: 60_000,
    retryDelaysMs: [0, 1000, 2000, 4000, 8000, 16000, 30000],
    ...(options.balance === undefined ? {} : { balance: options.balance }),
  });
  sandbox.faults.duplicateStatuses = true;
  sandbox.faults.statusOrder = 'reversed';
  const workerEnv = {
    ...env,
    SANDBOX_URL: sandbox.url,
    PER_SECOND: process.env.FLEET_PER_SECOND ?? '1000000',
    CONCURRENCY: '16',
    LOCK_MS: String(options.lockMs),
  };
  const fleet: Fleet = {
    server,
    sandbox,
    receivers,
    workers: await Promise.all(
      Array.from({ length: options.workers }, () => spawnChild('campaign-worker.ts', workerEnv)),
    ),
    async close() {
      await Promise.all([...fleet.workers, ...receivers, balancer].map((c) => c.stop()));
      await sandbox.close();
      await server.dispose();
    },
  };
  (fleet as Fleet & { workerEnv: Record<string, string> }).workerEnv = workerEnv;
  return fleet;
}

function spawnWorker(fleet: Fleet): Promise<Child> {
  return spawnChild('campaign-worker.ts', (fleet as Fleet & { workerEnv: Record<string, string> }).workerEnv);
}

/** Sends per recipient at the sandbox (accepted ones). */
function acceptedPerRecipient(sandbox: Sandbox): Map<string, number> {
  const counts = new Map<string, number>();
  for (const s of sandbox.simulator.sent) counts.set(s.to, (counts.get(s.to) ?? 0) + 1);
  return counts;
}

/**
 * Why reads are missing, when they are: each sent message whose report state is not `read` with its ledger entry,
 * the sandbox's delivery outcomes (a 4xx is final: the event is lost), and what the receivers failed at.
 */
async function explainMissingReads(
  fleet: Fleet,
  redis: ReturnType<typeof connect>,
  queue: CampaignQueue,
): Promise<string> {
  const lines = [`report: ${JSON.stringify((await queue.report('fleet'))?.funnel)}`];
  const ledger = Object.values(await redis.hgetall(`${PREFIX}cq:l:fleet`));
  for (const s of fleet.sandbox.simulator.sent) {
    // On one Redis a message's report state is its pointer: `<campaign>\t<state letter>...`, `r` once read.
    const pointer = await redis.get(`${PREFIX}camp:m:${hashId(s.wamid)}`);
    if (pointer?.split('\t')[1]?.startsWith('r')) continue;
    lines.push(
      `not read: ${s.to} ${s.wamid} report=${pointer} ledger=${ledger.find((e) => e.includes(s.to))}`,
    );
    if (lines.length > 20) break;
  }
  const outcomes: Record<string, number> = {};
  for (const d of fleet.sandbox.deliveries) outcomes[d.outcome] = (outcomes[d.outcome] ?? 0) + 1;
  lines.push(`delivery outcomes: ${JSON.stringify(outcomes)}`);
  for (const r of fleet.receivers) lines.push(...r.logs.filter((l) => l.startsWith('error')).slice(0, 5));
  return lines.join('\n');
}

describeRedis('campaign queue fleet (child processes) on one redis-server with AOF', () => {
  let fleet: Fleet | undefined;
  const clients: { disconnect(): void }[] = [];
  afterEach(async () => {
    for (const c of clients.splice(0)) c.disconnect();
    await fleet?.close();
    fleet = undefined;
  });

  it(`${MESSAGES.toLocaleString('en')} messages, 4 workers SIGKILLed in turn, 2 receivers, Redis restarted: 0 lost, 0 twice, every in-doubt resolved`, {
    timeout: 1_800_000,
  }, async () => {
    fleet = await startFleet({ workers: 4, lockMs: 3000 });
    const { sandbox, server } = fleet;
    const redis = connect(server.url, { maxRetriesPerRequest: null });
    clients.push(redis);
    const queue = new CampaignQueue({ redis, prefix: PREFIX, logger: { warn: () => {}, error: () => {} } });
    clients.push({ disconnect: () => void queue.close() });
    const optOuts = new RedisSuppressionList({ redis, prefix: PREFIX });
    const suppressed = to(7);
    await optOuts.add(suppressed, 'wrote STOP');
    const started = Date.now();
    expect(await queue.enqueue('fleet', messages(MESSAGES))).toEqual({ added: MESSAGES, existing: 0 });

    // A worker SIGKILLed every 2 to 4 s and replaced; Redis SIGKILLed once, at 40% accepted, and started again.
    const random = prng(33);
    let kills = 0;
    let restarted = false;
    let done = false;
    const chaos = (async () => {
      while (!done) {
        await new Promise((r) => setTimeout(r, 2000 + random() * 2000));
        if (done) return;
        if (!restarted && sandbox.simulator.sent.length >= MESSAGES * 0.4) {
          restarted = true;
          await server.kill();
          await server.start();
          continue;
        }
        const k = Math.floor(random() * fleet!.workers.length);
        const victim = fleet!.workers[k]!;
        victim.process.kill('SIGKILL');
        kills++;
        fleet!.workers[k] = await spawnWorker(fleet!);
      }
    })();
    let last: CampaignQueueStatus | undefined;
    try {
      await waitFor(
        async () => {
          last = await queue.status('fleet');
          return last?.state === 'finished';
        },
        'the campaign to finish',
        1_200_000,
      );
    } finally {
      done = true;
      await chaos;
    }
    const sentMs = Date.now() - started;
    expect(kills).toBeGreaterThan(1);
    expect(restarted).toBe(true);
    await sandbox.idle();
    const doubtedAtEnd = last!.inDoubt + last!.resolved;
    // Every message in doubt that reached the sandbox is resolved from its statuses.
    const accepted = acceptedPerRecipient(sandbox);
    await waitFor(
      async () => {
        const left = await queue.inDoubt('fleet', { limit: 100_000 });
        return left.every((m) => !accepted.has(m.to));
      },
      'every in-doubt message that was sent to be resolved from its statuses',
      120_000,
    );
    // What stays in doubt never reached the sandbox: the person checks, and resends it.
    const unsent = await queue.inDoubt('fleet', { limit: 100_000 });
    for (const m of unsent) expect(accepted.has(m.to)).toBe(false);
    for (const m of unsent) await queue.resend('fleet', m.key);
    await waitFor(async () => (await queue.status('fleet'))?.state === 'finished', 'the resends', 120_000);
    await sandbox.idle();

    const final = acceptedPerRecipient(sandbox);
    const twice = [...final].filter(([, n]) => n > 1);
    const lost = Array.from({ length: MESSAGES }, (_, i) => to(i)).filter(
      (t) => t !== suppressed && !final.has(t),
    );
    const status = await queue.status('fleet');
    console.log(
      `campaign fleet: ${JSON.stringify({ messages: MESSAGES, kills, sentMs, inDoubtSeen: doubtedAtEnd, resolvedFromStatus: status?.resolved, resentByPerson: unsent.length, deliveries: sandbox.deliveries.length })}`,
    );
    expect(twice).toEqual([]);
    expect(lost).toEqual([]);
    expect(final.has(suppressed)).toBe(false);
    expect(status).toMatchObject({
      state: 'finished',
      total: MESSAGES,
      accepted: MESSAGES - 1,
      notSent: 1,
      suppressed: 1,
      inDoubt: 0,
      queued: 0,
      inFlight: 0,
    });
    // The report, from the statuses the receivers applied, equals what the sandbox did.
    try {
      await waitFor(
        async () => (await queue.report('fleet'))?.funnel.read === MESSAGES - 1,
        'every read applied',
        120_000,
      );
    } catch (error) {
      // The explanation must not hide the failure it explains (Redis may be what failed).
      console.log(
        await explainMissingReads(fleet!, redis, queue).catch((e: unknown) => `no explanation: ${String(e)}`),
      );
      throw error;
    }
    const report = await queue.report('fleet');
    expect(report?.funnel).toEqual({
      accepted: MESSAGES - 1,
      sent: MESSAGES - 1,
      delivered: MESSAGES - 1,
      read: MESSAGES - 1,
      failed: 0,
      notSent: 1,
      maybeSent: 0,
    });
    expect(report?.inDoubt).toEqual([]);
  });

  it('BILL_001 mid-run: no send starts anywhere 1 s after the refusal; resume sends the rest once each', {
    timeout: 600_000,
  }, async () => {
    const total = 4000;
    // Money for about a third of the campaign (a delivery costs 1).
    fleet = await startFleet({ workers: 4, lockMs: 10_000, balance: 1300 });
    const { sandbox, server } = fleet;
    const redis = connect(server.url, { maxRetriesPerRequest: null });
    clients.push(redis);
    const warnings: string[] = [];
    const queue = new CampaignQueue({
      redis,
      prefix: PREFIX,
      logger: { warn: (m) => warnings.push(m), error: (m) => warnings.push(m) },
    });
    const suppressed = to(1234);
    await new RedisSuppressionList({ redis, prefix: PREFIX }).add(suppressed, 'wrote STOP');
    // Every request the sandbox answers, and when; and the first BILL_001.
    const requests: { at: number; status: number }[] = [];
    let refusedAt = 0;
    let resumed = false;
    sandbox.observe((event) => {
      if (event.type !== 'send' || resumed) return;
      requests.push({ at: Date.now(), status: event.status });
      if (event.status === 402 && refusedAt === 0) refusedAt = Date.now();
    });
    await queue.enqueue('billing', messages(total));
    await waitFor(async () => (await queue.status('billing'))?.state === 'paused', 'the pause', 300_000);
    await waitFor(async () => (await queue.status('billing'))?.inFlight === 0, 'the sends in flight to end');
    const paused = await queue.status('billing');
    expect(paused?.hold).toMatchObject({ code: 'BILL_001', by: 'gateway' });
    expect(paused?.hold?.description).toContain('balance');
    // Topped up, but paused: nothing moves until resume. Waiting out a few of the workers' polls.
    sandbox.simulator.balance = 1_000_000;
    await new Promise((r) => setTimeout(r, 2000));
    const late = requests.filter((r) => r.at > refusedAt + 1000);
    console.log(
      `campaign BILL_001: ${JSON.stringify({ requestsBeforePause: requests.length, acceptedBeforePause: sandbox.simulator.sent.length, afterRefusalPlus1s: late.length })}`,
    );
    expect(refusedAt).toBeGreaterThan(0);
    expect(late).toEqual([]);
    expect(sandbox.simulator.sent.length).toBeLessThan(total - 1);
    resumed = true;
    await queue.resume('billing');
    await waitFor(async () => (await queue.status('billing'))?.state === 'finished', 'the rest', 300_000);
    await sandbox.idle();
    // A request the busy machine cut in flight (a job whose lock lapsed) is in doubt until its status resolves it.
    const doubted = await queue.inDoubt('billing');
    await waitFor(async () => (await queue.status('billing'))?.inDoubt === 0, 'in doubt resolved', 120_000);
    console.log(`campaign BILL_001 in doubt after resume: ${JSON.stringify(doubted.map((m) => m.why))}`);
    const sent = acceptedPerRecipient(sandbox);
    expect([...sent].filter(([, n]) => n > 1)).toEqual([]);
    expect(sent.has(suppressed)).toBe(false);
    expect(sent.size).toBe(total - 1);
    expect(await queue.status('billing')).toMatchObject({
      accepted: total - 1,
      suppressed: 1,
      notSent: 1,
      inDoubt: 0,
      hold: undefined,
    });
    expect(warnings.filter((w) => !w.includes('paused a campaign'))).toEqual([]);
    await queue.close();
  });
});
