/**
 * The shared-key warning counts the clients that exist, not every client ever made (issue 23): a client replaced
 * on a config reload stops counting once its limiter is collected. The collection is simulated by calling the
 * registry's own callback (the project runs no test with --expose-gc), so nothing depends on the garbage collector.
 * A file of its own: the warning is once per process (module instance).
 */
import { describe, expect, it } from 'vitest';
import { fingerprint, ownLimiterGone } from '../../src/core/rate-limiter.js';
import { GatewayClient } from '../../src/index.js';
import { captureLogger } from '../helpers/capture-logger.js';
import { sendOk } from '../helpers/msw.js';

const KEY = 'pk_live_one_key_0123456789';
const rate001 = () =>
  Response.json(
    {
      isSuccess: false,
      errors: {
        code: 'RATE_001',
        group: 'TOO_MANY_REQUESTS',
        description: 'Rate limit exceeded',
        params: { limit_type: 'sec', retry_after: '0s' },
      },
    },
    { status: 429 },
  );

describe('the shared-key warning counts live clients', () => {
  it('a client replaced and collected is not counted; two live ones are', async () => {
    const { logger, messages } = captureLogger();
    let n = 0;
    const fetch = async () => (++n % 2 === 1 ? rate001() : Response.json(sendOk()));
    const make = () => new GatewayClient({ apiKey: KEY, baseUrl: 'https://gw.test', logger, fetch });
    const send = (gw: GatewayClient) =>
      gw.messages.send({ to: '998901234567', type: 'text', text: { body: 'Hi' } });
    const old = make();
    // The reload: the old client is dropped, and the collector takes its limiter.
    ownLimiterGone(fingerprint(KEY));
    const current = make();
    await send(current);
    const warned = () => messages().filter((m) => m.includes('rate limiter of its own'));
    expect(warned()).toEqual([]);
    // A second live client on the key: now there are two.
    const second = make();
    await send(second);
    expect(warned()).toHaveLength(1);
    expect(warned()[0]).toMatch(/RATE_001, and 2 GatewayClients exist in this process/);
    expect(old).toBeDefined();
  });
});
