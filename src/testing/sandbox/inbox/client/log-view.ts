/** The templates list and the webhook log with each delivery's attempts. */
import { attemptAnswer } from '../../../attempt-answer.js';
import type { LogEvent } from '../protocol.js';
import { fill, h } from './dom.js';
import { send, state } from './state.js';

export const templateList = h('ul', { class: 'templates', attrs: { 'aria-label': 'Templates' } });
export const logList = h('ol', { class: 'log', attrs: { 'aria-label': 'Webhook deliveries' } });

export function renderTemplates(): void {
  fill(
    templateList,
    ...[...state.templates.values()].map((t) =>
      h(
        'li',
        null,
        h('strong', null, t.name),
        ` (${t.language}, ${t.category}) `,
        h('span', { class: `tpl-status s-${t.status}` }, t.status),
      ),
    ),
  );
  if (state.templates.size === 0)
    fill(
      templateList,
      h(
        'li',
        { class: 'flag' },
        'None yet: create one with PublicApiClient.templates.create or the preview page.',
      ),
    );
}

function logView(e: LogEvent, open: boolean): HTMLElement {
  const last = e.attempts.at(-1);
  const delays = state.controls?.retryDelaysMs ?? [];
  const summary = e.delivered
    ? last
      ? `${last.outcome} · ${attemptAnswer(last)} · ${e.attempts.length} attempt(s)`
      : 'delivering…'
    : 'not delivered: no webhook URL';
  const details = h(
    'details',
    { attrs: { 'data-event': String(e.eventId), ...(open ? { open: '' } : {}) } },
    h('summary', null, `#${e.eventId} ${e.label} — ${summary}`),
    h(
      'ol',
      { class: 'attempts' },
      ...e.attempts.map((a) => {
        const next = a.outcome === 'retrying' ? delays[a.attempt] : undefined;
        return h(
          'li',
          null,
          `attempt ${a.attempt}: ${attemptAnswer(a)} in ${a.durationMs} ms → ${a.outcome}${next !== undefined ? `; next attempt in ${next / 1000} s` : ''}`,
        );
      }),
    ),
    h('pre', { class: 'payload' }, JSON.stringify(JSON.parse(e.body), null, 2)),
  );
  return h(
    'li',
    { attrs: { 'data-event': String(e.eventId) } },
    details,
    h(
      'button',
      {
        attrs: { type: 'button', 'data-key': `redeliver:${e.eventId}` },
        on: {
          click: () =>
            void send('/inbox/api/redeliver', { eventId: e.eventId }, `Redelivering #${e.eventId}.`),
        },
      },
      'Redeliver',
    ),
  );
}

export function renderLog(e?: LogEvent): void {
  if (e) {
    const old = logList.querySelector(`li[data-event="${e.eventId}"]`);
    const view = logView(e, old?.querySelector('details')?.open ?? false);
    if (old) old.replaceWith(view);
    else logList.prepend(view);
    return;
  }
  fill(logList, ...[...state.log.values()].reverse().map((x) => logView(x, false)));
}
