/**
 * The rule for required (docs/webhooks.md, "What is required"), held field by field over the corpus of real bodies:
 * every field of every message, status, template and account update in test/webhooks/corpus/ is deleted in turn, and
 * the event must keep its kind and type unless the field is in the rule's list of required fields below. And each
 * field of that list, deleted where a body carries it, does make the item `unknown`: the list is no wider than what
 * the schemas require.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseWebhook, type WebhookEvent } from '../../src/webhooks/index.js';

type Json = Record<string, unknown>;

/** Required paths per item kind, indices written `N`, `<type>` for the message's content object. */
const REQUIRED: Record<string, readonly string[]> = {
  message: [
    'id',
    'type',
    'timestamp',
    '<type>',
    'text.body',
    'image.id',
    'video.id',
    'audio.id',
    'document.id',
    'sticker.id',
    'location.latitude',
    'location.longitude',
    'reaction.message_id',
    'contacts.N.name',
    'contacts.N.name.formatted_name',
    'order.product_items',
    'order.product_items.N.product_retailer_id',
    'order.product_items.N.quantity',
    'interactive.type',
    'interactive.button_reply',
    'interactive.button_reply.id',
    'interactive.button_reply.title',
    'interactive.list_reply',
    'interactive.list_reply.id',
    'interactive.list_reply.title',
    'button.payload',
    'button.text',
  ],
  statuses: ['id', 'status', 'timestamp', 'errors.N.code', 'errors.N.title'],
  message_template_status_update: ['event', 'message_template_id'],
  account_update: ['event'],
};

const dir = new URL('../webhooks/corpus/', import.meta.url);
const bodies = readdirSync(dir)
  .filter((f) => f.endsWith('.json'))
  .flatMap((f) =>
    (
      JSON.parse(readFileSync(new URL(f, dir), 'utf8')) as { payloads: { name: string; body: Json }[] }
    ).payloads.map((p) => ({ name: `${f}:${p.name}`, body: p.body })),
  );

function summary(event: WebhookEvent | undefined): string {
  if (event === undefined) return 'none';
  if (event.kind === 'message') {
    const m = event.message;
    if (m.type !== 'interactive') return `message:${m.type}`;
    return `message:interactive/${m.interactive.type}`;
  }
  return event.kind;
}

/** Every object key path inside `value`, depth first. */
function paths(value: unknown, prefix: (string | number)[] = []): (string | number)[][] {
  if (value === null || typeof value !== 'object') return [];
  const out: (string | number)[][] = [];
  const entries: [string | number, unknown][] = Array.isArray(value)
    ? value.map((v, i) => [i, v])
    : Object.entries(value as Json);
  for (const [key, child] of entries) {
    const path = [...prefix, key];
    if (!Array.isArray(value)) out.push(path);
    out.push(...paths(child, path));
  }
  return out;
}

/** The items a body's events come from, with where each sits and what kind of item it is. */
function items(body: Json): { at: (string | number)[]; kind: string; item: Json }[] {
  const out: { at: (string | number)[]; kind: string; item: Json }[] = [];
  (body['entry'] as Json[]).forEach((entry, i) => {
    (entry['changes'] as Json[]).forEach((change, j) => {
      const field = change['field'] as string;
      const value = change['value'] as Json;
      const at = ['entry', i, 'changes', j, 'value'];
      if (field !== 'messages') {
        if (field in REQUIRED) out.push({ at, kind: field, item: value });
        return;
      }
      for (const key of ['messages', 'statuses'] as const) {
        ((value[key] as Json[] | undefined) ?? []).forEach((item, k) => {
          out.push({ at: [...at, key, k], kind: key === 'messages' ? 'message' : key, item });
        });
      }
    });
  });
  return out;
}

function pattern(path: (string | number)[], item: Json): string {
  const type = item['type'];
  return path
    .map((seg, i) => (typeof seg === 'number' ? 'N' : i === 0 && seg === type ? '<type>' : seg))
    .join('.')
    .replace(/^<type>\./, `${String(type)}.`);
}

function without(body: Json, at: (string | number)[], path: (string | number)[]): Json {
  const copy = structuredClone(body);
  let node: unknown = copy;
  for (const seg of [...at, ...path.slice(0, -1)]) node = (node as Json)[seg as string];
  delete (node as Json)[path.at(-1) as string];
  return copy;
}

describe('the rule for required, field by field over the corpus', () => {
  it('deleting a field outside the list never changes an event; deleting one inside it makes it unknown', () => {
    const demotedOutside: string[] = [];
    const keptInside: string[] = [];
    let checked = 0;
    for (const { name, body } of bodies) {
      const before = parseWebhook(body).map(summary);
      // Only typed items: an unknown one has nothing to lose.
      const all = items(body);
      all.forEach(({ at, kind, item }) => {
        const index = all.findIndex((x) => x.at.join('.') === at.join('.'));
        const typed = !before[index]?.startsWith('unknown') && before[index] !== 'message:unknown';
        if (!typed) return;
        for (const path of paths(item)) {
          const key = pattern(path, item);
          const after = summary(parseWebhook(without(body, at, path))[index]);
          checked++;
          const required = REQUIRED[kind]!.includes(key);
          if (!required && after !== before[index]) demotedOutside.push(`${name} ${kind} ${key}: ${after}`);
          if (required && after === before[index]) keptInside.push(`${name} ${kind} ${key}`);
        }
      });
    }
    expect(checked).toBeGreaterThan(500);
    expect(demotedOutside).toEqual([]);
    expect(keptInside).toEqual([]);
  });
});
