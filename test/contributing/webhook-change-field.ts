/**
 * "Adding a webhook change field", replayed for `test_only_update` (a change field invented for this test, in the
 * copy only): `value: { event, detail? }`, delivered as an event of kind `test_only_update`.
 *
 * Step 3 gives the field its reader in `changeReaders` (`src/webhooks/parse.ts`), the table keyed by every event's
 * `field`: left out, the table does not compile, as the guide says.
 */
import { after, all, before, create, type WalkThrough } from './replay.js';

const ROUTER = 'src/conversations/router.ts';

const module = `/** The \`test_only_update\` change (invented by the CONTRIBUTING walk-through replay; test only). */
import * as z from '../core/zod.js';

/** \`value\` of a \`test_only_update\` change. */
export const testOnlyUpdateValueSchema = z.looseObject({
  event: z.string().check(z.minLength(1)),
  /** Absent when the update names no detail. */
  detail: z.optional(z.string()),
});
export interface TestOnlyUpdateValue extends z.output<typeof testOnlyUpdateValueSchema> {}
`;

const valueBuilder = `/** A test-only update value (test only). */
export function testOnlyUpdateValue(overrides: Partial<TestOnlyUpdateValue> = {}): TestOnlyUpdateValue {
  return { event: 'TEST_ONLY_EVENT', detail: 'a detail', ...overrides };
}
`;

const envelopeBuilder = `/** An envelope with a \`test_only_update\` change (test only). */
export function testOnlyUpdateEnvelope(
  overrides: Partial<TestOnlyUpdateValue> = {},
  options: { businessAccountId?: string } = {},
): WebhookEnvelope {
  return envelope([entry([change('test_only_update', testOnlyUpdateValue(overrides))], options.businessAccountId)]);
}
`;

const event = `/** A test-only update (invented by the CONTRIBUTING walk-through replay). */
export interface TestOnlyUpdateEvent extends EventBase {
  kind: 'test_only_update';
  field: 'test_only_update';
  update: TestOnlyUpdateValue;
}
`;

const eventBuilder = `function testOnlyUpdateEvent(value: JsonObject, ctx: ChangeContext): WebhookEvent {
  return valueEvent(checkTestOnlyUpdateValue, value, ctx, (update, hash) => ({
    kind: 'test_only_update',
    field: 'test_only_update',
    businessAccountId: ctx.businessAccountId,
    idempotencyKey: 'test_only_update:' + update.event + ':' + hash,
    update,
  }));
}
`;

const parseTest = `describe('parseWebhook: test_only_update', () => {
  it('test_only_update: typed, keyed on its event and content', () => {
    const events = parseWebhook(testOnlyUpdateEnvelope({ event: 'PINGED' }));
    const [event] = events;
    if (event?.kind !== 'test_only_update') throw new Error('expected a test_only_update event');
    expect(event.update).toEqual({ event: 'PINGED', detail: 'a detail' });
    expect(event.idempotencyKey).toMatch(/^test_only_update:PINGED:/);
    expect(parseWebhook(testOnlyUpdateEnvelope({ event: 'PINGED' }))[0]?.idempotencyKey).toBe(event.idempotencyKey);
    expect(parseWebhook(testOnlyUpdateEnvelope({ event: 'PINGED', detail: 'other' }))[0]?.idempotencyKey).not.toBe(
      event.idempotencyKey,
    );
  });
});
`;

const context = `/** A test-only update (invented by the CONTRIBUTING walk-through replay). */
export interface TestOnlyUpdateContext {
  readonly kind: 'test_only_update';
  readonly event: TestOnlyUpdateEvent;
  readonly update: TestOnlyUpdateValue;
}
`;

const routeMethod = `  testOnlyUpdate(handler: (ctx: TestOnlyUpdateContext) => Awaitable): this {
    this.testOnlyRoutes.push(handler);
    return this;
  }

`;

const routerTest = `  it('test_only_update: its own route, and middleware sees it', async () => {
    const { gw } = gateway();
    const router = createRouter({ gateway: gw });
    const seen: string[] = [];
    router.use(async (ctx, next) => {
      seen.push('mw:' + ctx.kind);
      await next();
    });
    router.testOnlyUpdate((ctx) => {
      seen.push('update:' + ctx.update.event);
    });
    await router.handle(one(testOnlyUpdateEnvelope({ event: 'PINGED' })));
    expect(seen).toEqual(['mw:test_only_update', 'update:PINGED']);
  });

`;

