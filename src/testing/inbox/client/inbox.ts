import type { InboxControls, InboxMessage, InboxTemplate, LogEvent, StreamEvent } from '../protocol.js';
import { banner, fill, h, postJson } from './dom.js';
import { type Actions, messageView } from './render.js';

const messages = new Map<string, InboxMessage>();
const log = new Map<number, LogEvent>();
const templates = new Map<string, InboxTemplate>();
let controls: InboxControls | undefined;
let selected: string | undefined;

const status = h('p', { class: 'status-line', attrs: { role: 'status' } });
const say = (text: string) => {
  status.textContent = text;
};

async function send(path: string, body: unknown, done: string): Promise<void> {
  const res = await postJson(path, body);
  say(
    res.status < 300 ? done : `Refused (${res.status}): ${String((res.body as { error?: string })?.error)}`,
  );
}

const reply = (body: Record<string, unknown>, done: string) =>
  selected
    ? send('/inbox/api/reply', { from: selected, ...body }, done)
    : Promise.resolve(say('Pick a conversation first.'));

const actions: Actions = {
  button: (_m, id, title) =>
    void reply({ kind: 'button', id, title }, `Tapped “${title}”: button_reply ${id} sent to the app.`),
  row: (_m, row) =>
    void reply({ kind: 'list', ...row }, `Chose “${row.title}”: list_reply ${row.id} sent to the app.`),
};

// ---- layout -------------------------------------------------------------------------------------------
const peers = h('ul', { class: 'peers', attrs: { 'aria-label': 'Conversations' } });
const thread = h('ol', { class: 'thread', attrs: { 'aria-live': 'polite', 'aria-label': 'Messages' } });
const title = h('h2', { attrs: { id: 'conversation-title' } }, 'No conversation yet');
const newPeer = h('input', {
  attrs: { id: 'new-peer', inputmode: 'numeric', placeholder: '998901234567', autocomplete: 'off' },
});
const replyText = h('input', { attrs: { id: 'reply-text', autocomplete: 'off' } });
const fileInput = h('input', { attrs: { id: 'attach', type: 'file' } });
const caption = h('input', { attrs: { id: 'caption', autocomplete: 'off' } });
const lat = h('input', { attrs: { id: 'lat', type: 'number', step: 'any', value: '41.3111' } });
const lng = h('input', { attrs: { id: 'lng', type: 'number', step: 'any', value: '69.2797' } });
const placeName = h('input', { attrs: { id: 'place', value: 'Tashkent' } });

const field = (id: string, label: string, input: HTMLElement) =>
  h('div', { class: 'field' }, h('label', { attrs: { for: id } }, label), input);

const composer = h(
  'form',
  {
    class: 'composer',
    attrs: { 'aria-label': 'Answer as the customer' },
    on: {
      submit: (e) => {
        e.preventDefault();
        const text = replyText.value;
        if (!text) return;
        void reply({ kind: 'text', text }, 'Reply sent to the app as a text message.').then(() => {
          replyText.value = '';
        });
      },
    },
  },
  field('reply-text', 'Reply as the customer', replyText),
  h('button', { attrs: { type: 'submit' } }, 'Send reply'),
);

const attach = h(
  'form',
  {
    class: 'composer',
    attrs: { 'aria-label': 'Send a file as the customer' },
    on: {
      submit: (e) => {
        e.preventDefault();
        const file = fileInput.files?.[0];
        if (!file) return say('Choose a file first.');
        void file.arrayBuffer().then((buffer) => {
          let binary = '';
          const bytes = new Uint8Array(buffer);
          for (let i = 0; i < bytes.length; i += 0x8000)
            binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
          return reply(
            {
              kind: 'media',
              filename: file.name,
              mimeType: file.type || 'application/octet-stream',
              data: btoa(binary),
              ...(caption.value ? { caption: caption.value } : {}),
            },
            `Sent ${file.name}: the app can fetch it with media.download.`,
          );
        });
      },
    },
  },
  field('attach', 'File', fileInput),
  field('caption', 'Caption', caption),
  h('button', { attrs: { type: 'submit' } }, 'Send file'),
);

const locate = h(
  'form',
  {
    class: 'composer',
    attrs: { 'aria-label': 'Send a location as the customer' },
    on: {
      submit: (e) => {
        e.preventDefault();
        void reply(
          {
            kind: 'location',
            latitude: Number(lat.value),
            longitude: Number(lng.value),
            ...(placeName.value ? { name: placeName.value } : {}),
          },
          'Location sent to the app.',
        );
      },
    },
  },
  field('lat', 'Latitude', lat),
  field('lng', 'Longitude', lng),
  field('place', 'Place name', placeName),
  h('button', { attrs: { type: 'submit' } }, 'Send location'),
);

