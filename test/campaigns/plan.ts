/** The campaign the tests send: who is refused, who fails and how, and the report that must follow. */
import type { OutboundMessage } from '../../src/index.js';

/** The plan of a campaign of `n` messages: which are invalid, refused, failed (and with which code). */
export function campaignPlan(n: number, offset = 0) {
  const to = (i: number) => `99890${String(offset + i).padStart(7, '0')}`;
  const invalid = new Set<number>();
  const closed = new Set<number>();
  const failRetryable = new Set<number>();
  const failFinal = new Set<number>();
  for (let i = 0; i < n; i++) {
    if (i % 17 === 3) invalid.add(i);
    else if (i % 13 === 5) closed.add(i);
    else if (i % 11 === 7) failRetryable.add(i);
    else if (i % 19 === 2) failFinal.add(i);
  }
  const messages: OutboundMessage[] = Array.from({ length: n }, (_, i) => ({
    to: to(i),
    type: 'text',
    text: { body: invalid.has(i) ? '' : `Spring sale ${i}` },
  }));
  const accepted = n - invalid.size - closed.size;
  const failed = failRetryable.size + failFinal.size;
  return {
    to,
    messages,
    invalid,
    closed,
    failRetryable,
    failFinal,
    expected: {
      funnel: {
        accepted,
        sent: accepted - failed,
        delivered: accepted - failed,
        read: accepted - failed,
        failed,
        notSent: invalid.size,
        maybeSent: closed.size,
      },
      billable: accepted - failed,
      retries: [
        ...[...invalid].map((i) => `not_sent:${to(i)}`),
        ...[...failRetryable].map((i) => `failed:${to(i)}`),
      ].sort(),
    },
  };
}
