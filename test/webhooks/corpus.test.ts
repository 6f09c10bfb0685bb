/**
 * The corpus of real webhook bodies (issue 22): every body other projects publish as a delivery of the upstream
 * platform, run through `parseWebhook` and the handler. Each corpus file cites its repository, commit and path
 * (test/webhooks/corpus/README.md); each body carries the events a user expects (`expect`), and, where a documented
 * type is not typed, why (`why`).
 *
 * Beyond the kinds, every event is held to the raw body it came from, read here without the SDK: the wamid, the
 * content a handler reads first for its type, who it is from or to, and the tracker's verdict for statuses.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  createWebhookHandler,
  customerOf,
  isReactionRemoved,
  MESSAGE_TYPES,
  parseWebhook,
  STATUS_VALUES,
  StatusTracker,
  type WebhookEvent,
} from '../../src/webhooks/index.js';

type Json = Record<string, unknown>;
interface Payload {
  name: string;
  path: string;
  key: string;
  expect: string[];
  why?: string;
  body: Json;
}
interface Corpus {
  source: { repo: string; commit: string; license: string; url: string; what: string };
  payloads: Payload[];
}

const dir = new URL('./corpus/', import.meta.url);
const corpora = readdirSync(dir)
  .filter((f) => f.endsWith('.json'))
  .map((f) => ({ file: f, ...(JSON.parse(readFileSync(new URL(f, dir), 'utf8')) as Corpus) }));
const cases = corpora.flatMap((c) => c.payloads.map((p) => ({ corpus: c.file, ...p })));

/** What a user sees first of an event: its kind, and the type, kind or value it is routed by. */
function summary(event: WebhookEvent): string {
  switch (event.kind) {
    case 'message': {
      const m = event.message;
      if (m.type === 'unknown') return `message:unknown(${m.originalType})`;
      if (m.type !== 'interactive') return `message:${m.type}`;
      const i = m.interactive;
      return `message:interactive/${i.type === 'unknown' ? `unknown(${i.originalType})` : i.type}`;
    }
    case 'status':
      return `status:${event.status.status}`;
    case 'template_status':
      return `template_status:${event.template.event}`;
    case 'account_update':
      return `account_update:${event.account.event}`;
    default:
      return `unknown:${event.reason}(${event.field})`;
  }
}

/** The raw items of a body, in the order `parseWebhook` yields events: one per message or status, else per change. */
function rawItems(body: Json): { field: string; item: Json; contacts: Json[] }[] {
  const out: { field: string; item: Json; contacts: Json[] }[] = [];
  for (const entry of body['entry'] as Json[]) {
    for (const change of entry['changes'] as Json[]) {
      const field = change['field'] as string;
      const value = change['value'] as Json;
      if (field !== 'messages') {
        out.push({ field, item: value, contacts: [] });
        continue;
      }
      const contacts = (value['contacts'] as Json[] | undefined) ?? [];
      for (const key of Object.keys(value)) {
        if (key !== 'messages' && key !== 'statuses') continue;
        for (const item of value[key] as Json[]) out.push({ field: key, item, contacts });
      }
    }
  }
  return out;
}

const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : undefined);

/** Who the raw item is about, read without the SDK: the message's sender (or its contact), the status's recipient. */
function rawCustomerKey(field: string, item: Json, contacts: Json[]): string | undefined {
  if (field === 'statuses') return str(item['recipient_id']) ?? str(item['recipient_user_id']);
  const contact =
    contacts.find((c) => c['wa_id'] !== undefined && c['wa_id'] === item['from']) ??
    contacts.find((c) => c['user_id'] !== undefined && c['user_id'] === item['from_user_id']) ??
    contacts[0];
  return (
    str(item['from']) ?? str(contact?.['wa_id']) ?? str(item['from_user_id']) ?? str(contact?.['user_id'])
  );
}

