import { z } from 'zod';
import { uuidSchema } from '../../platform/fields.js';
import { type Answer, detail, ok, parseBody, type Route, type RouteContext } from './answer.js';
import { customFieldValues } from './custom-fields.js';
import type { World } from './world.js';

const uuidBody = z.looseObject({ uuid: uuidSchema });
const assignBody = z.looseObject({
  uuid: uuidSchema,
  agent: z.union([z.strictObject({ auto: z.literal(true) }), z.strictObject({ email: z.string().min(1) })], {
    error: 'agent must be { auto: true } or { email }',
  }),
});
const groupBody = z.looseObject({ uuid: uuidSchema, group: z.looseObject({ name: z.string().min(1) }) });
const typeBody = z.looseObject({
  uuid: uuidSchema,
  type: z.looseObject({ name: z.string().min(1), sub: z.string().min(1).nullable().optional() }),
});
const customFieldsBody = z.looseObject({
  uuid: uuidSchema,
  custom_fields: z.record(z.string(), z.unknown()),
});

const archive =
  (archived: boolean) =>
  (world: World, { body }: RouteContext): Answer => {
    const uuid = world.conversation(parseBody(uuidBody, body).uuid, 400);
    if (archived) world.state.archived.add(uuid);
    else world.state.archived.delete(uuid);
    for (const r of world.recordsOf(uuid)) {
      if (r.is_archived !== archived) r.archived_at = archived ? new Date(world.now()).toISOString() : null;
      r.is_archived = archived;
    }
    return ok(archived ? 'Conversation archived.' : 'Conversation unarchived.');
  };

function assign(world: World, { body }: RouteContext): Answer {
  const b = parseBody(assignBody, body);
  const uuid = world.conversation(b.uuid, 400);
  let agent: string;
  if ('email' in b.agent) {
    const email = b.agent.email;
    const found = world.agents.find((a) => a.toLowerCase() === email.toLowerCase());
    if (found === undefined) throw detail(400, 'Agent not found.');
    agent = found;
  } else {
    if (world.agents.length === 0) throw detail(400, 'No agent is available for auto assignment.');
    agent = world.agents[world.autoTurn++ % world.agents.length]!;
  }
  const current = world.state.assignments.get(uuid);
  world.state.assignments.set(uuid, { agent, auto: !('email' in b.agent), group: current?.group ?? null });
  return ok('Conversation assigned.');
}

function assignToGroup(world: World, { body }: RouteContext): Answer {
  const b = parseBody(groupBody, body);
  const uuid = world.conversation(b.uuid, 404);
  const group = world.groups.find((g) => g === b.group.name);
  if (group === undefined) throw detail(404, 'Group not found.');
  const current = world.state.assignments.get(uuid);
  world.state.assignments.set(uuid, { agent: current?.agent ?? null, auto: current?.auto ?? false, group });
  for (const r of world.recordsOf(uuid)) r.group = group;
  return ok('Conversation assigned to the group.');
}

function unassign(world: World, { body }: RouteContext): Answer {
  const uuid = world.conversation(parseBody(uuidBody, body).uuid, 400);
  world.state.assignments.delete(uuid);
  return ok('Conversation unassigned.');
}

function setType(world: World, { body }: RouteContext): Answer {
  const b = parseBody(typeBody, body);
  const uuid = world.conversation(b.uuid, 404);
  const definition = world.types.find((t) => t.name === b.type.name);
  if (!definition) throw detail(404, 'Type not found.');
  const sub = b.type.sub ?? null;
  const subs = definition.subs ?? [];
  if (sub !== null && !subs.includes(sub)) throw detail(404, 'Sub-type not found.');
  if (sub === null && subs.length > 0) throw detail(405, 'The main type cannot be set: choose a sub-type.');
  const channel = world.latestOf(uuid)?.channel;
  if (
    definition.channels !== undefined &&
    channel !== undefined &&
    !definition.channels.some((c) => c.toLowerCase() === channel.uuid.toLowerCase())
  ) {
    throw detail(405, 'The type is not allowed for the channel.');
  }
  world.state.types.set(uuid, { name: definition.name, sub });
  for (const r of world.recordsOf(uuid))
    r.type = { main_type: definition.name, sub_type1: sub, sub_type2: null };
  return ok('Conversation type set.');
}

function setCustomFields(world: World, { body }: RouteContext): Answer {
  const b = parseBody(customFieldsBody, body);
  const uuid = world.conversation(b.uuid, 404);
  const values = customFieldValues(b.custom_fields, world.options.conversationCustomFields);
  world.state.customFields.set(uuid, { ...world.state.customFields.get(uuid), ...values });
  return ok('Custom fields updated.');
}

/** Each operation's handler, by the last segment of its path `/v2/conversations/<segment>/`. */
const HANDLERS: Record<string, (world: World, ctx: RouteContext) => Answer> = {
  archive: archive(true),
  unarchive: archive(false),
  assign,
  assign_to_group: assignToGroup,
  unassign,
  type: setType,
  custom_fields: setCustomFields,
};

/** The `/v2/conversations/...` operations, with the statuses of the spec's table, recorded into the state. */
export function conversationRoutes(world: World): Route[] {
  return Object.entries(HANDLERS).map(([operation, handle]) => ({
    host: 'platform',
    method: 'POST',
    path: `/v2/conversations/${operation}/`,
    handle: (ctx) => handle(world, ctx),
  }));
}