const windowButton = h('button', {
  attrs: { type: 'button', id: 'window-toggle' },
  on: {
    click: () => {
      if (!selected || !controls) return;
      const open = controls.closedWindows.includes(selected);
      void send(
        '/inbox/api/controls',
        { window: { peer: selected, open } },
        open ? '24-hour window open.' : '24-hour window closed: non-template sends now get GW_001.',
      );
    },
  },
});

// ---- controls -----------------------------------------------------------------------------------------
const failCode = h('input', { attrs: { id: 'fail-code', type: 'number', value: '131026' } });
const failTitle = h('input', { attrs: { id: 'fail-title', value: 'Message undeliverable' } });
const failState = h('p', { class: 'flag', attrs: { id: 'fail-state' } });
const order = h(
  'select',
  {
    attrs: { id: 'status-order' },
    on: {
      change: () =>
        void send('/inbox/api/controls', { statusOrder: order.value }, `Statuses now ${order.value}.`),
    },
  },
  h('option', { attrs: { value: 'in-order' } }, 'in order'),
  h('option', { attrs: { value: 'reversed' } }, 'reversed (read first)'),
);
const twice = h('input', {
  attrs: { id: 'twice', type: 'checkbox' },
  on: {
    change: () =>
      void send(
        '/inbox/api/controls',
        { duplicateStatuses: twice.checked },
        twice.checked ? 'Every status is now delivered twice.' : 'Statuses delivered once.',
      ),
  },
});
const balance = h('output', { attrs: { id: 'balance' } });
const rate = h('input', { attrs: { id: 'rate', type: 'number', min: '1' } });
const schedule = h('p', { class: 'flag' });

const controlsPanel = h(
  'section',
  { attrs: { 'aria-labelledby': 'controls-title' } },
  h('h2', { attrs: { id: 'controls-title' } }, 'Controls'),
  h(
    'form',
    {
      class: 'control',
      attrs: { 'aria-label': 'Fail the next delivery' },
      on: {
        submit: (e) => {
          e.preventDefault();
          void send(
            '/inbox/api/controls',
            {
              nextFailure: {
                code: Number(failCode.value),
                title: failTitle.value || 'Message undeliverable',
              },
            },
            'The next send will be reported failed.',
          );
        },
      },
    },
    field('fail-code', 'Upstream error code', failCode),
    field('fail-title', 'Error title', failTitle),
    h('button', { attrs: { type: 'submit', id: 'fail-next' } }, 'Fail next delivery'),
    h(
      'button',
      {
        attrs: { type: 'button' },
        on: {
          click: () => void send('/inbox/api/controls', { nextFailure: null }, 'Next delivery will succeed.'),
        },
      },
      'Cancel',
    ),
    failState,
  ),
  h(
    'div',
    { class: 'control' },
    field('status-order', 'Status order', order),
    h(
      'div',
      { class: 'field check' },
      twice,
      h('label', { attrs: { for: 'twice' } }, 'Deliver statuses twice'),
    ),
  ),
  h(
    'div',
    { class: 'control' },
    h('p', null, 'Balance: ', balance),
    h(
      'button',
      {
        attrs: { type: 'button', id: 'balance-zero' },
        on: {
          click: () =>
            void send('/inbox/api/controls', { balance: 0 }, 'Balance is 0: sends now get BILL_001.'),
        },
      },
      'Set balance to 0',
    ),
    h(
      'button',
      {
        attrs: { type: 'button' },
        on: { click: () => void send('/inbox/api/controls', { balance: null }, 'Balance unlimited.') },
      },
      'Unlimited',
    ),
  ),
  h(
    'form',
    {
      class: 'control',
      attrs: { 'aria-label': 'Rate limit' },
      on: {
        submit: (e) => {
          e.preventDefault();
          void send(
            '/inbox/api/controls',
            { ratePerSecond: Number(rate.value) },
            `Rate limit ${rate.value}/s: more gets RATE_001.`,
          );
        },
      },
    },
    field('rate', 'Sends per second', rate),
    h('button', { attrs: { type: 'submit' } }, 'Set rate limit'),
  ),
);

// ---- templates and log --------------------------------------------------------------------------------
const templateList = h('ul', { class: 'templates', attrs: { 'aria-label': 'Templates' } });
const logList = h('ol', { class: 'log', attrs: { 'aria-label': 'Webhook deliveries' } });

