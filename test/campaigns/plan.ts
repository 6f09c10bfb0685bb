/** The campaign the tests send: who is refused, who fails and how, and the report that must follow. */
import { expect } from 'vitest';
import type { CampaignTracker, OutboundMessage } from '../../src/index.js';
import type { Sandbox } from '../../src/testing/index.js';

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
        // GW_001 (a closed window): the upstream refused it, so it certainly did not go out.
        notSent: invalid.size + closed.size,
        maybeSent: 0,
      },
      billable: accepted - failed,
      // Not the GW_001 refusals: the same message would meet the same answer.
      retries: [
        ...[...invalid].map((i) => `not_sent:${to(i)}`),
        ...[...failRetryable].map((i) => `failed:${to(i)}`),
      ].sort(),
    },
  };
}

type Plan = ReturnType<typeof campaignPlan>;

/** Arms the sandbox's faults for `plan`: closed windows (GW_001), failed recipients, duplicated reversed statuses. */
export function armFaults(sandbox: Sandbox, plan: Plan): void {
  for (const i of plan.closed) sandbox.simulator.closedWindows.add(plan.to(i));
  for (const i of plan.failRetryable)
    sandbox.faults.failRecipients.set(plan.to(i), { code: 131026, title: 'Message undeliverable' });
  for (const i of plan.failFinal)
    sandbox.faults.failRecipients.set(plan.to(i), { code: 131051, title: 'Unsupported message type' });
  sandbox.faults.statusOrder = 'reversed';
  sandbox.faults.duplicateStatuses = true;
}

/** The report of `campaign` equals what `plan` makes happen, count for count and recipient for recipient. */
export async function expectReport(tracker: CampaignTracker, campaign: string, plan: Plan): Promise<void> {
  const report = await tracker.report(campaign);
  expect(report?.funnel).toEqual(plan.expected.funnel);
  expect(report?.billable).toBe(plan.expected.billable);
  expect(report?.latest).toEqual({
    accepted: 0,
    sent: 0,
    delivered: 0,
    read: plan.expected.funnel.read,
    failed: plan.expected.funnel.failed,
  });
  const failures = Object.fromEntries(report!.failures.map((f) => [f.code, f.count]));
  expect(failures).toEqual({ '131026': plan.failRetryable.size, '131051': plan.failFinal.size });
  for (const f of report!.failures) expect(f.exampleWamid).toMatch(/^wamid\./);
  const refusals = Object.fromEntries(report!.refusals.map((r) => [r.code, [r.count, r.notSent]]));
  expect(refusals).toEqual({
    MessageValidationError: [plan.invalid.size, plan.invalid.size],
    GW_001: [plan.closed.size, plan.closed.size],
  });
  const retries: string[] = [];
  for await (const r of report!.retries()) retries.push(`${r.reason}:${r.to}`);
  expect(retries.sort()).toEqual(plan.expected.retries);
  expect(report?.firstEventAt).not.toBeNull();
  expect(Date.parse(report!.lastEventAt!)).toBeGreaterThanOrEqual(Date.parse(report!.firstEventAt!));
}
