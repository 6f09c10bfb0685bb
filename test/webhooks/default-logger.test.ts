import { afterEach, describe, expect, it, vi } from 'vitest';
import { ConfigurationError } from '../../src/core/errors.js';
import { messageEnvelope, textMessage } from '../../src/testing/webhook-fixtures.js';
import { createWebhookHandler, type WebhookHandlerOptions } from '../../src/webhooks/index.js';

const SECRET = 'wh_test_secret_0123456789abcdefghijkl';
const BODY_TEXT = 'private words 4242';

function post(body: string): Request {
  return new Request('https://app.example.test/hook', {
    method: 'POST',
    headers: { authorization: `Bearer ${SECRET}`, 'content-type': 'application/json' },
    body,
  });
}

/** Everything written to console.warn and console.error while `run` runs, as one string. */
async function consoleOutput(run: () => Promise<unknown> | unknown): Promise<string> {
  const lines: unknown[][] = [];
  const warn = vi.spyOn(console, 'warn').mockImplementation((...a: unknown[]) => void lines.push(a));
  const error = vi.spyOn(console, 'error').mockImplementation((...a: unknown[]) => void lines.push(a));
  try {
    await run();
  } finally {
    warn.mockRestore();
    error.mockRestore();
  }
  return lines.map((l) => l.map((x) => (typeof x === 'string' ? x : JSON.stringify(x))).join(' ')).join('\n');
}

afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
});

describe('the webhook handler logs to the console by default', () => {
  it('an onEvent failure is printed, without the payload or the error message', async () => {
    const handler = createWebhookHandler({
      secret: SECRET,
      onEvent: () => {
        throw new Error(`db down while saving ${BODY_TEXT}`);
      },
    });
    const body = JSON.stringify(messageEnvelope(textMessage({ text: { body: BODY_TEXT } })));
    let status = 0;
    const printed = await consoleOutput(async () => {
      status = (await handler(post(body))).status;
    });
    expect(status).toBe(500);
    expect(printed).toContain('[wa-gateway webhooks] onEvent failed');
    expect(printed).toContain('"kind":"message"');
    expect(printed).not.toContain(BODY_TEXT);
    expect(printed).not.toContain('wamid');
    expect(printed).not.toContain(SECRET);
  });

  it('the short-secret warning is printed at creation', async () => {
    const printed = await consoleOutput(() => createWebhookHandler({ secret: 'short', onEvent: () => {} }));
    expect(printed).toContain(
      '[wa-gateway webhooks] A webhook secret is shorter than the 32 random characters',
    );
    expect(printed).not.toContain('short"');
  });

  it('a secret in quotes (kept by an env file) is warned about at creation, without the secret', async () => {
    for (const quoted of [`"${SECRET}"`, `'${SECRET}'`]) {
      const warnings: { message: string; meta: unknown }[] = [];
      const logger = { warn: (message: string, meta: unknown) => void warnings.push({ message, meta }) };
      createWebhookHandler({ secret: [SECRET, quoted], logger, onEvent: () => {} });
      expect(warnings).toEqual([
        { message: 'A webhook secret is in quotes (kept by an env file?)', meta: { index: 1 } },
      ]);
    }
    // Quotes inside a secret, or at one end only, are a secret's own characters.
    const quiet: string[] = [];
    const logger = { warn: (message: string) => void quiet.push(message) };
    createWebhookHandler({
      secret: [`"${SECRET}`, `${SECRET}'`, `a"${SECRET}"b`],
      logger,
      onEvent: () => {},
    });
    expect(quiet).toEqual([]);
  });

  it('logger: false silences it; a logger of your own replaces it', async () => {
    const silent = await consoleOutput(async () => {
      const handler = createWebhookHandler({ secret: 'short', logger: false, onEvent: () => {} });
      await handler(new Request('https://app.example.test/hook', { method: 'POST', body: '{}' }));
    });
    expect(silent).toBe('');
    const mine: string[] = [];
    const replaced = await consoleOutput(() =>
      createWebhookHandler({
        secret: 'short',
        logger: { warn: (m) => void mine.push(m), error: (m) => void mine.push(m) },
        onEvent: () => {},
      }),
    );
    expect(replaced).toBe('');
    expect(mine).toEqual([expect.stringContaining('shorter than the 32')]);
  });
});

describe("logLevel and WA_GATEWAY_LOG, by the clients' rules", () => {
  const failing = (extra: Partial<WebhookHandlerOptions>) =>
    createWebhookHandler({
      secret: 'short', // a warning at creation
      onEvent: () => {
        throw new Error('db down');
      },
      ...extra,
    });
  /** The short-secret warning and the onEvent error, through the handler built by `make`. */
  const both = (make: () => ReturnType<typeof createWebhookHandler>) =>
    consoleOutput(async () => {
      const handler = make();
      const res = await handler(
        new Request('https://app.example.test/hook', {
          method: 'POST',
          headers: { authorization: 'Bearer short' },
          body: JSON.stringify(messageEnvelope(textMessage())),
        }),
      );
      expect(res.status).toBe(500);
    });

  it('the default is warn: warnings and errors are printed', async () => {
    vi.stubEnv('WA_GATEWAY_LOG', '');
    const printed = await both(() => failing({}));
    expect(printed).toContain('shorter than the 32');
    expect(printed).toContain('onEvent failed');
  });

  it('logLevel error drops the warning and keeps the error; off prints nothing', async () => {
    vi.stubEnv('WA_GATEWAY_LOG', 'debug');
    const errorsOnly = await both(() => failing({ logLevel: 'error' }));
    expect(errorsOnly).not.toContain('shorter than the 32');
    expect(errorsOnly).toContain('onEvent failed');
    expect(await both(() => failing({ logLevel: 'off' }))).toBe('');
  });

  it('WA_GATEWAY_LOG applies when logLevel is not given; an unknown value is ignored', async () => {
    vi.stubEnv('WA_GATEWAY_LOG', 'ERROR');
    const errorsOnly = await both(() => failing({}));
    expect(errorsOnly).not.toContain('shorter than the 32');
    expect(errorsOnly).toContain('onEvent failed');
    vi.stubEnv('WA_GATEWAY_LOG', 'off');
    expect(await both(() => failing({}))).toBe('');
    vi.stubEnv('WA_GATEWAY_LOG', 'loud');
    expect(await both(() => failing({}))).toContain('shorter than the 32');
  });

  it('a logger of your own is filtered the same way; logger: false stays silent whatever the level', async () => {
    vi.stubEnv('WA_GATEWAY_LOG', 'off');
    const mine: string[] = [];
    const logger = {
      warn: (m: string) => void mine.push(`warn ${m}`),
      error: (m: string) => void mine.push(`error ${m}`),
    };
    expect(await both(() => failing({ logger }))).toBe('');
    expect(mine).toEqual([]);
    expect(await both(() => failing({ logger, logLevel: 'error' }))).toBe('');
    expect(mine).toEqual([expect.stringMatching(/^error .*onEvent failed/)]);
    expect(await both(() => failing({ logger: false, logLevel: 'debug' }))).toBe('');
  });

  it('a bad logLevel is a ConfigurationError at creation', () => {
    expect(() => failing({ logLevel: 'loud' as never })).toThrow(ConfigurationError);
  });
});
