/**
 * `RefusalsSaid`: the campaign worker's rule for BullMQ's one refusal reported twice (of the result, then of the
 * failure BullMQ makes of it). The end-to-end test on a real redis-server (campaign-queue.test.ts, "say the refusal
 * once") cannot always see BullMQ's second report before the worker closes; this holds the rule itself.
 */
import { describe, expect, it } from 'vitest';
import { RefusalsSaid } from '../../src/redis/worker-errors.js';

describe('RefusalsSaid', () => {
  it("says a job's refusal once per run, and again for a later run of the job here", () => {
    const said = new RefusalsSaid(10);
    expect(said.first('job-1')).toBe(true);
    // BullMQ's second report of the same refusal.
    expect(said.first('job-1')).toBe(false);
    expect(said.first('job-2')).toBe(true);
    // The job runs here again: its next refusal is news.
    said.ran('job-1');
    expect(said.first('job-1')).toBe(true);
    expect(said.first('job-1')).toBe(false);
  });

  it('keeps at most `max` jobs, forgetting the oldest', () => {
    const said = new RefusalsSaid(2);
    for (const id of ['a', 'b', 'c']) expect(said.first(id)).toBe(true);
    // 'a' was forgotten to keep two: its next report is said (at worst one line more, never one less).
    expect(said.first('c')).toBe(false);
    expect(said.first('a')).toBe(true);
  });
});
