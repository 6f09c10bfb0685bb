/**
 * Issue 35, item 2 for the send path: a valid message, send answer or stream record is checked and shaped by the
 * checkers generated from the schemas, and the schemas (`hot(schema)`, zod's parser or its compiled clone) are
 * asked only to explain an input the checker refuses. `hot` is wrapped to count the schemas it hands out; the
 * answers are what the schemas give (test/fuzz/send-checkers.test.ts holds the agreement itself).
 */
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { sendOk } from '../helpers/msw.js';

const asked = vi.hoisted(() => ({ schemas: 0 }));
vi.mock('../../src/core/compiled.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/core/compiled.js')>();
  return {
    ...real,
    hot: <S>(schema: S): S => {
      asked.schemas++;
      return real.hot(schema as never) as S;
    },
  };
});

const { validateMessage } = await import('../../src/gateway/validate-message.js');
const { readSendResponse } = await import('../../src/gateway/send-response.js');
const { fullCheck, lightCheck } = await import('../../src/platform/stream-decoding.js');
const { platformMessageRecord } = await import('../../src/testing/platform/state.js');

const state = {
  delivered: 0,
  last: undefined,
  unit: 1,
  signal: undefined,
  accept: fullCheck,
  progress: () => ({ recordsDelivered: 0 }),
} as unknown as Parameters<typeof fullCheck>[1];

beforeEach(() => {
  asked.schemas = 0;
});

describe('the send path without zod', () => {
  it('checks and shapes a valid message with the generated checker alone', () => {
    const result = validateMessage({ to: '998901234567', type: 'text', text: { body: 'Hi' } });
    expect(result).toEqual({
      valid: true,
      message: { to: '998901234567', type: 'text', text: { body: 'Hi' } },
      issues: [],
    });
    expect(asked.schemas).toBe(0);
  });

  it("asks the schema for a refused message's issues, as users got them before", () => {
    const result = validateMessage({ to: '+998 90', type: 'text', text: { body: '' } });
    expect(result.valid).toBe(false);
    expect(result.issues.map((i) => i.path)).toEqual([['to'], ['text', 'body']]);
    expect(asked.schemas).toBe(1);
  });

  it('reads a send answer with the generated checker alone', () => {
    expect(readSendResponse(sendOk('wamid.1'))).toEqual({
      messageId: 'wamid.1',
      contacts: [{ input: '998901234567', wa_id: '998901234567' }],
    });
    expect(readSendResponse({ isSuccess: true, data: { messages: [] } })).toBeUndefined();
    expect(asked.schemas).toBe(0);
  });

  it('checks a valid stream record (light and full) with the generated checkers alone', () => {
    const record = platformMessageRecord();
    expect(lightCheck(record, state, 'line')).toBe(record);
    expect(fullCheck(record, state, 'line')).toEqual(record);
    expect(asked.schemas).toBe(0);
    expect(() => fullCheck({ ...record, id: 'x' }, state, 'line')).toThrow(/id: invalid_type/);
    expect(asked.schemas).toBe(1);
  });
});
