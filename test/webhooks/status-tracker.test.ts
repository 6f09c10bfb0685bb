import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { statusEnvelope, statusObject } from '../../src/testing/webhook-fixtures.js';
import {
  parseWebhook,
  type StatusEvent,
  StatusTracker,
  type WebhookStatus,
} from '../../src/webhooks/index.js';

const W = 'wamid.tracked';
const pricing = (billable: boolean) => ({ billable, pricing_model: 'PMP', category: 'utility' });

function status(value: string, ts: number, extra: Partial<WebhookStatus> = {}): WebhookStatus {
  return statusObject(value, { id: W, timestamp: String(ts), ...extra });
}

describe('StatusTracker', () => {
  it('moves forward through sent, delivered, read and reports each change', () => {
    const onChange = vi.fn();
    const tracker = new StatusTracker({ onChange });
    const r1 = tracker.update(status('sent', 100));
    expect(r1).toMatchObject({
      changed: true,
      previous: undefined,
      current: { status: 'sent', timestamp: 100 },
    });
    const r2 = tracker.update(status('delivered', 101));
    expect(r2.changed).toBe(true);
    expect(r2.previous?.status).toBe('sent');
    expect(r2.current).toMatchObject({ status: 'delivered', delivered: true, sentAt: 100, deliveredAt: 101 });
    tracker.update(status('read', 105));
    expect(tracker.get(W)).toMatchObject({ status: 'read', readAt: 105, timestamp: 105 });
    expect(onChange).toHaveBeenCalledTimes(3);
    expect(onChange.mock.calls.map(([r]) => r.current.status)).toEqual(['sent', 'delivered', 'read']);
  });

  it('never moves back: a late sent after delivered changes nothing but records sentAt', () => {
    const tracker = new StatusTracker();
    tracker.update(status('delivered', 101, { pricing: pricing(false) }));
    const late = tracker.update(status('sent', 100));
    expect(late.changed).toBe(false);
    expect(late.current).toMatchObject({ status: 'delivered', sentAt: 100, deliveredAt: 101 });
  });

  it('ignores duplicates, keeping the earliest timestamp of a state', () => {
    const tracker = new StatusTracker();
    tracker.update(status('delivered', 105));
    const dup = tracker.update(status('delivered', 103));
    expect(dup.changed).toBe(false);
    expect(tracker.get(W)).toMatchObject({
      status: 'delivered',
      deliveredAt: 103,
      timestamp: 103,
      events: 2,
    });
  });

  it('read before delivered: read implies delivered; the late delivered fills in time and billing', () => {
    const tracker = new StatusTracker();
    const read = tracker.update(status('read', 110));
    expect(read.current).toMatchObject({
      status: 'read',
      delivered: true,
      deliveredAt: undefined,
      billable: false,
    });
    const delivered = tracker.update(status('delivered', 108));
    expect(delivered.changed).toBe(false);
    expect(delivered.newlyBillable).toBe(true);
    expect(delivered.current).toMatchObject({ status: 'read', deliveredAt: 108, billable: true });
    expect(tracker.billableCount).toBe(1);
  });

  it('failed is final, and replaces any state', () => {
    const tracker = new StatusTracker();
    tracker.update(status('sent', 100));
    const failed = tracker.update(status('failed', 101));
    expect(failed.changed).toBe(true);
    expect(failed.current?.errors?.[0]?.code).toBe(131026);
    for (const later of ['sent', 'delivered', 'read']) {
      expect(tracker.update(status(later, 200)).changed).toBe(false);
    }
    expect(tracker.get(W)?.status).toBe('failed');
  });

  it('counts billable deliveries once per message, however often redelivered', () => {
    const tracker = new StatusTracker();
    tracker.update(statusObject('delivered', { id: 'a', pricing: pricing(true) }));
    tracker.update(statusObject('delivered', { id: 'a', pricing: pricing(true) }));
    tracker.update(statusObject('delivered', { id: 'b', pricing: pricing(false) }));
    tracker.update(statusObject('sent', { id: 'c', pricing: pricing(true) }));
    expect(tracker.billableCount).toBe(1);
    expect(tracker.get('a')?.billable).toBe(true);
    expect(tracker.get('b')?.billable).toBe(false);
    expect(tracker.get('c')?.billable).toBe(false);
  });

  it('accepts parsed status events (with their parsed timestamp) and ignores unknown status values', () => {
    const tracker = new StatusTracker();
    const [event] = parseWebhook(JSON.stringify(statusEnvelope(status('sent', 321)))) as StatusEvent[];
    expect(tracker.update(event!).current?.timestamp).toBe(321);
    const unknown = tracker.update(status('deleted', 400));
    expect(unknown).toMatchObject({ changed: false, ignored: 'unknown_status' });
    expect(tracker.get(W)?.status).toBe('sent');
    expect(new StatusTracker().update(status('warning', 1)).current).toBeUndefined();
  });

  it('bounds memory: evicts the least recently updated message', () => {
    const tracker = new StatusTracker({ maxEntries: 2 });
    tracker.update(statusObject('sent', { id: 'a' }));
    tracker.update(statusObject('sent', { id: 'b' }));
    tracker.update(statusObject('delivered', { id: 'a' }));
    tracker.update(statusObject('sent', { id: 'c' }));
    expect(tracker.size).toBe(2);
    expect(tracker.get('b')).toBeUndefined();
    expect([...tracker.entries()].map(([k]) => k)).toEqual(['a', 'c']);
  });

  it('any arrival order of the same events gives the same final state (property)', () => {
    const eventArb = fc.record({
      id: fc.constantFrom('m1', 'm2', 'm3'),
      status: fc.constantFrom('sent', 'delivered', 'read', 'failed', 'deleted'),
      ts: fc.integer({ min: 1, max: 50 }),
      billable: fc.boolean(),
    });
    fc.assert(
      fc.property(fc.array(eventArb, { maxLength: 30 }), fc.nat(), (events, seed) => {
        const shuffled = [...events];
        let s = seed;
        for (let i = shuffled.length - 1; i > 0; i--) {
          s = (s * 1103515245 + 12345) % 2 ** 31;
          const j = s % (i + 1);
          [shuffled[i], shuffled[j]] = [shuffled[j]!, shuffled[i]!];
        }
        const snapshot = (list: typeof events) => {
          const t = new StatusTracker();
          for (const e of list) {
            t.update({
              id: e.id,
              status: e.status,
              timestamp: String(e.ts),
              recipient_id: '15550001111',
              pricing: pricing(e.billable),
            });
          }
          return {
            billable: t.billableCount,
            entries: [...t.entries()]
              .map(([k, v]) => ({
                k,
                status: v.status,
                timestamp: v.timestamp,
                sentAt: v.sentAt,
                deliveredAt: v.deliveredAt,
                readAt: v.readAt,
                failedAt: v.failedAt,
                delivered: v.delivered,
                billable: v.billable,
              }))
              .sort((a, b) => a.k.localeCompare(b.k)),
          };
        };
        expect(snapshot(shuffled)).toEqual(snapshot(events));
      }),
      { numRuns: 300 },
    );
  });
});
