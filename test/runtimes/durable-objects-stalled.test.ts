/**
 * A Durable Object that never answers one call, in workerd through miniflare over real SQLite-backed objects (the
 * "workers" audit, finding 1: such a call held the event to the handler's deadline on every attempt, and the
 * gateway dropped it). Each store's `timeoutMs` fails the call as `DurableObjectStoreError` (`unavailable`,
 * `causeName: 'TimeoutError'`), so the webhook handler's policy applies and a retry asks the object again. The
 * object is the SDK's `WaGatewayDurableObject`, subclassed to hold the calls a text binding names
 * (`apps/stalled-object.ts`); the gateway is the testing kit's sandbox, delivering on the gateway's schedule.
 * Nothing here measures time: each test waits for the delivery's outcome. A last block has the object answer a call
 * with status 500 instead, as another class bound under the name would.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DurableObjectIdempotencyStore,
  type DurableObjectNamespaceLike,
  DurableObjectSessionStore,
  DurableObjectStatusStore,
  type DurableObjectStoreOptions,
  DurableObjectTemplateStore,
  DurableObjectWindowStore,
} from '../../src/durable-objects/index.js';
import { ConfigurationError } from '../../src/index.js';
import { type Sandbox, startSandbox } from '../../src/testing/index.js';
import { textMessage } from '../../src/testing/webhook-fixtures.js';
import { freePort, startWorkers, type WorkerFleet } from '../helpers/workerd.js';
import type { Report, StalledState } from './apps/stalled-object.js';

const app = new URL('./apps/stalled-object.ts', import.meta.url).pathname;
const SECRET = 'wh_stalled_objects_secret_0123456789abcdef';

/** Long enough for the gateway's three attempts of a delivery held to the deadline, so a failure is an assertion's. */
const DELIVERY_TEST_MS = 40_000;

interface World {
  fleet: WorkerFleet;
  sandbox: Sandbox;
}

/**
 * One Worker (its objects stall as `stall` says) and the sandbox it replies through, each given the other's address:
 * started before the describe block's tests, stopped after them.
 */
function stalledWorld(stall: string): () => World {
  let world: World | undefined;
  beforeAll(async () => {
    const port = await freePort();
    const fleet = await startWorkers(app, {
      isolates: 1,
      nodejsCompat: true,
      bindings: {
        GATEWAY_URL: `http://127.0.0.1:${port}`,
        WEBHOOK_SECRET: SECRET,
        STALL: stall,
        // Room for a cold object's first answer on a busy machine (a call past it would add an attempt), and still
        // within the handler's 4 s deadline with the lock's wait on top.
        TIMEOUT_MS: '1500',
        LOCK_WAIT_MS: '500',
      },
    });
    const sandbox = await startSandbox({
      port,
      webhookUrl: `${fleet.urls[0]}/webhook`,
      webhookSecret: SECRET,
      platform: false,
    });
    world = { fleet, sandbox };
  }, 60_000);
  afterAll(async () => {
    await world?.fleet.dispose();
    await world?.sandbox.close();
  });
  return () => world as World;
}

let seq = 0;
const customer = () => `99890${String(1_000_000 + Math.floor(Math.random() * 8_000_000))}`;

/** The sandbox delivers a customer's text as the gateway does (again after a 5xx, three attempts at most). */
async function deliverText(world: World, from: string, body: string) {
  const id = `wamid.STALL${Date.now()}x${++seq}`;
  const attempts = await world.sandbox.injectMessage(textMessage({ id, from, text: { body } }));
  await world.sandbox.idle(); // the reply's statuses too
  const state = (await (await fetch(`${world.fleet.urls[0]}/state`)).json()) as StalledState;
  const replies = world.sandbox.simulator.sent
    .filter((m) => m.to === from)
    .map((m) => (m.body['text'] as { body: string }).body);
  return { id, attempts: attempts.map((a) => [a.status ?? a.error, a.outcome]), state, replies };
}

/** One object call that is never answered, and what the gateway and the Worker then see. */
interface StallCase {
  /** The operation the object holds, its first call only (`STALL`). */
  op: string;
  title: string;
  /** Each attempt's answer and outcome. */
  attempts: unknown[][];
  /** How many times `onEvent` ran for the event (the router's handler, behind the lock, runs once). */
  onEventRuns: number;
  /** The store's operation and the `onError` stage its timeout is reported under. */
  operation: string;
  stage: string;
  /** The handler's log line about it. */
  line: { level: string; message: string };
}

const cases: StallCase[] = [
  {
    op: 'cell.claim',
    title:
      "the dedupe store's first claim, never answered, fails as unavailable within timeoutMs: onStoreUnavailable " +
      "'process' runs the event once and the reply is sent",
    attempts: [[200, 'delivered']],
    onEventRuns: 1,
    operation: 'DurableObjectIdempotencyStore.claim',
    stage: 'dedupe',
    line: { level: 'warn', message: 'running onEvent without deduplication' },
  },
  {
    op: 'lock.take',
    title:
      "the session store's lock.take, never answered once, fails the event with 500 (unavailable), and the " +
      "gateway's retry, answered, processes it once",
    attempts: [
      [500, 'retrying'],
      [200, 'delivered'],
    ],
    onEventRuns: 2,
    operation: 'DurableObjectSessionStore.lock',
    stage: 'onEvent',
    line: { level: 'error', message: 'onEvent failed; answering 500' },
  },
];

