import { z } from 'zod';
import type { ApiPromise } from '../core/api-promise.js';
import type { RequestOptions } from '../core/call-options.js';
import { requireText } from '../core/errors.js';
import { argumentsCheck, requireUuid, wrapValues } from './arguments.js';
import { type CustomFields, customFieldsSchema } from './fields.js';
import type { DetailResponse, PlatformHttp } from './http.js';

/** The agent of `POST /v2/conversations/assign/`: automatic assignment, or a specific agent by email. */
export const assignAgentSchema = z.union(
  [
    z.strictObject({ auto: z.literal(true) }),
    z.strictObject({ email: z.string().regex(/^[^\s@]+@[^\s@]+$/) }),
  ],
  { error: "agent must be { auto: true } or { email: 'agent@example.com' }" },
);
export type AssignAgent = z.input<typeof assignAgentSchema>;

/** `type` of `POST /v2/conversations/type/`: a type name and its sub-type (or null). */
export const conversationTypeInputSchema = z.strictObject({
  name: z.string().min(1, 'type name is empty'),
  sub: z.string().min(1, 'sub is empty: pass null for no sub-type').nullable().optional(),
});
export type ConversationTypeInput = z.input<typeof conversationTypeInputSchema>;

/** The path of each conversation operation. */
const PATHS = {
  archive: '/v2/conversations/archive/',
  unarchive: '/v2/conversations/unarchive/',
  assign: '/v2/conversations/assign/',
  assignToGroup: '/v2/conversations/assign_to_group/',
  unassign: '/v2/conversations/unassign/',
  setType: '/v2/conversations/type/',
  setCustomFields: '/v2/conversations/custom_fields/',
} as const;

/** Conversation operations: `POST /v2/conversations/...`. Each answers `{ detail }`. */
export class Conversations {
  readonly #http: PlatformHttp;

  /** @internal */
  constructor(http: PlatformHttp) {
    this.#http = http;
  }

  /**
   * Archives a conversation.
   *
   * @example
   * await platform.conversations.archive(conversationUuid);
   */
  archive(uuid: string, options: RequestOptions = {}): ApiPromise<DetailResponse> {
    return this.#post('archive', uuid, options);
  }

  /**
   * Takes a conversation out of the archive.
   *
   * @example
   * await platform.conversations.unarchive(conversationUuid);
   */
  unarchive(uuid: string, options: RequestOptions = {}): ApiPromise<DetailResponse> {
    return this.#post('unarchive', uuid, options);
  }

  /**
   * Assigns a conversation to an agent: `{ auto: true }` for automatic assignment, or `{ email }` for a
   * specific agent (400 `BadRequestError` when no such agent).
   *
   * @example
   * await platform.conversations.assign(conversationUuid, { email: 'agent@example.com' });
   */
  assign(uuid: string, agent: AssignAgent, options: RequestOptions = {}): ApiPromise<DetailResponse> {
    return this.#post('assign', uuid, options, () => ({
      agent: argumentsCheck(assignAgentSchema, agent, 'conversations.assign agent'),
    }));
  }

  /**
   * Assigns a conversation to an agent group by name (404 `NotFoundError` when no such group).
   *
   * @example
   * await platform.conversations.assignToGroup(conversationUuid, 'Billing');
   */
  assignToGroup(uuid: string, groupName: string, options: RequestOptions = {}): ApiPromise<DetailResponse> {
    return this.#post('assignToGroup', uuid, options, () => {
      requireText('conversations.assignToGroup', 'groupName', groupName, 'the group name');
      return { group: { name: groupName } };
    });
  }

  /**
   * Removes a conversation's assignment.
   *
   * @example
   * await platform.conversations.unassign(conversationUuid);
   */
  unassign(uuid: string, options: RequestOptions = {}): ApiPromise<DetailResponse> {
    return this.#post('unassign', uuid, options);
  }

  /**
   * Sets a conversation's type and sub-type (`sub` omitted means `null`). 404 when the type does not exist;
   * 405 `MethodNotAllowedError` when a main type cannot be set or the type is not allowed for the channel.
   *
   * @example
   * await platform.conversations.setType(conversationUuid, { name: 'Complaint', sub: 'Delivery' });
   */
  setType(
    uuid: string,
    type: ConversationTypeInput,
    options: RequestOptions = {},
  ): ApiPromise<DetailResponse> {
    return this.#post('setType', uuid, options, () => {
      const t = argumentsCheck(conversationTypeInputSchema, type, 'conversations.setType type');
      return { type: { name: t.name, sub: t.sub ?? null } };
    });
  }

  /**
   * Sets custom fields of a conversation: identifier → value, sent as `{ identifier: { value } }`. An invalid
   * value is refused with 400 (`info` and `error` both end up in the error's `description`).
   *
   * @example
   * await platform.conversations.setCustomFields(conversationUuid, { order_id: 'A-1042', priority: 2 });
   */
  setCustomFields(
    uuid: string,
    fields: CustomFields,
    options: RequestOptions = {},
  ): ApiPromise<DetailResponse> {
    return this.#post('setCustomFields', uuid, options, () => ({
      custom_fields: wrapValues(
        argumentsCheck(customFieldsSchema, fields, 'conversations.setCustomFields fields'),
      ),
    }));
  }

  /**
   * `POST /v2/conversations/<operation>/` with the conversation's UUID, checked first, and the operation's own
   * fields, which `fields` checks and builds.
   */
  #post(
    method: keyof typeof PATHS,
    uuid: string,
    options: RequestOptions,
    fields: () => Record<string, unknown> = () => ({}),
  ): ApiPromise<DetailResponse> {
    return this.#http.operation(`conversations.${method}`, PATHS[method], options, () => ({
      uuid: requireUuid(uuid, `conversations.${method} uuid`),
      ...fields(),
    }));
  }
}