/** The typed fields a handler of each message type reads first, held to the raw message. */
function checkMessageContent(event: Extract<WebhookEvent, { kind: 'message' }>, raw: Json): void {
  const m = event.message;
  expect(m.id).toBe(raw['id']);
  expect(event.idempotencyKey).toBe(raw['id']);
  if (m.type === 'unknown') {
    expect(m.originalType).toBe(raw['type']);
    expect(m.raw).toEqual(raw);
    return;
  }
  const content = raw[m.type] as Json;
  switch (m.type) {
    case 'text':
      expect(m.text.body).toBe(content['body']);
      break;
    case 'image':
      expect(m.image.id).toBe(content['id']);
      break;
    case 'video':
      expect(m.video.id).toBe(content['id']);
      break;
    case 'audio':
      expect(m.audio.id).toBe(content['id']);
      break;
    case 'document':
      expect(m.document.id).toBe(content['id']);
      break;
    case 'sticker':
      expect(m.sticker.id).toBe(content['id']);
      break;
    case 'location':
      expect([m.location.latitude, m.location.longitude]).toEqual([
        content['latitude'],
        content['longitude'],
      ]);
      break;
    case 'button':
      expect([m.button.payload, m.button.text]).toEqual([content['payload'], content['text']]);
      expect(m.context?.id).toBe((raw['context'] as Json | undefined)?.['id']);
      break;
    case 'reaction':
      expect(m.reaction.message_id).toBe(content['message_id']);
      expect(isReactionRemoved(m)).toBe(!content['emoji']);
      break;
    case 'contacts':
      expect(m.contacts.map((c) => c.name.formatted_name)).toEqual(
        (raw['contacts'] as Json[]).map((c) => (c['name'] as Json)['formatted_name']),
      );
      break;
    case 'order':
      expect(m.order.product_items.map((i) => i.product_retailer_id)).toEqual(
        (content['product_items'] as Json[]).map((i) => i['product_retailer_id']),
      );
      break;
    case 'interactive': {
      const i = m.interactive;
      if (i.type === 'unknown') {
        expect(i.originalType).toBe(content['type']);
        expect(i.raw).toEqual(content);
      } else if (i.type === 'button_reply') {
        expect(i.button_reply.id).toBe((content['button_reply'] as Json)['id']);
      } else {
        expect(i.list_reply.id).toBe((content['list_reply'] as Json)['id']);
      }
      break;
    }
  }
}

describe('the corpus of real webhook bodies', () => {
  it('holds at least 100 bodies, each source cited by repository, commit and license', () => {
    expect(cases.length).toBeGreaterThanOrEqual(100);
    for (const { source } of corpora) {
      expect(source.repo).toMatch(/^[\w.-]+\/[\w.-]+$/);
      expect(source.commit).toMatch(/^[0-9a-f]{40}$/);
      expect(source.url).toContain(source.commit);
      expect(source.license).not.toBe('');
    }
    expect(new Set(cases.map((c) => `${c.corpus}:${c.name}`)).size).toBe(cases.length);
  });

  it.each(cases)('$corpus $name', ({ body, expect: expected, why }) => {
    const events = parseWebhook(body);
    expect(events.map(summary)).toEqual(expected);
    const items = rawItems(body);
    expect(events).toHaveLength(items.length);
    // Only a documented type that could not be typed needs a reason, and has one.
    const demoted = events.some(
      (e) =>
        (e.kind === 'unknown' && e.reason !== 'unknown_field') ||
        (e.kind === 'message' &&
          e.message.type === 'unknown' &&
          (MESSAGE_TYPES as string[]).includes(e.message.originalType)),
    );
    expect(why !== undefined).toBe(demoted);

    const tracker = new StatusTracker();
    events.forEach((event, i) => {
      const { field, item, contacts } = items[i]!;
      if (event.kind === 'message') {
        checkMessageContent(event, item);
        expect(customerOf(event)?.key).toBe(rawCustomerKey(field, item, contacts));
      } else if (event.kind === 'status') {
        expect(event.status.id).toBe(item['id']);
        expect(event.idempotencyKey).toBe(`${item['id']}:${item['status']}`);
        expect(event.timestamp).toBe(Number(item['timestamp']));
        expect(customerOf(event)?.key).toBe(rawCustomerKey(field, item, contacts));
        const known = (STATUS_VALUES as readonly string[]).includes(item['status'] as string);
        const result = tracker.update(event);
        expect(result.ignored).toBe(known ? undefined : 'unknown_status');
        if (known) expect(tracker.get(item['id'] as string)?.status).toBe(item['status']);
      } else if (event.kind === 'template_status') {
        expect(event.template.message_template_id).toBe(item['message_template_id']);
      } else if (event.kind === 'account_update') {
        expect(event.account).toEqual(item);
      } else {
        expect(event.field).toBe(field);
        expect(event.raw).toEqual(item);
      }
    });
  });

  it('the webhook handler answers 200 to every body and hands onEvent every event', async () => {
    const secret = 'corpus-secret-0123456789abcdefghijklmn';
    const seen: string[] = [];
    const handle = createWebhookHandler({
      secret,
      dedupe: false,
      onEvent: (event) => void seen.push(summary(event)),
    });
    const statuses: number[] = [];
    for (const { body } of cases) {
      const response = await handle(
        new Request('https://hook.test/', {
          method: 'POST',
          headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        }),
      );
      statuses.push(response.status);
    }
    expect(statuses.every((s) => s === 200)).toBe(true);
    expect(seen).toEqual(cases.flatMap((c) => c.expect));
  });
});
