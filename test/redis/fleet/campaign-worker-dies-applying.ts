/**
 * A campaign worker process (campaign-worker.ts) that dies, SIGKILLed, the moment it starts applying the statuses
 * parked for a send it just recorded: a pod lost between the ledger's step and what follows it. In a worker process
 * the report's `apply` runs for nothing else (the receivers apply the webhooks), so its first call is that moment.
 */
import { CampaignTracker } from '../../../src/campaigns/tracker.js';

CampaignTracker.prototype.apply = () => {
  process.kill(process.pid, 'SIGKILL');
  return new Promise<void>(() => {});
};
await import('./campaign-worker.js');
