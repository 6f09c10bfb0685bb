/**
 * Campaigns (issue 27), three figures:
 *
 * 1. Bar: recording a campaign adds at most 5% to `sendMany`'s time against the sandbox (a child process on
 *    loopback). Interleaved rounds of `ROUND` messages, `sendMany` with `{ campaign }` (memory store) against the
 *    same `sendMany` without; the figure is the median of the per-round ratios. 100,000 real sends a side would take
 *    minutes on a shared 2-core box, so the rounds add up to `ROUNDS × ROUND` a side (60 × 500 = 30,000); short
 *    rounds, so that a burst of load from elsewhere on the machine spoils few of them. Beside it, the recorder's
 *    own cost per result, timed alone over 100,000 results, as a share of a send's time: the figure the ratio
 *    estimates, without the network's noise.
 * 2. Bar: `tracker.report(id)` of a 100,000-message campaign (every message with its statuses applied, 2% refused,
 *    3% failed) answers in under 1 s, with the memory store and with RedisCampaignStore (the report, plus walking its
 *    retry list).
 *    And, informational, the CPU a campaign adds per message with the network taken out (fetch in-process).
 * 3. Informational: RedisCampaignStore's memory per message, from `INFO memory` before and after the 100,000
 *    messages and their statuses, and `MEMORY USAGE` of one message key.
 */
import { performance } from 'node:perf_hooks';
import { Redis } from 'ioredis';
import { CampaignTracker, GatewayClient, type OutboundMessage, PaymentRequiredError } from '../src/index.js';
import { RedisCampaignStore } from '../src/redis/index.js';
import { statusObject } from '../src/testing/webhook-fixtures.js';
import { startRedis } from '../test/helpers/redis-server.js';
import { available, redisServer } from '../test/helpers/system-servers.js';
import { spawnFixture } from './fixtures/spawn.js';
import { median, QUICK, report, round } from './lib.js';

const ROUND = 500;
const ROUNDS = QUICK ? 16 : 60;
const MESSAGES = 100_000;

function messages(n: number, offset: number): OutboundMessage[] {
  return Array.from({ length: n }, (_, i) => ({
    to: `99890${String(offset + i).padStart(7, '0')}`,
    type: 'text',
    text: { body: `Spring sale ${i}` },
  }));
}

async function sendOverhead(): Promise<void> {
  const sandbox = await spawnFixture('sandbox');
  try {
    const tracker = new CampaignTracker();
    const plain = new GatewayClient({ apiKey: 'sk_test_sandbox', baseUrl: sandbox.url, rateLimit: false });
    const tracked = new GatewayClient({
      apiKey: 'sk_test_sandbox',
      baseUrl: sandbox.url,
      rateLimit: false,
      campaigns: tracker,
    });
    const run = async (gw: GatewayClient, batch: OutboundMessage[], campaign?: string) => {
      const t0 = performance.now();
      let ok = 0;
      // `isFake`: the sandbox schedules no status events, whose work would land on whichever side runs next.
      for await (const r of gw.messages.sendMany(
        batch,
        campaign ? { campaign, isFake: true } : { isFake: true },
      ))
        if (r.ok) ok++;
      if (ok !== batch.length) throw new Error(`only ${ok} of ${batch.length} accepted`);
      return performance.now() - t0;
    };
    await run(plain, messages(ROUND, 0));
    await run(tracked, messages(ROUND, 0), 'warm-up');
    const ratios: number[] = [];
    const withMs: number[] = [];
    const withoutMs: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const batch = messages(ROUND, r * ROUND);
      // Alternate which side goes first, so a drift in load does not favour one.
      const first = r % 2 === 0;
      const a = first ? await run(plain, batch) : 0;
      const b = await run(tracked, batch, 'bench');
      const c = first ? a : await run(plain, batch);
      ratios.push(b / c);
      withMs.push(b);
      withoutMs.push(c);
    }
    const ratio = median(ratios);
    const perResultUs = await recorderCost();
    const perSendUs = (median(withoutMs) * 1000) / ROUND;
    report({
      bench: 'campaign',
      metric: `sendMany with { campaign } vs without, against the sandbox (${ROUNDS} rounds of ${ROUND})`,
      value: ratio,
      unit: 'x',
      bar: '<= 1.05x',
      limit: 1.05,
      pass: ratio <= 1.05,
      detail: {
        withCampaignMsPerRound: round(median(withMs), 1),
        withoutMsPerRound: round(median(withoutMs), 1),
        recorded: (await tracker.report('bench'))?.funnel.accepted ?? 0,
        recorderUsPerResult: round(perResultUs, 2),
        sendUsPerMessage: round(perSendUs, 1),
        recorderShare: round(perResultUs / perSendUs, 4),
      },
    });
    // The same question without the network's noise: the recorder's own time per result, next to a send's.
    report({
      bench: 'campaign',
      metric: "recorder's own time per result as a share of a send's time against the sandbox",
      value: 1 + perResultUs / perSendUs,
      unit: 'x',
      bar: '<= 1.05x',
      limit: 1.05,
      pass: 1 + perResultUs / perSendUs <= 1.05,
      detail: { recorderUsPerResult: round(perResultUs, 2), sendUsPerMessage: round(perSendUs, 1) },
    });
  } finally {
    sandbox.stop();
  }
}

