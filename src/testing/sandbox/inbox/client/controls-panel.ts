/** The sandbox's fault controls: the next delivery's failure, status order, balance and rate limit. */
import { renderWindow } from './composers.js';
import { field, h, submitForm } from './dom.js';
import { send, state } from './state.js';

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
export const schedule = h('p', { class: 'flag' });

export const controlsPanel = h(
  'section',
  { attrs: { 'aria-labelledby': 'controls-title' } },
  h('h2', { attrs: { id: 'controls-title' } }, 'Controls'),
  submitForm(
    'control',
    'Fail the next delivery',
    () => {
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
  submitForm(
    'control',
    'Rate limit',
    () => {
      void send(
        '/inbox/api/controls',
        { ratePerSecond: Number(rate.value) },
        `Rate limit ${rate.value}/s: more gets RATE_001.`,
      );
    },
    field('rate', 'Sends per second', rate),
    h('button', { attrs: { type: 'submit' } }, 'Set rate limit'),
  ),
);

export function renderControls(): void {
  if (!state.controls) return;
  failState.textContent = state.controls.nextFailure
    ? `Armed: next send fails with ${state.controls.nextFailure.code} ${state.controls.nextFailure.title}`
    : 'Not armed.';
  order.value = state.controls.statusOrder;
  twice.checked = state.controls.duplicateStatuses;
  balance.textContent = state.controls.balance === null ? 'unlimited' : String(state.controls.balance);
  if (document.activeElement !== rate) rate.value = String(state.controls.ratePerSecond);
  const d = state.controls.retryDelaysMs;
  schedule.textContent = `${state.controls.webhookUrl ? `Webhook: ${state.controls.webhookUrl}` : 'No webhook URL: events are logged, not delivered.'} Retry schedule: ${d.map((ms, i) => (i === 0 ? 'at once' : `+${ms / 1000} s`)).join(', ')}; a 4xx is final.`;
  renderWindow();
}