const proof = `import { expect, it } from 'vitest';
import type { TestOnlyUpdateEvent as FromMainEntry, TestOnlyUpdateValue } from '../../src/index.js';
import { testOnlyUpdateEnvelope } from '../../src/testing/index.js';
import { parseWebhook, type TestOnlyUpdateEvent, type WebhookEvent } from '../../src/webhooks/index.js';
import { testOnlyUpdateValueSchema } from '../../src/webhooks/schemas.js';

it('parseWebhook yields the new change as its own event, from the public entries', () => {
  const events: WebhookEvent[] = parseWebhook(JSON.stringify(testOnlyUpdateEnvelope({ event: 'PINGED' })));
  expect(events.map((e) => e.kind)).toEqual(['test_only_update']);
  const event = events[0] as TestOnlyUpdateEvent & FromMainEntry;
  const value: TestOnlyUpdateValue = event.update;
  expect(value.event).toBe('PINGED');
  expect(event.field).toBe('test_only_update');
  expect(testOnlyUpdateValueSchema.safeParse(value).success).toBe(true);
});

it('a value without its event is an unknown event, not dropped', () => {
  const [event] = parseWebhook(testOnlyUpdateEnvelope({ event: '' }));
  expect(event).toMatchObject({ kind: 'unknown', reason: 'invalid_item', field: 'test_only_update' });
});
`;