/**
 * The whole campaign path (the recorder, the sending mark, the buffer's writes) with the network taken out: a
 * fetch answered in-process, so a send costs tens of µs of CPU and the path's cost shows at its largest. Timed
 * in CPU time (`process.cpuUsage`), which other processes on a busy machine barely move (wall time there swings
 * ±50% between rounds). Informational: the bar is against the sandbox, above; this says what the path costs.
 */
async function inProcessOverhead(): Promise<void> {
  let n = 0;
  const fetch = async (_url: unknown, init?: RequestInit) => {
    const to = (JSON.parse(String(init?.body)) as { to: string }).to;
    const data = {
      messaging_product: 'whatsapp',
      contacts: [{ input: to, wa_id: to }],
      messages: [{ id: `wamid.B${++n}` }],
    };
    return new Response(JSON.stringify({ isSuccess: true, data }), {
      status: 200,
      headers: { 'content-type': 'application/json' },
    });
  };
  const options = { apiKey: 'sk_test_sandbox', baseUrl: 'http://gw.test', rateLimit: false as const, fetch };
  const plain = new GatewayClient(options);
  const tracked = new GatewayClient({ ...options, campaigns: new CampaignTracker() });
  const size = 5000;
  const batch = messages(size, 0);
  const cpuUsPerMessage = async (gw: GatewayClient, campaign?: string) => {
    const t0 = process.cpuUsage();
    for await (const _ of gw.messages.sendMany(batch, campaign ? { campaign } : {})) {
      // drained
    }
    const d = process.cpuUsage(t0);
    return (d.user + d.system) / size;
  };
  for (let i = 0; i < 3; i++) {
    await cpuUsPerMessage(plain);
    await cpuUsPerMessage(tracked, 'warm-up');
  }
  const without: number[] = [];
  const withCampaign: number[] = [];
  for (let r = 0; r < (QUICK ? 6 : 15); r++) {
    without.push(await cpuUsPerMessage(plain));
    withCampaign.push(await cpuUsPerMessage(tracked, 'in-process'));
  }
  const added = median(withCampaign) - median(without);
  report({
    bench: 'campaign',
    metric: 'CPU per message a campaign adds to sendMany, fetch answered in-process',
    value: added,
    unit: 'µs',
    bar: 'informational',
    pass: true,
    detail: {
      withoutCpuUsPerMessage: round(median(without), 1),
      withCampaignCpuUsPerMessage: round(median(withCampaign), 1),
    },
  });
}

/** The recorder alone: µs per result over 100,000 accepted results into the memory store (median of 3). */
async function recorderCost(): Promise<number> {
  const tracker = new CampaignTracker();
  const samples: number[] = [];
  for (let rep = 0; rep < 3; rep++) {
    const recorder = tracker.recorder(`cost-${rep}`);
    await recorder.ready;
    const t0 = performance.now();
    for (let i = 0; i < MESSAGES; i++) {
      const written = recorder.add(
        { index: i, ok: true, messageId: `wamid.HBgLOTk4OTAxMjM0NTY3FQIAERgS${rep}-${i}`, contacts: [] },
        { to: `99890${i}` },
      );
      if (written) await written;
    }
    await recorder.close();
    samples.push(((performance.now() - t0) * 1000) / MESSAGES);
  }
  return median(samples);
}

