/** Each campaign's funnel as a bar chart: accepted → sent → delivered → read, failed and refused beside them. */
import type { InboxCampaign, InboxCampaignQueue } from '../protocol.js';
import { fill, h } from './dom.js';

export const campaignList = h('div', { class: 'campaigns', attrs: { id: 'campaigns' } });

export const campaignsPanel = h(
  'section',
  { attrs: { 'aria-labelledby': 'campaigns-title' } },
  h('h2', { attrs: { id: 'campaigns-title' } }, 'Campaigns'),
  campaignList,
);

const STAGES = [
  ['accepted', 'accepted'],
  ['sent', 'sent'],
  ['delivered', 'delivered'],
  ['read', 'read'],
  ['failed', 'failed'],
  ['notSent', 'not sent'],
  ['maybeSent', 'maybe sent'],
] as const;

export function renderCampaigns(campaigns: readonly InboxCampaign[]): void {
  if (campaigns.length === 0) {
    fill(
      campaignList,
      h('p', { class: 'flag' }, 'No campaign yet: sendMany(messages, { campaign }) draws one here.'),
    );
    return;
  }
  fill(campaignList, ...campaigns.map(chart));
}

function chart(c: InboxCampaign): HTMLElement {
  const total = Math.max(1, c.funnel.accepted + c.funnel.notSent + c.funnel.maybeSent);
  const rows = STAGES.map(([key, label]) => {
    const n = c.funnel[key];
    const bar = h('span', { class: 'fill' });
    // CSSOM, not a style attribute: the page's CSP allows no inline styles.
    bar.style.width = `${((100 * n) / total).toFixed(1)}%`;
    return h(
      'li',
      { class: `stage stage-${key}`, attrs: { 'data-stage': key } },
      h('span', { class: 'stage-label' }, label),
      h('span', { class: 'track', attrs: { 'aria-hidden': 'true' } }, bar),
      h('output', { class: 'stage-count' }, n),
    );
  });
  const failures = c.failures.map((f) => `${f.code} × ${f.count}`).join(', ');
  return h(
    'figure',
    { class: 'campaign', attrs: { 'data-campaign': c.id } },
    h('figcaption', null, h('strong', null, c.id), ` · billable ${c.billable}`),
    c.queue ? queueLine(c.queue) : null,
    h('ul', { class: 'funnel', attrs: { 'aria-label': `Funnel of ${c.id}` } }, ...rows),
    failures ? h('p', { class: 'flag' }, `Failures by code: ${failures}`) : null,
  );
}

/** A campaign queue's state and counts, one line; what waits for a person (paused, in doubt) is flagged. */
function queueLine(q: InboxCampaignQueue): HTMLElement {
  const counts = [
    `${q.queued} queued`,
    `${q.inFlight} in flight`,
    `${q.accepted} accepted`,
    `${q.notSent} not sent${q.suppressed > 0 ? ` (${q.suppressed} opted out)` : ''}`,
    `${q.inDoubt} in doubt`,
  ].join(' · ');
  const attention = q.state === 'paused' || q.inDoubt > 0;
  return h(
    'p',
    { class: attention ? 'queue flag' : 'queue', attrs: { 'data-queue-state': q.state } },
    h('strong', null, `Queue: ${q.state}`),
    q.hold ? ` (${q.hold})` : '',
    ` · ${counts}`,
  );
}