describe('Durable Objects stores in workerd: an object that never answers a call', () => {
  for (const stalled of cases) {
    describe(`the object never answers its first ${stalled.op}`, () => {
      const world = stalledWorld(`${stalled.op}:1`);

      it(
        stalled.title,
        async () => {
          const c = customer();
          const { id, attempts, state, replies } = await deliverText(world(), c, 'hello');
          expect(state.stalled).toEqual({ [stalled.op]: 1 }); // the object held this delivery's call
          expect(attempts).toEqual(stalled.attempts);
          expect(state.events.filter((key) => key === id)).toHaveLength(stalled.onEventRuns);
          expect(state.handled).toEqual([`${c}: hello`]);
          expect(replies).toEqual(['echo: hello']);
          // The store's own operation is named, to onError and in the log, not only a deadline passed.
          expect(state.reports).toContainEqual(
            expect.objectContaining({
              stage: stalled.stage,
              name: 'DurableObjectStoreError',
              failure: 'unavailable',
              operation: stalled.operation,
              causeName: 'TimeoutError',
              message: expect.stringContaining('did not answer within'),
            } satisfies Report),
          );
          expect(state.reports.filter((r) => r.stage === 'deadline')).toEqual([]);
          expect(state.logs).toContainEqual({
            level: stalled.line.level,
            message: expect.stringContaining(stalled.line.message),
            errorName: 'DurableObjectStoreError',
          });
        },
        DELIVERY_TEST_MS,
      );
    });
  }
});

describe('timeoutMs is checked when a store is made', () => {
  // Construction only checks the binding's shape; no call reaches it.
  const namespace: DurableObjectNamespaceLike = {
    idFromName: () => ({}),
    get: () => {
      throw new Error('construction calls no object');
    },
  };
  const stores: [string, (options: DurableObjectStoreOptions) => unknown][] = [
    ['DurableObjectIdempotencyStore', (o) => new DurableObjectIdempotencyStore(o)],
    ['DurableObjectSessionStore', (o) => new DurableObjectSessionStore(o)],
    ['DurableObjectWindowStore', (o) => new DurableObjectWindowStore(o)],
    ['DurableObjectStatusStore', (o) => new DurableObjectStatusStore(o)],
    ['DurableObjectTemplateStore', (o) => new DurableObjectTemplateStore(o)],
  ];

  it.each(stores)('new %s refuses a timeoutMs that is not a positive number, naming it', (name, make) => {
    for (const timeoutMs of [0, -1, 'x', Number.NaN, Number.POSITIVE_INFINITY, null]) {
      const build = () => make({ namespace, timeoutMs: timeoutMs as number });
      expect(build).toThrow(ConfigurationError);
      expect(build).toThrow(`new ${name}: \`timeoutMs\` must be a positive number of milliseconds`);
    }
    // Past a timer's longest delay, setTimeout would fire at once and fail every call.
    expect(() => make({ namespace, timeoutMs: 3e9 })).toThrow(
      `new ${name}: \`timeoutMs\` must be at most 2,147,483,647 ms`,
    );
    expect(make({ namespace, timeoutMs: 250 })).toBeDefined();
    expect(make({ namespace, timeoutMs: undefined })).toBeDefined(); // the default
  });
});

describe('Durable Objects stores in workerd: an object that answers a call with status 500', () => {
  // As another class bound under the name would answer (the store's message says what to check).
  const world = stalledWorld('cell.claim:1:500');

  it(
    "a claim answered with 500 fails as unexpected_answer, named in words, and onStoreUnavailable 'process' runs the event once",
    async () => {
      const c = customer();
      const { id, attempts, state, replies } = await deliverText(world(), c, 'hello');
      expect(state.stalled).toEqual({ 'cell.claim': 1 });
      expect(attempts).toEqual([[200, 'delivered']]);
      expect(state.events.filter((key) => key === id)).toHaveLength(1);
      expect(replies).toEqual(['echo: hello']);
      expect(state.reports).toEqual([
        {
          stage: 'dedupe',
          name: 'DurableObjectStoreError',
          failure: 'unexpected_answer',
          operation: 'DurableObjectIdempotencyStore.claim',
          message:
            "DurableObjectIdempotencyStore.claim: the Durable Object answered with status 500. Is the binding's " +
            'class WaGatewayDurableObject, from the same version of wa-gateway-sdk as this Worker?',
        } satisfies Report,
      ]);
      expect(state.logs).toContainEqual({
        level: 'warn',
        message: expect.stringContaining('running onEvent without deduplication'),
        errorName: 'DurableObjectStoreError',
      });
    },
    DELIVERY_TEST_MS,
  );
});
