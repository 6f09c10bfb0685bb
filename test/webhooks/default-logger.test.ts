import { afterEach, describe, expect, it, vi } from 'vitest';
import { messageEnvelope, textMessage } from '../../src/webhooks/fixtures.js';
import { createWebhookHandler } from '../../src/webhooks/index.js';

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

afterEach(() => vi.restoreAllMocks());

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
