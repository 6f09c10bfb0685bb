import { isUuid } from '../../platform/fields.js';
import { STREAM_MESSAGE_TYPES, STREAM_SENDERS } from '../../platform/stream.schema.js';
import { type Answer, booleanParam, detail, enumParam, type Route, type RouteContext } from './answer.js';
import { DAY_MS, instantMicros, orderOf } from './dates.js';
import type { World } from './world.js';

/** The longest range of one stream request. */
const STREAM_MAX_SPAN_US = 7 * DAY_MS * 1000;

/**
 * `GET {stream_url}/stream/messages/`: NDJSON in `created_at` order with the filters, exclusive bounds to the
 * microsecond, the one-week limit and the record cap.
 */
export function streamRoutes(world: World): Route[] {
  const stream = ({ query }: RouteContext): Answer => {
    const refuse = (text: string) => detail(400, text);
    const type = enumParam(query, 'type', STREAM_MESSAGE_TYPES, refuse);
    const sender = enumParam(query, 'sender', STREAM_SENDERS, refuse);
    const uuidParam = (name: string) => {
      const value = query.get(name);
      if (value !== null && !isUuid(value)) throw refuse(`${name} must be a UUID.`);
      return value?.toLowerCase();
    };
    const channel = uuidParam('channel');
    const conversationUuid = uuidParam('conversation_uuid');
    const withCustomer = booleanParam(query, 'conversation_customer', refuse) ?? false;
    const bound = (name: string): number | undefined => {
      const value = query.get(name);
      if (value === null) return undefined;
      const us = instantMicros(value);
      if (Number.isNaN(us)) throw refuse(`${name} must be an ISO 8601 date-time.`);
      return us;
    };
    const gt = bound('created_at__gt');
    const lt = bound('created_at__lt');
    if (gt !== undefined && lt !== undefined && lt - gt > STREAM_MAX_SPAN_US) {
      throw refuse('The date range may span at most one week.');
    }
    const selected = world.state.streamRecords
      .map((record) => ({ record, us: instantMicros(record.created_at) }))
      .filter(({ record: r, us }) => {
        if (gt !== undefined && !(us > gt)) return false;
        if (lt !== undefined && !(us < lt)) return false;
        if (type !== undefined && r.type !== type) return false;
        if (sender === 'agent' && r.agent === null) return false;
        if (sender === 'customer' && r.agent !== null) return false;
        if (channel !== undefined && r.channel.uuid.toLowerCase() !== channel) return false;
        return conversationUuid === undefined || r.conversation.uuid.toLowerCase() === conversationUuid;
      })
      .sort((a, b) => orderOf(a.us) - orderOf(b.us) || a.record.id - b.record.id)
      .slice(0, world.streamCap)
      .map(({ record }) => {
        if (withCustomer || record.conversation.customer === undefined) return record;
        const { customer: _customer, ...rest } = record.conversation;
        return { ...record, conversation: rest };
      });
    return { status: 200, ndjson: selected };
  };

  return [{ host: 'stream', method: 'GET', path: '/stream/messages/', handle: stream }];
}
