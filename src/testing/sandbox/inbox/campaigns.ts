/**
 * The inbox's campaign funnels: what a `CampaignTracker` given to the sandbox (`startSandbox({ campaigns })`)
 * reports, pushed to open pages whenever it changes. The tracker is read after each webhook delivery attempt
 * (the application has applied the status by the time it answers) and after each send; reads are coalesced, so
 * a burst of events costs one report per campaign.
 */

import type { CampaignQueueStatus, CampaignQueueView } from '../../../campaigns/queue-status.js';
import type { CampaignTracker } from '../../../campaigns/tracker.js';
import type { Sandbox } from '../types.js';
import type { InboxCampaign, InboxCampaignQueue, StreamEvent } from './protocol.js';

/** What the inbox draws campaigns from: a tracker (funnels), or a campaign queue (funnels and the queue, live). */
export type CampaignSource = CampaignTracker | CampaignQueueView;

export interface CampaignWatch {
  /** The funnels last read, for a page that opens now; `undefined` before the first read. */
  latest(): InboxCampaign[] | undefined;
  close(): void;
}

/** How often the funnels are read again while nothing happens: a batch's last results land after its sends. */
const IDLE_REFRESH_MS = 1000;

export function watchCampaigns(
  source: CampaignSource,
  sandbox: Sandbox,
  broadcast: (event: StreamEvent) => void,
): CampaignWatch {
  let latest: InboxCampaign[] | undefined;
  let shown = '';
  let running = false;
  let again = false;
  let closed = false;

  const refresh = async (): Promise<void> => {
    if (running) {
      again = true;
      return;
    }
    running = true;
    try {
      do {
        again = false;
        const next = await read(source);
        const text = JSON.stringify(next);
        latest = next;
        if (text !== shown && !closed) {
          shown = text;
          broadcast({ kind: 'campaigns', campaigns: next });
        }
      } while (again && !closed);
    } catch {
      // A store that cannot be read (Redis down) leaves the last funnels on the page; the next event tries again.
    } finally {
      running = false;
    }
  };
  const unsubscribe = sandbox.observe((event) => {
    if (event.type === 'attempt' || event.type === 'send') void refresh();
  });
  const timer = setInterval(() => void refresh(), IDLE_REFRESH_MS);
  timer.unref();
  void refresh();
  return {
    latest: () => latest,
    close() {
      closed = true;
      clearInterval(timer);
      unsubscribe();
    },
  };
}

async function read(source: CampaignSource): Promise<InboxCampaign[]> {
  const queue = 'status' in source ? source : undefined;
  const tracker = queue ? queue.tracker : (source as CampaignTracker);
  const out: InboxCampaign[] = [];
  for (const id of (await tracker.campaigns()).sort()) {
    const r = await tracker.report(id);
    const status = queue ? await queue.status(id) : undefined;
    // A queued campaign is drawn before its first result: its funnel empty, its queue full.
    if (!r && !status) continue;
    out.push({
      id,
      funnel: r?.funnel ?? {
        accepted: 0,
        sent: 0,
        delivered: 0,
        read: 0,
        failed: 0,
        notSent: 0,
        maybeSent: 0,
      },
      billable: r?.billable ?? 0,
      failures: (r?.failures ?? []).map((f) => ({ code: f.code, count: f.count })),
      ...(status ? { queue: queueView(status) } : {}),
    });
  }
  return out;
}

function queueView(s: CampaignQueueStatus): InboxCampaignQueue {
  return {
    state: s.state,
    hold: s.hold
      ? `${s.hold.code}: ${s.hold.description}`
      : s.waiting
        ? `waiting for ${s.waiting.reason === 'rate_limit' ? "the gateway's rate limit" : 'Redis replicas'} until ${s.waiting.until}`
        : null,
    total: s.total,
    queued: s.queued,
    inFlight: s.inFlight,
    accepted: s.accepted,
    notSent: s.notSent,
    suppressed: s.suppressed,
    inDoubt: s.inDoubt,
  };
}
