import { config } from 'zod';
import { type TemplateIssue, validateTemplate } from '../../../../templates/index.js';
import { formatPath } from '../../../../templates/rules.js';
import type { InboxTemplate, StreamEvent } from '../protocol.js';
import { banner, fill, h, obj, postJson, submitForm } from './dom.js';
import { exampleValues, templateView } from './render.js';

// zod probes for eval once; the page's CSP forbids it, so say so up front instead of logging a violation.
config({ jitless: true });

const SAMPLE = {
  name: 'order_shipped',
  language: 'en_US',
  category: 'MARKETING',
  header: { format: 'TEXT', text: 'Order {{1}} is on its way', examples: ['#1042'] },
  body: { text: 'Hi {{1}}, your order ships today. Track it below.', examples: ['Ali'] },
  footer: { text: 'Reply STOP to opt out' },
  buttons: [
    { type: 'URL', text: 'Track order', url: 'https://shop.example.com/track/{{1}}', example: ['1042'] },
    { type: 'QUICK_REPLY', text: 'Talk to us' },
  ],
};

const editor = h('textarea', {
  attrs: { id: 'template-json', spellcheck: 'false', rows: '24', 'aria-describedby': 'issues-title' },
});
editor.value = JSON.stringify(SAMPLE, null, 2);
const issuesTitle = h('h2', { attrs: { id: 'issues-title' } }, 'Issues');
const issues = h('ul', {
  class: 'issues',
  attrs: { 'aria-live': 'polite', 'aria-label': 'Validation issues' },
});
const phone = h('div', { class: 'phone', attrs: { 'aria-label': 'How the recipient sees it' } });
const appId = h('input', { attrs: { id: 'app-id', value: 'sandbox', autocomplete: 'off' } });
const result = h('p', { class: 'status-line', attrs: { role: 'status', id: 'submit-result' } });
let submitted: string | undefined;
// What the sandbox does with the template after its pending time: the lifecycle, chosen per template.
const outcome = h(
  'select',
  { attrs: { id: 'template-outcome' } },
  h('option', { attrs: { value: 'APPROVED' } }, 'then APPROVED'),
  h('option', { attrs: { value: 'REJECTED' } }, 'then REJECTED'),
  h('option', { attrs: { value: 'PENDING' } }, 'stays PENDING (move it below)'),
);
const reason = h('input', { attrs: { id: 'template-reason', value: 'INVALID_FORMAT', autocomplete: 'off' } });
const created = new Map<string, InboxTemplate>();
const createdList = h('ul', { class: 'templates', attrs: { 'aria-label': 'Created templates' } });

/** The created templates with their status and the buttons that move each one (each sends its webhook). */
function drawCreated(): void {
  const move = (t: InboxTemplate, status: string) =>
    h(
      'button',
      {
        attrs: { type: 'button', 'data-status': status, 'aria-label': `${status} ${t.name} ${t.language}` },
        on: {
          click: () =>
            void postJson('/inbox/api/template-status', {
              sourceId: t.sourceId,
              status,
              ...(status === 'REJECTED' ? { reason: reason.value || 'INVALID_FORMAT' } : {}),
            }),
        },
      },
      status,
    );
  fill(
    createdList,
    ...[...created.values()].map((t) =>
      h(
        'li',
        { attrs: { 'data-source-id': t.sourceId } },
        h('code', null, `${t.name} (${t.language})`),
        ' ',
        h('strong', { class: 'template-status' }, t.status),
        t.reason ? ` (${t.reason})` : '',
        ' ',
        ...['APPROVED', 'REJECTED', 'PAUSED'].map((status) => move(t, status)),
      ),
    ),
  );
}

/** Selects the JSON key an issue points at, so the keyboard user lands on the field. */
function focusField(issue: TemplateIssue): void {
  const key = [...issue.path].reverse().find((p) => typeof p === 'string');
  editor.focus();
  if (key === undefined) return;
  const at = editor.value.indexOf(`"${key}"`);
  if (at >= 0) editor.setSelectionRange(at, at + key.length + 2);
}

