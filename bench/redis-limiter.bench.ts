/**
 * Bars (many instances): across 4 processes sharing one RedisRateLimiter, at most N requests arrive at the
 * gateway in any 1,000 ms, at a sustained rate of at least 95% of N. Four sender processes push 2,000 messages
 * through sendMany at a loopback gateway that records arrival times; needs redis-server (skipped without it).
 */

import { maxInWindow, sustained } from '../test/helpers/arrivals.js';
import { startRedis } from '../test/helpers/redis-server.js';
import { available, redisServer } from '../test/helpers/system-servers.js';
import { forkFleet } from '../test/redis/fixtures/processes.js';
import { spawnFixture } from './fixtures/spawn.js';
import { report, round } from './lib.js';

const N = 80;
const PROCESSES = 4;
const TOTAL = 2000;

if (!available(redisServer)) {
  console.log(`redis-limiter: skipped (${redisServer.enable})`);
} else {
  const redis = await startRedis();
  const gateway = await spawnFixture('echo-gateway');
  /** Sends TOTAL messages from `processes` sender processes; returns the gateway's arrival times. */
  const run = async (processes: number, limiter: 'redis' | 'local'): Promise<number[]> => {
    await fetch(`${gateway.url}/__reset`);
    const fleet = await forkFleet('sender', processes, {
      REDIS_URL: redis.url,
      GATEWAY_URL: gateway.url,
      COUNT: String(TOTAL / processes),
      PER_SECOND: String(N),
      LIMIT_NAME: 'bench',
      LIMITER: limiter,
    });
    try {
      const results = await fleet.round<{ ok: number }>('go');
      const ok = results.reduce((sum, r) => sum + r.ok, 0);
      const arrivals = (await (await fetch(`${gateway.url}/__arrivals`)).json()) as number[];
      if (ok !== TOTAL || arrivals.length !== TOTAL) {
        throw new Error(`expected ${TOTAL} sends, got ${ok} ok / ${arrivals.length} arrived`);
      }
      return arrivals;
    } finally {
      fleet.stop();
    }
  };
  try {
    const shared = await run(PROCESSES, 'redis');
    // Baseline, same machine and moment: one process with the in-process limiter, the same 2,000 sends.
    const local = await run(1, 'local');
    const peak = maxInWindow(shared);
    report({
      bench: 'redis-limiter',
      metric: `most arrivals in any 1,000 ms, ${PROCESSES} processes sharing Redis (N = ${N})`,
      value: peak,
      unit: '',
      bar: `<= ${N}`,
      pass: peak <= N,
    });
    const rate = sustained(shared);
    const baseline = sustained(local);
    report({
      bench: 'redis-limiter',
      metric: `sustained arrival rate across ${PROCESSES} processes as a share of N`,
      value: rate / N,
      unit: 'x',
      bar: '>= 0.95x',
      pass: rate / N >= 0.95,
      detail: { sendsPerSecond: round(rate, 1), total: TOTAL, processes: PROCESSES },
    });
    report({
      bench: 'redis-limiter',
      metric: 'sustained rate, 4 processes on Redis vs 1 process with the in-process limiter (same run)',
      value: rate / baseline,
      unit: 'x',
      bar: 'informational',
      pass: true,
      detail: {
        sharedPerSecond: round(rate, 1),
        localPerSecond: round(baseline, 1),
        localPeak: maxInWindow(local),
      },
    });
  } finally {
    gateway.stop();
    await redis.dispose();
  }
}
