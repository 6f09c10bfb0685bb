import { describe, expect, it } from 'vitest';
import { waitingOf } from '../../src/campaigns/queue-status.js';

describe('waitingOf: why a running campaign waits, from its stored deadlines and Redis’s clock', () => {
  const now = Date.UTC(2026, 10, 28, 12, 0, 0);
  const iso = (ms: number) => new Date(ms).toISOString();

  it.each([
    ['never held', 0, 0, undefined],
    ['held, the hold over', now - 1, 0, undefined],
    ['a hold ending now is over', now, now, undefined],
    ['a RATE_001 hold ahead', now + 3_000, 0, { reason: 'rate_limit', until: iso(now + 3_000) }],
    ['replicas short', 0, now + 2_200, { reason: 'replicas', until: iso(now + 2_200) }],
    ['both: the later one', now + 3_000, now + 2_200, { reason: 'rate_limit', until: iso(now + 3_000) }],
    ['both: replicas later', now + 1_000, now + 2_200, { reason: 'replicas', until: iso(now + 2_200) }],
    [
      'replicas short, a past hold',
      now - 5_000,
      now + 2_200,
      { reason: 'replicas', until: iso(now + 2_200) },
    ],
  ])('%s', (_, heldUntil, replicasUntil, expected) => {
    expect(waitingOf(heldUntil, replicasUntil, now)).toEqual(expected);
  });
});
