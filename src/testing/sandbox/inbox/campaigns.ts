/**
 * The inbox's campaign funnels: what a `CampaignTracker` given to the sandbox (`startSandbox({ campaigns })`)
 * reports, pushed to open pages whenever it changes. The tracker is read after each webhook delivery attempt
 * (the application has applied the status by the time it answers) and after each send; reads are coalesced, so
 * a burst of events costs one report per campaign.
 */
import type { CampaignTracker } from '../../../campaigns/tracker.js';
import type { Sandbox } from '../types.js';
import type { InboxCampaign, StreamEvent } from './protocol.js';

export interface CampaignWatch {
  /** The funnels last read, for a page that opens now; `undefined` before the first read. */
  latest(): InboxCampaign[] | undefined;
  close(): void;
}

/** How often the funnels are read again while nothing happens: a batch's last results land after its sends. */
const IDLE_REFRESH_MS = 1000;

export function watchCampaigns(
  tracker: CampaignTracker,
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
        const next = await read(tracker);
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

async function read(tracker: CampaignTracker): Promise<InboxCampaign[]> {
  const out: InboxCampaign[] = [];
  for (const id of (await tracker.campaigns()).sort()) {
    const r = await tracker.report(id);
    if (!r) continue;
    out.push({
      id,
      funnel: r.funnel,
      billable: r.billable,
      failures: r.failures.map((f) => ({ code: f.code, count: f.count })),
    });
  }
  return out;
}
