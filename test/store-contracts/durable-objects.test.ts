/**
 * The store contracts on `wa-gateway-sdk/durable-objects`, in workerd through miniflare: the stores run in two
 * Workers (two isolates) and keep their state in real Durable Objects (`WaGatewayDurableObject`), SQLite-backed (what Cloudflare
 * recommends for new classes) and key-value-backed (older namespaces): the stores use the storage API both offer.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWorkers, type WorkerFleet } from '../helpers/workerd.js';
import type { StoreBackend } from './backend.js';
import { storeContracts } from './contracts.js';
import { durableObjectBackend } from './remote.js';

const harness = new URL('./harness/worker.ts', import.meta.url).pathname;

for (const sqlite of [true, false]) {
  const backing = sqlite ? 'SQLite-backed' : 'key-value-backed';
  describe(`store contracts: Durable Objects, ${backing} (workerd, two isolates)`, () => {
    let fleet: WorkerFleet | undefined;
    const urls: string[] = [];
    beforeAll(async () => {
      fleet = await startWorkers(harness, { isolates: 2, sqlite });
      urls.push(...fleet.urls);
    }, 60_000);
    afterAll(async () => {
      await fleet?.dispose();
    });

    it('the harness bundle imports no Node built-in', () => {
      expect(fleet?.bundle.nodeImports).toEqual([]);
    });

    storeContracts(
      durableObjectBackend(`durable-objects (${backing})`, urls, 'contract:') satisfies StoreBackend,
    );
  });
}