function renderTemplates(): void {
  fill(
    templateList,
    ...[...templates.values()].map((t) =>
      h(
        'li',
        null,
        h('strong', null, t.name),
        ` (${t.language}, ${t.category}) `,
        h('span', { class: `tpl-status s-${t.status}` }, t.status),
      ),
    ),
  );
  if (templates.size === 0)
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
  const delays = controls?.retryDelaysMs ?? [];
  const summary = e.delivered
    ? last
      ? `${last.outcome}${last.status !== undefined ? ` · HTTP ${last.status}` : ` · ${last.error}`} · ${e.attempts.length} attempt(s)`
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
          `attempt ${a.attempt}: ${a.status !== undefined ? `HTTP ${a.status}` : a.error} in ${a.durationMs} ms → ${a.outcome}${next !== undefined ? `; next attempt in ${next / 1000} s` : ''}`,
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

function renderLog(e?: LogEvent): void {
  if (e) {
    const old = logList.querySelector(`li[data-event="${e.eventId}"]`);
    const view = logView(e, old?.querySelector('details')?.open ?? false);
    if (old) old.replaceWith(view);
    else logList.prepend(view);
    return;
  }
  fill(logList, ...[...log.values()].reverse().map((x) => logView(x, false)));
}

function renderControls(): void {
  if (!controls) return;
  failState.textContent = controls.nextFailure
    ? `Armed: next send fails with ${controls.nextFailure.code} ${controls.nextFailure.title}`
    : 'Not armed.';
  order.value = controls.statusOrder;
  twice.checked = controls.duplicateStatuses;
  balance.textContent = controls.balance === null ? 'unlimited' : String(controls.balance);
  if (document.activeElement !== rate) rate.value = String(controls.ratePerSecond);
  const d = controls.retryDelaysMs;
  schedule.textContent = `${controls.webhookUrl ? `Webhook: ${controls.webhookUrl}` : 'No webhook URL: events are logged, not delivered.'} Retry schedule: ${d.map((ms, i) => (i === 0 ? 'at once' : `+${ms / 1000} s`)).join(', ')}; a 4xx is final.`;
  renderWindow();
}

function renderWindow(): void {
  const closed = selected !== undefined && controls?.closedWindows.includes(selected);
  windowButton.textContent = closed ? 'Open the 24-hour window' : 'Close the 24-hour window';
  windowButton.disabled = selected === undefined;
}

// ---- conversations ------------------------------------------------------------------------------------
function byPeer(): Map<string, InboxMessage[]> {
  const out = new Map<string, InboxMessage[]>();
  for (const m of messages.values()) out.set(m.peer, [...(out.get(m.peer) ?? []), m]);
  return out;
}

function renderPeers(): void {
  const groups = byPeer();
  if (selected === undefined) selected = groups.keys().next().value;
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
              ...(peer === selected ? { 'aria-current': 'true' } : {}),
            },
            on: {
              click: () => {
                selected = peer;
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
  return messageView(m, [...templates.values()], actions, [react]);
}

/** Replaces one bubble, keeping keyboard focus on the same control if it was inside. */
function replaceKeepingFocus(old: Element, next: HTMLElement): void {
  const key = (document.activeElement as HTMLElement | null)?.dataset?.['key'];
  const had = key !== undefined && old.contains(document.activeElement);
  old.replaceWith(next);
  if (had) (next.querySelector(`[data-key="${CSS.escape(key)}"]`) as HTMLElement | null)?.focus();
}

function renderThread(changed?: InboxMessage): void {
  if (changed && changed.peer === selected) {
    const old = thread.querySelector(`li[data-id="${CSS.escape(changed.id)}"]`);
    if (old) {
      replaceKeepingFocus(old, bubble(changed));
      return;
    }
    thread.append(bubble(changed));
    thread.lastElementChild?.scrollIntoView({ block: 'end' });
    return;
  }
  const list = selected ? (byPeer().get(selected) ?? []) : [];
  title.textContent = selected ? `Conversation with +${selected}` : 'No conversation yet';
  fill(thread, ...list.map(bubble));
}

function renderAll(): void {
  renderPeers();
  renderThread();
  renderWindow();
}

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
      h(
        'form',
        {
          class: 'composer',
          attrs: { 'aria-label': 'Start a conversation' },
          on: {
            submit: (e) => {
              e.preventDefault();
              if (!/^\d{5,20}$/.test(newPeer.value)) return say('A number with country code, digits only.');
              selected = newPeer.value;
              newPeer.value = '';
              renderAll();
            },
          },
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
      messages.clear();
      log.clear();
      templates.clear();
      for (const m of event.messages) messages.set(m.id, m);
      for (const l of event.log) log.set(l.eventId, l);
      for (const t of event.templates) templates.set(t.sourceId, t);
      controls = event.controls;
      renderAll();
      renderControls();
      renderTemplates();
      renderLog();
      document.body.dataset['ready'] = 'true';
      break;
    case 'message': {
      const isNewPeer = ![...messages.values()].some((m) => m.peer === event.message.peer);
      messages.set(event.message.id, event.message);
      if (isNewPeer || selected === undefined) renderAll();
      else {
        renderPeers();
        renderThread(event.message);
      }
      break;
    }
    case 'log':
      log.set(event.event.eventId, event.event);
      renderLog(event.event);
      break;
    case 'template':
      templates.set(event.template.sourceId, event.template);
      renderTemplates();
      renderThread();
      break;
    case 'controls':
      controls = event.controls;
      renderControls();
      break;
  }
};
events.onerror = () => say('Lost the sandbox; reconnecting…');
