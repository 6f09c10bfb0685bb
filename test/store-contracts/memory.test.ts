/**
 * The store contracts on the in-memory stores, the defaults: one process, so every "instance" is the one store
 * (the tests of what only shared stores do, such as a dead holder's lease, do not apply).
 */
import { describe } from 'vitest';
import { MemorySessionStore, MemoryWindowStore } from '../../src/conversations/index.js';
import { MemoryTemplateStore } from '../../src/index.js';
import {
  MemoryIdempotencyStore,
  type StatusChange,
  StatusTracker,
  type WebhookStatus,
} from '../../src/webhooks/index.js';
import { LOCK_WAIT_MS, type StatusesUnderTest, type StoreBackend } from './backend.js';
import { storeContracts } from './contracts.js';
import { saveOdd } from './odd-sessions.js';

function memoryBackend(): StoreBackend {
  const dedupe = new MemoryIdempotencyStore();
  const sessions = new MemorySessionStore({ lockWaitMs: LOCK_WAIT_MS });
  const window = new MemoryWindowStore();
  const templates = new MemoryTemplateStore();
  const changes: string[] = [];
  let failures = 0;
  let inFailingChange: WebhookStatus | undefined;
  const tracker: StatusTracker = new StatusTracker({
    onChange: (change: StatusChange) => {
      if (failures > 0) {
        failures--;
        const other = inFailingChange;
        inFailingChange = undefined;
        if (other) tracker.update(other);
        throw new Error('onChange failed on purpose');
      }
      changes.push(change.current.status);
    },
  });
  const statuses: StatusesUnderTest = {
    update: async (input) => tracker.update(input),
    get: async (wamid) => tracker.get(wamid),
    delete: async (wamid) => tracker.delete(wamid),
    changes: async () => [...changes],
    billableCount: async () => tracker.billableCount,
    hostileUpdate: async (wamid) =>
      tracker.update({
        id: wamid,
        get status(): string {
          throw new Error('boom');
        },
      } as never),
  };
  return {
    name: 'memory',
    shared: false,
    dedupe: () => dedupe,
    sessions: () => sessions,
    window: () => window,
    statuses: (options) => {
      failures += options?.failChanges ?? 0;
      inFailingChange = options?.inFailingChange;
      const since = changes.length; // what this handle's "instance" saw: the one tracker's changes from now on
      return { ...statuses, changes: async () => changes.slice(since) };
    },
    templates: () => templates,
    saveOdd: (key, kind, via) => saveOdd(sessions, key, kind, via),
  };
}

describe('store contracts: memory', () => {
  storeContracts(memoryBackend());
});