function update(): void {
  let input: unknown;
  try {
    input = JSON.parse(editor.value);
  } catch (error) {
    issuesTitle.textContent = 'Issues: the text is not JSON';
    fill(issues, h('li', { class: 'issue' }, h('code', null, 'JSON'), ' ', (error as Error).message));
    return;
  }
  const { valid, issues: found } = validateTemplate(input);
  issuesTitle.textContent = valid ? 'No issues: ready to submit' : `Issues (${found.length})`;
  fill(
    issues,
    ...found.map((issue) =>
      h(
        'li',
        { class: 'issue' },
        h(
          'button',
          { attrs: { type: 'button', title: 'Go to the field' }, on: { click: () => focusField(issue) } },
          h('code', { class: 'code' }, issue.code ?? `rule ${issue.rule}`),
          ' ',
          h('code', { class: 'path' }, formatPath(issue.path)),
        ),
        h(
          'span',
          { class: 'field-key' },
          ` field ${issue.field || '(template)'}${issue.code ? ` · rule ${issue.rule}` : ''}`,
        ),
        h('p', null, issue.message),
      ),
    ),
  );
  const t = obj(input);
  fill(phone, h('div', { class: 'msg out' }, templateView(t, exampleValues(t))));
}

const form = submitForm(
  'composer',
  'Submit to the sandbox registry',
  () => {
    void postJson('/inbox/api/templates', {
      appId: appId.value || 'sandbox',
      template: editor.value,
      plan: {
        outcome: outcome.value,
        ...(outcome.value === 'REJECTED' ? { reason: reason.value || 'INVALID_FORMAT' } : {}),
      },
    }).then((res) => {
      const body = obj(res.body);
      const data = obj(body['data']);
      const errors = obj(body['errors']);
      if (res.status === 200) {
        submitted = String(data['sourceId']);
        result.textContent = `Created ${String(data['name'])} (${String(data['sourceId'])}): ${String(data['status'])}`;
      } else {
        result.textContent = `Refused ${res.status} ${String(errors['code'] ?? '')}: ${String(errors['description'] ?? body['error'])}`;
      }
    });
  },
  h('div', { class: 'field' }, h('label', { attrs: { for: 'app-id' } }, 'App id'), appId),
  h('div', { class: 'field' }, h('label', { attrs: { for: 'template-outcome' } }, 'After review'), outcome),
  h('div', { class: 'field' }, h('label', { attrs: { for: 'template-reason' } }, 'Rejection reason'), reason),
  h('button', { attrs: { type: 'submit', id: 'submit-template' } }, 'Submit to the sandbox registry'),
);

editor.addEventListener('input', update);
document.body.append(
  banner('templates'),
  h(
    'main',
    { class: 'preview' },
    h(
      'section',
      { class: 'col' },
      h('label', { attrs: { for: 'template-json' } }, h('h2', null, 'Template create request (JSON)')),
      editor,
      form,
      result,
      h('h2', { attrs: { id: 'created-title' } }, 'Created templates'),
      createdList,
    ),
    h('section', { class: 'col', attrs: { 'aria-labelledby': 'issues-title' } }, issuesTitle, issues),
    h(
      'section',
      { class: 'col', attrs: { 'aria-labelledby': 'render-title' } },
      h('h2', { attrs: { id: 'render-title' } }, 'Preview'),
      phone,
    ),
  ),
);
update();

new EventSource('/inbox/events').onmessage = (e: MessageEvent<string>) => {
  const event = JSON.parse(e.data) as StreamEvent;
  if (event.kind === 'snapshot') for (const t of event.templates) created.set(t.sourceId, t);
  if (event.kind === 'template') created.set(event.template.sourceId, event.template);
  if (event.kind === 'snapshot' || event.kind === 'template') drawCreated();
  if (event.kind === 'template' && event.template.sourceId === submitted)
    result.textContent = `Created ${event.template.name} (${event.template.sourceId}): ${event.template.status}`;
};
document.body.dataset['ready'] = 'true';
