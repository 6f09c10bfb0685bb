/** The fixture builders' time: now by default (a bot's 24-hour window is open for them), or the time given. */
import { describe, expect, it } from 'vitest';
import { createRouter, MemoryWindowStore } from '../../src/conversations/index.js';
import { ConfigurationError } from '../../src/index.js';
import {
  buttonMessage,
  everyMessageType,
  FIXTURE_TIMESTAMP,
  fixtureTimestamp,
  messageEnvelope,
  statusObject,
  textMessage,
} from '../../src/testing/index.js';
import { parseWebhook } from '../../src/webhooks/index.js';

const nowS = () => Math.floor(Date.now() / 1000);

describe('fixture timestamps', () => {
  it('every message and status builder stamps now unless told otherwise', () => {
    const before = nowS();
    const stamped = [...Object.values(everyMessageType()), statusObject('read'), statusObject('failed')];
    const after = nowS();
    for (const item of stamped) {
      const t = Number((item as { timestamp: string }).timestamp);
      expect(t).toBeGreaterThanOrEqual(before);
      expect(t).toBeLessThanOrEqual(after);
    }
  });

  it('takes a time: as the wire writes it, or from fixtureTimestamp(Date | ms)', () => {
    expect(textMessage({ timestamp: FIXTURE_TIMESTAMP }).timestamp).toBe('1700000000');
    expect(buttonMessage({}, { timestamp: 1714554000 }).timestamp).toBe(1714554000);
    expect(fixtureTimestamp(new Date('2024-05-01T09:00:00.999Z'))).toBe('1714554000');
    expect(fixtureTimestamp(1714554000_999)).toBe('1714554000');
    expect(statusObject('read', { timestamp: fixtureTimestamp(0) }).timestamp).toBe('0');
    for (const bad of [Number.NaN, new Date('nope'), '2024' as never, Number.POSITIVE_INFINITY]) {
      expect(() => fixtureTimestamp(bad)).toThrow(ConfigurationError);
    }
  });

  it('a router guarding the window replies to a fixture message as built, with no time given', async () => {
    const sent: unknown[] = [];
    const router = createRouter({
      gateway: {
        messages: {
          send: async (m) => {
            sent.push(m);
            return { messageId: 'wamid.OUT1' };
          },
        },
      },
      window: new MemoryWindowStore(),
    });
    router.otherwise((ctx) => ctx.reply('hello'));
    for (const event of parseWebhook(messageEnvelope(textMessage()))) await router.handle(event);
    expect(sent).toHaveLength(1);
  });
});
