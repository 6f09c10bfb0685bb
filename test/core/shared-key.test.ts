import { afterEach, describe, expect, it, vi } from 'vitest';
import { FOLD_WINDOW_MS, type Logger, logFolded } from '../../src/core/logger.js';
import { GatewayClient, RateLimitError, RateLimiter } from '../../src/index.js';
import { sendOk } from '../helpers/msw.js';

const KEY = 'pk_live_shared_key_0123456789';
const BASE = 'https://gw.example.test';

function capture() {
  const lines: { level: string; message: string; meta?: Record<string, unknown> }[] = [];
  const logger: Logger = {
    warn: (message, meta) => void lines.push({ level: 'warn', message, ...(meta ? { meta } : {}) }),
    error: (message, meta) => void lines.push({ level: 'error', message, ...(meta ? { meta } : {}) }),
  };
  return { lines, logger };
}

const rate001 = (retryAfter = '1s') =>
  new Response(
    JSON.stringify({
      isSuccess: false,
      errors: {
        code: 'RATE_001',
        group: 'TOO_MANY_REQUESTS',
        description: 'Rate limit exceeded',
        params: { limit_type: 'sec', retry_after: retryAfter },
      },
    }),
    { status: 429, headers: { 'content-type': 'application/json' } },
  );

afterEach(() => {
  vi.useRealTimers();
});

describe('several GatewayClients on one key', () => {
  /** A fetch that answers RATE_001 (retry_after 0s) to every other request, and a send to anything else. */
  function limitedEveryOther() {
    let n = 0;
    return async () => (++n % 2 === 1 ? rate001('0s') : Response.json(sendOk()));
  }
  const send = (gw: GatewayClient) =>
    gw.messages.send({ to: '998901234567', type: 'text', text: { body: 'Hi' } });

  // One test: the warning is once per process (this file's module instance), so the order of the steps matters.
  it('at their first RATE_001, warns once, naming neither the key nor a fingerprint, if each has a limiter of its own', async () => {
    const { lines, logger } = capture();
    const fetch = limitedEveryOther();
    const shared = new RateLimiter({ perSecond: 80 });
    // Clients that share one limiter, or turned limiting off, spend the budget together: nothing to say.
    await send(new GatewayClient({ apiKey: KEY, baseUrl: BASE, logger, fetch, rateLimit: shared }));
    await send(new GatewayClient({ apiKey: KEY, baseUrl: BASE, logger, fetch, rateLimit: shared }));
    await send(new GatewayClient({ apiKey: KEY, baseUrl: BASE, logger, fetch, rateLimit: false }));
    // One client with its own limiter on a key, and one on another key: each alone on its key.
    // Kept referenced: the count is of live clients, and a collected one would count down mid-test.
    const live = [
      new GatewayClient({ apiKey: KEY, baseUrl: BASE, logger, fetch }),
      new GatewayClient({ apiKey: 'pk_live_another_key_9876543210', baseUrl: BASE, logger, fetch }),
    ];
    for (const gw of live) await send(gw);
    expect(lines.filter((l) => l.message.includes('rate limiter of its own'))).toEqual([]);
    // A second and third client with their own limiters on the same key (the client-per-request pattern) meet
    // RATE_001: the first such answer is warned about, once.
    for (let i = 0; i < 2; i++) {
      live.push(new GatewayClient({ apiKey: KEY, baseUrl: BASE, logger, fetch }));
      await send(live.at(-1) as GatewayClient);
    }
    const warned = lines.filter((l) => l.message.includes('rate limiter of its own'));
    expect(warned).toHaveLength(1);
    expect(warned[0]?.level).toBe('warn');
    expect(warned[0]?.message).toMatch(
      /^wa-gateway-sdk: RATE_001, and 2 GatewayClients exist in this process for this API key/,
    );
    expect(warned[0]?.message).toContain('Create one GatewayClient and share it');
    expect(warned[0]?.message).toContain('RedisRateLimiter');
    expect(JSON.stringify(lines)).not.toContain(KEY);
    expect(JSON.stringify(lines)).not.toContain('shared_key');
  });
});

describe('RATE_001 that outlasts the retries', () => {
  it("the RateLimitError's message points at one shared client and RedisRateLimiter", async () => {
    const { logger } = capture();
    const gw = new GatewayClient({
      apiKey: KEY,
      baseUrl: BASE,
      logger,
      rateLimit: false,
      maxRetries: 0,
      fetch: async () => rate001(),
    });
    const error = await gw.messages
      .send({ to: '998901234567', type: 'text', text: { body: 'Hi' } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    const { message } = error as RateLimitError;
    expect(message).toMatch(/^429 RATE_001: Rate limit exceeded/);
    expect(message).toContain('share one GatewayClient in this process instead of one per request');
    expect(message).toContain('`RedisRateLimiter` (wa-gateway-sdk/redis)');
    expect(message).not.toContain(KEY);
  });
});

describe('folded retry warnings', () => {
  it('a burst is its first line, then one line with the count of the rest', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { lines, logger } = capture();
    const message = 'wa-gateway-sdk: retrying request';
    for (let i = 0; i < 100; i++) {
      logFolded(logger, 'warn', message, { code: i % 10 === 0 ? 'AUTH_004' : 'RATE_001' }, 5000 + i * 10);
    }
    expect(lines).toHaveLength(1);
    expect(lines[0]?.meta).toEqual({ code: 'AUTH_004' });
    // A line after a quiet window opens a new burst, after the old one's count.
    logFolded(logger, 'warn', message, { code: 'RATE_001' }, 5000 + 990 + FOLD_WINDOW_MS);
    expect(lines).toHaveLength(3);
    expect(lines[1]?.message).toBe(
      `${message}: 99 more like it in 1 s (RATE_001 x90, AUTH_004 x9), folded into this line`,
    );
    expect(lines[1]?.meta).toEqual({ folded: 99, durationMs: 990, codes: { RATE_001: 90, AUTH_004: 9 } });
    expect(lines[2]).toEqual({ level: 'warn', message, meta: { code: 'RATE_001' } });
  });

  it('another kind of line is never folded into a burst, and a burst that just stops still reports', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const { lines, logger } = capture();
    const now = () => performance.now();
    logFolded(logger, 'warn', 'retrying', { code: 'RATE_001' }, now());
    logFolded(logger, 'warn', 'something else', {}, now());
    logFolded(logger, 'warn', 'retrying', { code: 'RATE_001' }, now());
    logFolded(logger, 'warn', 'retrying', { code: 'RATE_001' }, now());
    expect(lines.map((l) => l.message)).toEqual(['retrying', 'something else']);
    await vi.advanceTimersByTimeAsync(FOLD_WINDOW_MS);
    expect(lines.map((l) => l.message)).toEqual([
      'retrying',
      'something else',
      'retrying: 2 more like it in 0 s (RATE_001 x2), folded into this line',
    ]);
  });

  it('clients that log to one destination fold into one burst', async () => {
    const { lines, logger } = capture();
    let n = 0;
    const fetch = async () => (++n <= 5 ? rate001() : Response.json(sendOk()));
    const sends = [];
    for (let i = 0; i < 5; i++) {
      const gw = new GatewayClient({
        apiKey: `pk_live_key_${i}`,
        baseUrl: BASE,
        logger,
        rateLimit: false,
        fetch,
      });
      sends.push(gw.messages.send({ to: '998901234567', type: 'text', text: { body: 'Hi' } }));
    }
    await Promise.all(sends);
    const retrying = lines.filter((l) => l.message === 'wa-gateway-sdk: retrying request');
    expect(n).toBe(10);
    expect(retrying).toHaveLength(1);
  });
});
