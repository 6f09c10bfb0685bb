/** Public helpers meet bad input with a typed error or an "ignored" answer, never a raw TypeError. */
import { inspect } from 'node:util';
import { HttpResponse, http } from 'msw';
import { describe, expect, it } from 'vitest';
import {
  ConfigurationError,
  GatewayClient,
  InvalidResponseError,
  MessageValidationError,
  normalizeRecipient,
  PublicApiClient,
  summarizeStats,
} from '../../src/index.js';
import { isReactionRemoved, StatusTracker, WebhookParseError } from '../../src/webhooks/index.js';
import { useMswServer } from '../helpers/msw.js';

const server = useMswServer();

describe('bad input to public helpers', () => {
  it('normalizeRecipient takes a number, as spreadsheets store phone numbers', () => {
    expect(normalizeRecipient(998901234567)).toBe('998901234567');
  });

  it('StatusTracker.update ignores what is not a status', () => {
    const tracker = new StatusTracker();
    for (const bad of [undefined, null, 42, {}, { status: null }]) {
      expect(tracker.update(bad as never)).toMatchObject({ changed: false, ignored: 'unknown_status' });
    }
    expect(tracker.size).toBe(0);
  });

  it('normalizeRecipient refuses what is not a string or a number with a MessageValidationError, reading nothing', () => {
    let reads = 0;
    const trap = new Proxy(
      {},
      {
        get: () => {
          reads++;
          throw new Error('trap');
        },
        getPrototypeOf: () => {
          reads++;
          throw new Error('trap');
        },
      },
    );
    const getter = {
      get toString() {
        reads++;
        throw new Error('getter');
      },
    };
    const { proxy: revoked, revoke } = Proxy.revocable({}, {});
    revoke();
    for (const bad of [
      trap,
      getter,
      revoked,
      { toString: () => '+998 90 123 45 67' },
      null,
      undefined,
      998n,
    ]) {
      let error: unknown;
      try {
        normalizeRecipient(bad as never);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(MessageValidationError);
      expect((error as MessageValidationError).message).toMatch(
        bad === undefined
          ? /^Invalid recipient: \(root\): a recipient is required, got undefined/
          : /^Invalid recipient: \(root\): a recipient must be a string or a number/,
      );
      expect((error as MessageValidationError).issues[0]?.rule).toBe(
        bad === undefined ? 'to.required' : 'to.type',
      );
    }
    expect(reads).toBe(0);
  });

  it('StatusTracker.update meets a throwing Proxy or getter with a WebhookParseError and stays unchanged', () => {
    const throwing = () => {
      throw new Error('boom');
    };
    const tracker = new StatusTracker();
    tracker.update({ id: 'wamid.ok', status: 'sent', timestamp: '1700000000', recipient_id: '998901234567' });
    const trap = new Proxy({}, { get: throwing, has: throwing, getPrototypeOf: throwing, ownKeys: throwing });
    const statusGetter = {
      id: 'wamid.ok',
      get status() {
        return throwing();
      },
    };
    const pricingGetter = {
      id: 'wamid.ok',
      status: 'delivered',
      get pricing() {
        return throwing();
      },
    };
    const eventWithTrap = { kind: 'status', status: trap };
    const { proxy: revoked, revoke } = Proxy.revocable({}, {});
    revoke();
    for (const bad of [trap, statusGetter, pricingGetter, eventWithTrap, revoked]) {
      expect(() => tracker.update(bad as never)).toThrow(WebhookParseError);
      expect(() => tracker.update(bad as never)).toThrow(/could not be read/);
    }
    expect(tracker.size).toBe(1);
    expect(tracker.get('wamid.ok')).toMatchObject({ status: 'sent', events: 1 });
  });

  it('summarizeStats refuses a non-channel with a ConfigurationError naming it', () => {
    expect(() => summarizeStats([{}] as never)).toThrow(ConfigurationError);
    expect(() => summarizeStats([{}] as never)).toThrow(/channel 0/);
    expect(() => summarizeStats(undefined as never)).toThrow(ConfigurationError);
  });

  it('isReactionRemoved does not crash on a malformed message', () => {
    expect(isReactionRemoved(undefined as never)).toBe(true);
  });
});

describe('secrets in configuration and 2xx excerpts (review findings)', () => {
  const KEY = 'pk_live_SECRETKEY1234567890';

  it('a key passed as baseUrl is not repeated in the error', () => {
    try {
      new GatewayClient({ apiKey: 'x_key_0123456789', baseUrl: KEY });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigurationError);
      expect(String(error)).not.toContain(KEY);
    }
  });

  it('a 2xx body echoing the key is scrubbed from InvalidResponseError, for sends and template creates', async () => {
    server.use(
      http.post('https://gw.test/v1/wa/message', () =>
        HttpResponse.json({ isSuccess: true, data: { note: `key ${KEY} ok` } }),
      ),
      http.post('https://api.test/api/v1/wa/:app/templates', () =>
        HttpResponse.json({ isSuccess: true, echo: KEY }),
      ),
    );
    const send = await new GatewayClient({ apiKey: KEY, baseUrl: 'https://gw.test' }).messages
      .send({ to: '998901234567', type: 'text', text: { body: 'x' } })
      .catch((e: unknown) => e);
    const create = await new PublicApiClient({ secretKey: KEY, baseUrl: 'https://api.test/api/v1' }).templates
      .create('a', { name: 'a_b', language: 'en', category: 'UTILITY', body: { text: 'Hello there' } })
      .catch((e: unknown) => e);
    for (const e of [send, create]) {
      expect(e).toBeInstanceOf(InvalidResponseError);
      expect(`${JSON.stringify(e)} ${inspect(e, { depth: 9 })}`).not.toContain(KEY);
    }
  });

  it('a created template with a new status or a numeric id is still success', async () => {
    server.use(
      http.post('https://api.test/api/v1/wa/:app/templates', () =>
        HttpResponse.json({
          isSuccess: true,
          data: { sourceId: 123, name: 'a_b', language: 'en', category: 'UTILITY', status: 'QUEUED' },
        }),
      ),
    );
    const created = await new PublicApiClient({
      secretKey: KEY,
      baseUrl: 'https://api.test/api/v1',
    }).templates.create('a', {
      name: 'a_b',
      language: 'en',
      category: 'UTILITY',
      body: { text: 'Hello there' },
    });
    expect(created).toMatchObject({ sourceId: '123', status: 'UNKNOWN' });
  });
});