export const webhookChangeField: WalkThrough = {
  section: 'Adding a webhook change field',
  steps: [
    {
      guide: '**1. The schema of its `value`:** `src/webhooks/account-update.ts`',
      file: 'src/webhooks/test-only-update.ts',
      edit: create(module),
    },
    {
      guide: 'with its test builder in `webhook-fixtures.ts`',
      file: 'src/testing/webhook-fixtures.ts',
      edit: after(
        "import type { VideoMessage } from '../webhooks/messages/video.js';",
        "import type { TestOnlyUpdateValue } from '../webhooks/test-only-update.js';",
      ),
    },
    {
      guide: 'with its test builder in `webhook-fixtures.ts`',
      file: 'src/testing/webhook-fixtures.ts',
      edit: before('/** An `audio` message; `voice: true` is a voice note. */', valueBuilder),
    },
    {
      guide: '**2. The event:** its member of the `WebhookEvent` union in `src/webhooks/events.ts`',
      file: 'src/webhooks/events.ts',
      edit: after('  TemplateStatusValue,', '  TestOnlyUpdateValue,'),
    },
    {
      guide: '**2. The event:** its member of the `WebhookEvent` union in `src/webhooks/events.ts`',
      file: 'src/webhooks/events.ts',
      edit: before('/**\n * Part of an envelope the SDK could not type', event),
    },
    {
      guide: '**2. The event:** its member of the `WebhookEvent` union in `src/webhooks/events.ts`',
      file: 'src/webhooks/events.ts',
      edit: after('  | AccountUpdateEvent', '  | TestOnlyUpdateEvent'),
    },
    {
      guide: 'the value schema as a root in `scripts/checkers/targets.ts`',
      file: 'scripts/checkers/targets.ts',
      edit: after(
        "      root('checkAccountUpdateValue', schemas.accountUpdateValueSchema, 'AccountUpdateValue'),",
        "      root('checkTestOnlyUpdateValue', schemas.testOnlyUpdateValueSchema, 'TestOnlyUpdateValue'),",
      ),
    },
    {
      guide: "The field's entry in `changeReaders` (`src/webhooks/parse.ts`, with the import of the checker)",
      file: 'src/webhooks/parse.ts',
      edit: after('  checkTemplateStatusValue,', '  checkTestOnlyUpdateValue,'),
    },
    {
      guide: 'so it does not compile until the event of step 2 has its reader',
      file: 'src/webhooks/parse.ts',
      edit: after(
        '  account_update: (value, ctx, events) => events.push(accountEvent(value, ctx)),',
        '  test_only_update: (value, ctx, events) => events.push(testOnlyUpdateEvent(value, ctx)),',
      ),
      needed: { near: 'const changeReaders', mentions: 'test_only_update' },
    },
    {
      guide: 'Then the builder of the event, whose `idempotencyKey` is what dedup stores see',
      file: 'src/webhooks/parse.ts',
      edit: before('function unknownEvent(', eventBuilder),
    },
    {
      guide: "`export * from './account-update.js'` in `src/webhooks/schemas.ts`",
      file: 'src/webhooks/schemas.ts',
      edit: after("export * from './template-status.js';", "export * from './test-only-update.js';"),
    },
    {
      guide: 'the types (only) by name from `src/webhooks/index.ts`',
      file: 'src/webhooks/index.ts',
      edit: after('  type TemplateStatusEvent,', '  type TestOnlyUpdateEvent,'),
    },
    {
      guide: 'the types (only) by name from `src/webhooks/index.ts`',
      file: 'src/webhooks/index.ts',
      edit: after('  TemplateStatusValue,', '  TestOnlyUpdateValue,'),
    },
    {
      guide: 'the types (only) by name from `src/webhooks/index.ts` and `src/index.ts`',
      file: 'src/index.ts',
      edit: after('  type TemplateStatusValue,', '  type TestOnlyUpdateEvent,\n  type TestOnlyUpdateValue,'),
    },
    {
      guide: 'the envelope builder (`accountUpdateEnvelope`) in `src/testing/webhook-fixtures.ts`',
      file: 'src/testing/webhook-fixtures.ts',
      edit: before('/**\n * Every documented incoming message type, one fixture each', envelopeBuilder),
    },
    {
      guide: "an event in `wa-gateway trigger`'s `EVENTS` (`src/cli/trigger.ts`)",
      file: 'src/cli/trigger.ts',
      edit: after('  templateStatusEnvelope,', '  testOnlyUpdateEnvelope,'),
    },
    {
      guide: "an event in `wa-gateway trigger`'s `EVENTS` (`src/cli/trigger.ts`)",
      file: 'src/cli/trigger.ts',
      edit: after(
        '  account_update: () => accountUpdateEnvelope(),',
        '  test_only_update: () => testOnlyUpdateEnvelope(),',
      ),
    },
    // The reply router.
    {
      guide: 'give the kind a context like `AccountUpdateContext` (`kind`, `event` and the value)',
      file: ROUTER,
      edit: all(
        after('  AccountUpdateEvent,', '  TestOnlyUpdateEvent,'),
        after('  AccountUpdateValue,', '  TestOnlyUpdateValue,'),
        before('/** An event the SDK could not type. */', context),
      ),
    },
    {
      guide: 'add it to `EventContext`',
      file: ROUTER,
      edit: after('  | AccountUpdateContext', '  | TestOnlyUpdateContext'),
    },
    {
      guide: 'its case to `otherContext`',
      file: ROUTER,
      edit: after(
        "      return { kind: 'account_update', event, account: event.account };",
        "    case 'test_only_update':\n      return { kind: 'test_only_update', event, update: event.update };",
      ),
      needed: { near: 'function otherContext', mentions: 'TestOnlyUpdateEvent' },
    },
    {
      guide: 'export it from `src/conversations/index.ts`',
      file: 'src/conversations/index.ts',
      edit: after('  type TemplateStatusContext,', '  type TestOnlyUpdateContext,'),
    },
    {
      guide:
        'add a route method like `accountUpdate(handler)` (in the `Router` interface and `RouterImpl`, with its list of handlers and its branch in `#other`)',
      file: ROUTER,
      edit: all(
        after(
          '  accountUpdate(handler: (ctx: AccountUpdateContext) => Awaitable): this;',
          '  testOnlyUpdate(handler: (ctx: TestOnlyUpdateContext) => Awaitable): this;',
        ),
        after(
          '  readonly accountRoutes: ((ctx: AccountUpdateContext) => Awaitable)[] = [];',
          '  readonly testOnlyRoutes: ((ctx: TestOnlyUpdateContext) => Awaitable)[] = [];',
        ),
        before('  otherwise(handler: MessageHandler<S>): this {', routeMethod),
        after(
          '      for (const handler of this.accountRoutes) await handler(ctx);',
          "    } else if (ctx.kind === 'test_only_update') {\n      for (const handler of this.testOnlyRoutes) await handler(ctx);",
        ),
      ),
    },
    {
      guide: 'tested in `test/conversations/router.test.ts`',
      file: 'test/conversations/router.test.ts',
      edit: all(
        after('  templateStatusEnvelope,', '  testOnlyUpdateEnvelope,'),
        before(
          "  it('routes statuses (failed with its error), template updates and account updates",
          routerTest,
        ),
      ),
    },
    {
      guide:
        'test the new event in `test/webhooks/parse.test.ts` from the fixture, its `idempotencyKey` included',
      file: 'test/webhooks/parse.test.ts',
      edit: after('  templateStatusValue,', '  testOnlyUpdateEnvelope,'),
    },
    {
      guide:
        'test the new event in `test/webhooks/parse.test.ts` from the fixture, its `idempotencyKey` included',
      file: 'test/webhooks/parse.test.ts',
      edit: before("describe('parseWebhook: tolerance', () => {", parseTest),
    },
  ],
  commands: [{ guide: 'then `npm run generate`', command: ['npm', 'run', 'generate'] }],
  tests: [
    'test/webhooks/parse.test.ts',
    'test/conversations/router.test.ts',
    'test/cli/cli.test.ts',
    'test/api-surface.test.ts',
  ],
  newTests: [
    'test_only_update: typed, keyed on its event and content',
    'test_only_update: its own route, and middleware sees it',
  ],
  proof: { file: 'test/walk-through-proofs/webhook-change-field.test.ts', code: proof },
};
