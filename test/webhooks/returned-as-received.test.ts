/**
 * The webhook checkers return a valid item's objects as received (no copy) where the schema would return them
 * unchanged. What that must never cost: a user's own object handed to `parseWebhook` is not what comes back, an
 * own `__proto__` key is still dropped, and an item the schema changes (or refuses) is still a new object.
 */
import { describe, expect, it } from 'vitest';
import type { RawIssue } from '../../src/core/checker-runtime.js';
import { statusEnvelope, statusObject } from '../../src/testing/webhook-fixtures.js';
import { checkEnvelope, checkStatus } from '../../src/webhooks/checkers.generated.js';
import type { StatusEvent } from '../../src/webhooks/events.js';
import { parseWebhook } from '../../src/webhooks/index.js';

function check<T>(
  checker: (input: unknown, issues: RawIssue[]) => T,
  input: unknown,
): { out: T; issues: RawIssue[] } {
  const issues: RawIssue[] = [];
  return { out: checker(input, issues), issues };
}

describe('the webhook checkers on a valid item', () => {
  it('return a parsed status and the objects it holds as they are', () => {
    const status = JSON.parse(JSON.stringify(statusObject('delivered', { id: 'wamid.1' })));
    const { out, issues } = check(checkStatus, status);
    expect(issues).toEqual([]);
    expect(out).toBe(status);
    expect(out.conversation).toBe(status.conversation);
    expect(out.pricing).toBe(status.pricing);
  });

  it('copy an object that holds an own "__proto__" key, without it', () => {
    const status = JSON.parse(
      '{"id":"wamid.1","status":"sent","timestamp":"1700000000","pricing":{"category":"utility","__proto__":{"billable":true}}}',
    );
    const { out, issues } = check(checkStatus, status);
    expect(issues).toEqual([]);
    expect(out).not.toBe(status);
    expect(out.pricing).not.toBe(status.pricing);
    expect(Object.hasOwn(out.pricing ?? {}, '__proto__')).toBe(false);
    expect(Object.getPrototypeOf(out.pricing)).toBe(Object.prototype);
    expect(out.pricing).toStrictEqual({ category: 'utility' });
  });

  it('copy an object of another prototype into a plain one, as zod does', () => {
    const status = Object.assign(Object.create(null), {
      id: 'wamid.1',
      status: 'read',
      timestamp: 1700000000,
    });
    const { out, issues } = check(checkStatus, status);
    expect(issues).toEqual([]);
    expect(out).not.toBe(status);
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
  });

  it('copy an envelope whose change lacks its field (the schema fills it in)', () => {
    const body = { entry: [{ id: '1', changes: [{ value: {} }] }] };
    const { out, issues } = check(checkEnvelope, body);
    expect(issues).toEqual([]);
    expect(out).not.toBe(body);
    expect(out.entry[0]?.changes[0]).toStrictEqual({ field: '', value: {} });
    expect(body.entry[0]?.changes[0]).toStrictEqual({ value: {} });
  });
});

describe('parseWebhook', () => {
  it("never hands back the caller's own objects, now that the checkers return their input", () => {
    const body = statusEnvelope(statusObject('delivered', { id: 'wamid.2' }));
    const [event] = parseWebhook(body) as StatusEvent[];
    const sent = body.entry[0]?.changes[0]?.value as { statuses: object[] };
    expect(event?.status).toStrictEqual(sent.statuses[0]);
    expect(event?.status).not.toBe(sent.statuses[0]);
    expect(event?.status.conversation).not.toBe((sent.statuses[0] as { conversation: object }).conversation);
  });

  it('keeps the delivery’s key order in a status returned as received', () => {
    const text =
      '{"entry":[{"id":"1","changes":[{"field":"messages","value":{"messaging_product":"whatsapp","metadata":{"phone_number_id":"1"},"statuses":[{"timestamp":"1700000000","status":"read","id":"wamid.3"}]}}]}]}';
    const [event] = parseWebhook(text) as StatusEvent[];
    expect(Object.keys(event?.status ?? {})).toEqual(['timestamp', 'status', 'id']);
  });
});
