/** What the inbox page knows, and how its actions reach the sandbox. */
import type { InboxControls, InboxMessage, InboxTemplate, LogEvent } from '../protocol.js';
import { h, postJson } from './dom.js';
import type { Actions } from './render.js';

/** The page's copy of the sandbox's state: the event stream keeps it current. */
export const state = {
  messages: new Map<string, InboxMessage>(),
  log: new Map<number, LogEvent>(),
  templates: new Map<string, InboxTemplate>(),
  controls: undefined as InboxControls | undefined,
  /** The conversation shown: a customer's number. */
  selected: undefined as string | undefined,
};

export const status = h('p', { class: 'status-line', attrs: { role: 'status' } });
export const say = (text: string) => {
  status.textContent = text;
};

export async function send(path: string, body: unknown, done: string): Promise<void> {
  const res = await postJson(path, body);
  say(
    res.status < 300 ? done : `Refused (${res.status}): ${String((res.body as { error?: string })?.error)}`,
  );
}

export const reply = (body: Record<string, unknown>, done: string) =>
  state.selected
    ? send('/inbox/api/reply', { from: state.selected, ...body }, done)
    : Promise.resolve(say('Pick a conversation first.'));

export const actions: Actions = {
  button: (_m, id, title) =>
    void reply({ kind: 'button', id, title }, `Tapped “${title}”: button_reply ${id} sent to the app.`),
  row: (_m, row) =>
    void reply({ kind: 'list', ...row }, `Chose “${row.title}”: list_reply ${row.id} sent to the app.`),
  quickReply: (m, payload, text) =>
    void reply(
      { kind: 'quick_reply', messageId: m.id, payload, text },
      `Tapped “${text}”: a button message with payload ${payload} sent to the app.`,
    ),
};
