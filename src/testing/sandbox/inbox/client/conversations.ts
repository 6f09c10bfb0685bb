/** The conversations: the customers list and the thread of the one selected. */
import type { InboxMessage } from '../protocol.js';
import { renderWindow } from './composers.js';
import { fill, h } from './dom.js';
import { messageView } from './render.js';
import { actions, reply, state } from './state.js';

export const peers = h('ul', { class: 'peers', attrs: { 'aria-label': 'Conversations' } });
export const thread = h('ol', {
  class: 'thread',
  attrs: { 'aria-live': 'polite', 'aria-label': 'Messages' },
});
export const title = h('h2', { attrs: { id: 'conversation-title' } }, 'No conversation yet');

function byPeer(): Map<string, InboxMessage[]> {
  const out = new Map<string, InboxMessage[]>();
  for (const m of state.messages.values()) out.set(m.peer, [...(out.get(m.peer) ?? []), m]);
  return out;
}

export function renderPeers(): void {
  const groups = byPeer();
  if (state.selected === undefined) state.selected = groups.keys().next().value;
  fill(
    peers,
    ...[...groups].map(([peer, list]) =>
      h(
        'li',
        null,
        h(
          'button',
          {
            attrs: {
              type: 'button',
              'data-peer': peer,
              ...(peer === state.selected ? { 'aria-current': 'true' } : {}),
            },
            on: {
              click: () => {
                state.selected = peer;
                renderAll();
              },
            },
          },
          h('span', { class: 'peer' }, `+${peer}`),
          h('span', { class: 'count' }, `${list.length} message${list.length === 1 ? '' : 's'}`),
        ),
      ),
    ),
  );
}

function bubble(m: InboxMessage): HTMLElement {
  const react =
    m.direction === 'out' && !m.id.startsWith('refused-')
      ? h(
          'button',
          {
            class: 'react',
            attrs: { type: 'button', 'data-key': `${m.id}:react`, 'aria-label': 'React 👍 as the customer' },
            on: {
              click: () =>
                void reply({ kind: 'reaction', messageId: m.id, emoji: '👍' }, 'Reaction sent to the app.'),
            },
          },
          'React',
        )
      : null;
  return messageView(m, [...state.templates.values()], actions, [react]);
}

/** Replaces one bubble, keeping keyboard focus on the same control if it was inside. */
function replaceKeepingFocus(old: Element, next: HTMLElement): void {
  const key = (document.activeElement as HTMLElement | null)?.dataset?.['key'];
  const had = key !== undefined && old.contains(document.activeElement);
  old.replaceWith(next);
  if (had) (next.querySelector(`[data-key="${CSS.escape(key)}"]`) as HTMLElement | null)?.focus();
}

export function renderThread(changed?: InboxMessage): void {
  if (changed && changed.peer === state.selected) {
    const old = thread.querySelector(`li[data-id="${CSS.escape(changed.id)}"]`);
    if (old) {
      replaceKeepingFocus(old, bubble(changed));
      return;
    }
    thread.append(bubble(changed));
    thread.lastElementChild?.scrollIntoView({ block: 'end' });
    return;
  }
  const list = state.selected ? (byPeer().get(state.selected) ?? []) : [];
  title.textContent = state.selected ? `Conversation with +${state.selected}` : 'No conversation yet';
  fill(thread, ...list.map(bubble));
}

export function renderAll(): void {
  renderPeers();
  renderThread();
  renderWindow();
}