/** Fills `tracker` with a 100,000-message campaign: results recorded, every status applied. */
async function fill(tracker: CampaignTracker): Promise<void> {
  const bill = new PaymentRequiredError({
    status: 402,
    code: 'BILL_001',
    group: 'PAYMENT_REQUIRED',
    description: 'Insufficient balance.',
    body: {},
  });
  const results = Array.from({ length: MESSAGES }, (_, i) => ({
    result:
      i % 50 === 7
        ? { index: i, ok: false as const, error: bill, notSent: true }
        : {
            index: i,
            ok: true as const,
            messageId: `wamid.HBgLOTk4OTAxMjM0NTY3FQIAERgS${String(i).padStart(8, '0')}`,
            contacts: [],
          },
    to: `99890${String(i).padStart(7, '0')}`,
  }));
  await tracker.record('spring-sale', results);
  const pricing = { billable: true, pricing_model: 'PMP', category: 'marketing' };
  const error = [{ code: 131026, title: 'Undeliverable', message: 'x', error_data: { details: 'x' } }];
  const pending: Promise<void>[] = [];
  for (const { result } of results) {
    if (!result.ok) continue;
    const id = result.messageId;
    const failed = result.index % 33 === 5;
    for (const s of failed ? (['sent', 'failed'] as const) : (['sent', 'delivered', 'read'] as const)) {
      pending.push(
        tracker.apply(
          statusObject(s, {
            id,
            timestamp: String(1_700_000_000 + result.index),
            ...(s === 'delivered' ? { pricing } : {}),
            ...(s === 'failed' ? { errors: error } : {}),
          }),
        ),
      );
      if (pending.length >= 256) await Promise.all(pending.splice(0));
    }
  }
  await Promise.all(pending);
}

async function timeReport(tracker: CampaignTracker): Promise<{ ms: number; retries: number }> {
  const samples: number[] = [];
  let retries = 0;
  for (let i = 0; i < 5; i++) {
    const t0 = performance.now();
    const r = await tracker.report('spring-sale');
    retries = 0;
    for await (const _ of r!.retries()) retries++;
    samples.push(performance.now() - t0);
  }
  return { ms: median(samples), retries };
}

async function reports(): Promise<void> {
  const memory = new CampaignTracker({ retryableFailureCodes: [131026] });
  await fill(memory);
  const m = await timeReport(memory);
  report({
    bench: 'campaign',
    metric: 'report of 100,000 messages with its retry list, memory store',
    value: m.ms,
    unit: 'ms',
    bar: '< 1000ms',
    pass: m.ms < 1000,
    detail: { retries: m.retries },
  });
  if (!available(redisServer)) {
    console.log(`campaign: Redis figures skipped (${redisServer.enable})`);
    return;
  }
  const server = await startRedis();
  const redis = new Redis(server.url);
  try {
    const used = async () => Number(/used_memory:(\d+)/.exec(await redis.info('memory'))?.[1]);
    const before = await used();
    const tracker = new CampaignTracker({
      store: new RedisCampaignStore({ redis }),
      retryableFailureCodes: [131026],
    });
    const t0 = performance.now();
    await fill(tracker);
    const fillMs = performance.now() - t0;
    const after = await used();
    const key = (await redis.scan('0', 'MATCH', 'wa:camp:m:*', 'COUNT', 100))[1][0]!;
    const perKey = Number(await redis.call('MEMORY', 'USAGE', key));
    const r = await timeReport(tracker);
    report({
      bench: 'campaign',
      metric: 'report of 100,000 messages with its retry list, RedisCampaignStore',
      value: r.ms,
      unit: 'ms',
      bar: '< 1000ms',
      pass: r.ms < 1000,
      detail: { retries: r.retries, fillSeconds: round(fillMs / 1000, 1) },
    });
    report({
      bench: 'campaign',
      metric: 'RedisCampaignStore memory per message (INFO used_memory delta / messages)',
      value: (after - before) / MESSAGES,
      unit: 'B',
      bar: 'informational',
      pass: true,
      detail: { memoryUsageOfOneMessageKey: perKey, usedMemoryDeltaMB: round((after - before) / 2 ** 20, 1) },
    });
  } finally {
    redis.disconnect();
    await server.dispose();
  }
}

await sendOverhead();
await inProcessOverhead();
await reports();
