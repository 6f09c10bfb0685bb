import { z } from 'zod';
import { safeCheck } from '../../core/zod.js';
import { uuidSchema } from '../../platform/fields.js';
import { BATCH_SEND_MAX, type MessageItem, sendMessagesBodySchema } from '../../platform/messages.schema.js';
import type { StreamMessage } from '../../platform/stream.schema.js';
import {
  type Answer,
  describeIssues,
  detail,
  ok,
  parseBody,
  type Route,
  type RouteContext,
} from './answer.js';
import { DEFAULT_CHANNEL } from './state.js';
import type { World } from './world.js';

const batchBody = z.looseObject({ message: z.string().min(1), conversations: z.array(uuidSchema).min(1) });

/**
 * `POST /v2/messages/` and `POST /batch_send_message/`: recorded into the state and, unless
 * `echoSentMessages` is off, added to the stream as agent messages.
 */
export function messageRoutes(world: World): Route[] {
  /** Adds what an agent sent to the stream, as the platform records it. */
  const echoSent = (uuid: string, username: string | null, items: readonly MessageItem[]) => {
    if (!world.echoSentMessages) return;
    const previous = world.latestOf(uuid);
    const known = previous?.conversation.customer ?? world.recordsOf(uuid)[0]?.customer ?? null;
    const customer = known && {
      uuid: known.uuid,
      name: known.name ?? null,
      email: known.email ?? null,
      phone_number: known.phone_number ?? null,
    };
    let id = world.state.streamRecords.reduce((max, r) => Math.max(max, r.id), 0);
    const createdAt = new Date(world.now()).toISOString();
    for (const item of items) {
      const { type, data } = streamShapeOf(item);
      world.state.streamRecords.push({
        id: ++id,
        created_at: createdAt,
        conversation: {
          uuid,
          ...(customer ? { customer } : {}),
          is_archived: world.state.archived.has(uuid),
        },
        channel: previous ? { ...previous.channel } : { ...DEFAULT_CHANNEL },
        type,
        agent: username,
        customer: null,
        content: item.content,
        data,
      });
    }
  };

  const send = ({ body, username }: RouteContext): Answer => {
    const result = safeCheck(sendMessagesBodySchema, body);
    if (!result.ok) throw detail(400, describeIssues(result.issues));
    const uuid = world.conversation(result.data.uuid, 400);
    const items = result.data.messages as MessageItem[];
    const list = world.state.sentMessages.get(uuid) ?? [];
    list.push(...items);
    world.state.sentMessages.set(uuid, list);
    echoSent(uuid, username, items);
    return ok(items.length === 1 ? 'Message sent.' : `${items.length} messages sent.`);
  };

  const batchSend = ({ body, username }: RouteContext): Answer => {
    const conversations = body['conversations'];
    if (Array.isArray(conversations) && conversations.length > BATCH_SEND_MAX) {
      throw detail(400, `Too many conversations: at most ${BATCH_SEND_MAX} per request.`);
    }
    const b = parseBody(batchBody, body);
    const uuids = b.conversations.map((u) => u.toLowerCase());
    world.state.batchSends.push({ message: b.message, conversations: uuids, username, at: world.now() });
    for (const uuid of uuids) {
      if (world.conversationExists(uuid)) echoSent(uuid, username, [{ type: 'text', content: b.message }]);
    }
    return { status: 200 };
  };

  return [
    { host: 'platform', method: 'POST', path: '/batch_send_message/', handle: batchSend },
    { host: 'platform', method: 'POST', path: '/v2/messages/', handle: send },
  ];
}

/** How the stream shows an item sent with `/v2/messages/`. */
function streamShapeOf(item: MessageItem): { type: string; data: StreamMessage['data'] } {
  switch (item.type) {
    case 'image':
    case 'video':
    case 'document':
      return { type: 'media', data: { url: item.url, type: item.type } };
    case 'location':
      return { type: 'location', data: { lat: item.lat, lng: item.lng } };
    default:
      return { type: 'text', data: null };
  }
}
