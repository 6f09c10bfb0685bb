import type { StreamEvent } from '../protocol.js';
import { campaignsPanel, renderCampaigns } from './campaigns-panel.js';
import { attach, composer, locate, windowButton } from './composers.js';
import { controlsPanel, renderControls, schedule } from './controls-panel.js';
import { peers, renderAll, renderPeers, renderThread, thread, title } from './conversations.js';
import { banner, field, h, submitForm } from './dom.js';
import { logList, renderLog, renderTemplates, templateList } from './log-view.js';
import { say, state, status } from './state.js';

const newPeer = h('input', {
  attrs: { id: 'new-peer', inputmode: 'numeric', placeholder: '998901234567', autocomplete: 'off' },
});

document.body.append(
  banner('inbox'),
  h(
    'main',
    { class: 'inbox' },
    h(
      'section',
      { class: 'col peers-col', attrs: { 'aria-label': 'Customers' } },
      h('h2', null, 'Customers'),
      peers,
      submitForm(
        'composer',
        'Start a conversation',
        () => {
          if (!/^\d{5,20}$/.test(newPeer.value)) return say('A number with country code, digits only.');
          state.selected = newPeer.value;
          newPeer.value = '';
          renderAll();
        },
        field('new-peer', 'Write as another customer', newPeer),
        h('button', { attrs: { type: 'submit' } }, 'Open'),
      ),
    ),
    h(
      'section',
      { class: 'col thread-col', attrs: { 'aria-labelledby': 'conversation-title' } },
      title,
      thread,
      status,
      composer,
      attach,
      locate,
      windowButton,
    ),
    h(
      'div',
      { class: 'col side-col' },
      controlsPanel,
      campaignsPanel,
      h(
        'section',
        { attrs: { 'aria-labelledby': 'templates-title' } },
        h('h2', { attrs: { id: 'templates-title' } }, 'Templates'),
        templateList,
      ),
      h(
        'section',
        { attrs: { 'aria-labelledby': 'log-title' } },
        h('h2', { attrs: { id: 'log-title' } }, 'Webhook log'),
        schedule,
        logList,
      ),
    ),
  ),
);

const events = new EventSource('/inbox/events');
events.onmessage = (e: MessageEvent<string>) => {
  const event = JSON.parse(e.data) as StreamEvent;
  switch (event.kind) {
    case 'snapshot':
      state.messages.clear();
      state.log.clear();
      state.templates.clear();
      for (const m of event.messages) state.messages.set(m.id, m);
      for (const l of event.log) state.log.set(l.eventId, l);
      for (const t of event.templates) state.templates.set(t.sourceId, t);
      state.controls = event.controls;
      renderAll();
      renderControls();
      renderTemplates();
      renderLog();
      renderCampaigns([]);
      document.body.dataset['ready'] = 'true';
      break;
    case 'message': {
      const isNewPeer = ![...state.messages.values()].some((m) => m.peer === event.message.peer);
      state.messages.set(event.message.id, event.message);
      if (isNewPeer || state.selected === undefined) renderAll();
      else {
        renderPeers();
        renderThread(event.message);
      }
      break;
    }
    case 'log':
      state.log.set(event.event.eventId, event.event);
      renderLog(event.event);
      break;
    case 'template':
      state.templates.set(event.template.sourceId, event.template);
      renderTemplates();
      renderThread();
      break;
    case 'controls':
      state.controls = event.controls;
      renderControls();
      break;
    case 'campaigns':
      renderCampaigns(event.campaigns);
      break;
  }
};
events.onerror = () => say('Lost the sandbox; reconnecting…');
