import type { OutboundMessage } from '../../../../gateway/message-schema.js';
import type { KnownMessageType } from '../../../../webhooks/messages/index.js';
import type { InboxMessage, InboxTemplate } from '../protocol.js';
import { type Child, h, link, list, obj, str } from './dom.js';

/** What the customer can do with a message: the inbox wires these to incoming webhooks. */
export interface Actions {
  button(message: InboxMessage, id: string, title: string): void;
  row(message: InboxMessage, row: { id: string; title: string; description?: string }): void;
  /** A tap on a template's quick-reply button: `payload` as the send set it (else the label), `text` the label. */
  quickReply(message: InboxMessage, payload: string, text: string): void;
}

/**
 * The lists the customer opened, by message id. Kept here, not in the DOM: a status update redraws its message's
 * bubble, and an open list must stay open through it.
 */
export const openLists = new Set<string>();

const MARKS: Readonly<Record<string, [string, string]>> = {
  sent: ['✓', 'sent'],
  delivered: ['✓✓', 'delivered'],
  read: ['✓✓', 'read'],
  failed: ['✗', 'failed'],
  refused: ['⊘', 'refused by the gateway'],
  fake: ['∅', 'is_fake: no status events'],
};

/** `{{n}}` → the n-th value, or the variable itself when there is none. */
export function fillVariables(text: string, values: readonly unknown[]): string {
  return text.replace(/\{\{(\d+)\}\}/g, (whole, n: string) => {
    const value = values[Number(n) - 1];
    return typeof value === 'string' && value !== '' ? value : whole;
  });
}

function media(kind: string, m: Record<string, unknown>, extra: Child[] = []): HTMLElement {
  return h(
    'div',
    { class: 'media' },
    h('div', { class: 'media-kind' }, kind),
    m['filename'] !== undefined && h('div', { class: 'filename' }, str(m['filename'])),
    m['link'] !== undefined && h('div', { class: 'media-link' }, link(m['link'])),
    ...extra,
    m['caption'] !== undefined && h('p', { class: 'caption' }, str(m['caption'])),
  );
}

function textBody(body: string, previewUrl: boolean | undefined): HTMLElement {
  const url = /https?:\/\/\S+/.exec(body)?.[0];
  return h(
    'div',
    null,
    previewUrl && url ? h('div', { class: 'link-preview' }, 'Link preview: ', link(url)) : null,
    h('p', { class: 'text' }, body),
    previewUrl !== undefined &&
      h('div', { class: 'flag' }, `link preview ${previewUrl ? 'on' : 'off'} (preview_url: ${previewUrl})`),
  );
}

/** A template send, drawn from the approved template with the send's parameters filled in. */
function templateSend(
  t: Record<string, unknown>,
  templates: readonly InboxTemplate[],
  m: InboxMessage,
  actions: Actions,
): HTMLElement {
  const name = str(t['name']);
  const language = str(obj(t['language'])['code']);
  const params = (type: string, index?: string) =>
    list(
      obj(
        list(t['components']).find((c) => {
          const o = obj(c);
          return o['type'] === type && (index === undefined || str(o['index']) === index);
        }),
      )['parameters'],
    ).map((p) => {
      const o = obj(p);
      const typed = obj(o[str(o['type'])]);
      return str(o['text'] ?? typed['fallback_value'] ?? typed['link']);
    });
  const approved = templates.find((x) => x.name === name && x.language === language);
  const label = h('div', { class: 'template-name' }, `Template ${name} (${language})`);
  const tap: QuickReplyTap = { key: m.id, tap: (payload, text) => actions.quickReply(m, payload, text) };
  if (!approved) {
    // The template's buttons are unknown here: each quick-reply payload the send set is a button, labelled by it.
    const quickReplies = list(t['components'])
      .map(obj)
      .filter((o) => o['type'] === 'button' && o['sub_type'] === 'quick_reply')
      .map((o) => ({
        type: 'QUICK_REPLY',
        text: params('button', str(o['index']))[0] ?? '',
        index: str(o['index']),
      }));
    return h(
      'div',
      null,
      label,
      ...list(t['components']).map((c) => {
        const o = obj(c);
        return h(
          'p',
          { class: 'params' },
          `${str(o['type'])}${o['index'] !== undefined ? ` ${str(o['index'])}` : ''}: `,
          list(o['parameters'])
            .map((p) => str(obj(p)['text'] ?? obj(p)['type']))
            .join(', '),
        );
      }),
      buttonsView(quickReplies, () => [], tap),
    );
  }
  return h(
    'div',
    null,
    label,
    templateView(
      approved.request,
      {
        header: params('header'),
        body: params('body'),
        button: (i) => params('button', String(i)),
      },
      tap,
    ),
  );
}

/** Where a template's quick-reply taps go: the message's id (for the buttons' keys) and the action. */
interface QuickReplyTap {
  key: string;
  tap(payload: string, text: string): void;
}

/** Values for a template's variables: the create request's examples, or a send's parameters. */
export interface TemplateValues {
  header: readonly unknown[];
  body: readonly unknown[];
  button(index: number): readonly unknown[];
}

export const exampleValues = (t: Record<string, unknown>): TemplateValues => ({
  header: list(obj(t['header'])['examples']),
  body: list(obj(t['body'])['examples']),
  button: (i) => list(obj(list(t['buttons'])[i])['example']),
});

const BUTTON_ICON: Readonly<Record<string, string>> = {
  URL: '↗',
  PHONE_NUMBER: '☎',
  QUICK_REPLY: '↩',
  COPY_CODE: '⧉',
  OTP: '⧉',
};

function headerView(header: Record<string, unknown>, values: readonly unknown[]): Child {
  const format = str(header['format']);
  if (format === '' || format === 'NONE') return null;
  if (format === 'TEXT') return h('p', { class: 'tpl-header' }, fillVariables(str(header['text']), values));
  return h('div', { class: 'media tpl-media' }, h('div', { class: 'media-kind' }, `${format} header`));
}

/**
 * A template's buttons. With `quickReply`, its quick-reply buttons can be tapped as the customer: the tap carries
 * the payload the send set for that button (its parameter), else the label, as a real delivery does.
 */
function buttonsView(
  buttons: unknown[],
  values: TemplateValues['button'],
  quickReply?: QuickReplyTap,
): Child {
  if (buttons.length === 0) return null;
  return h(
    'ul',
    { class: 'tpl-buttons', attrs: { 'aria-label': 'Template buttons' } },
    ...buttons.map((b, i) => {
      const o = obj(b);
      const type = str(o['type']);
      const text =
        str(o['text']) || (type === 'OTP' ? 'Copy code' : type === 'COPY_CODE' ? 'Copy offer code' : type);
      if (type === 'QUICK_REPLY' && quickReply) {
        const index = o['index'] === undefined ? i : Number(o['index']);
        const set = values(index)[0];
        const payload = typeof set === 'string' && set !== '' ? set : text;
        return h(
          'li',
          null,
          h(
            'button',
            {
              class: 'reply quick-reply',
              attrs: {
                type: 'button',
                'data-key': `${quickReply.key}:qr:${index}`,
                title: `Tap as the customer (payload ${payload})`,
              },
              on: { click: () => quickReply.tap(payload, text) },
            },
            `${BUTTON_ICON[type]} ${text}`,
          ),
        );
      }
      const target =
        type === 'URL'
          ? fillVariables(str(o['url']), values(i))
          : type === 'PHONE_NUMBER'
            ? str(o['phoneNumber'])
            : '';
      return h(
        'li',
        { class: 'tpl-button', attrs: { title: target || undefined } },
        `${BUTTON_ICON[type] ?? ''} ${text}`,
        target && h('span', { class: 'tpl-target' }, target),
      );
    }),
  );
}

/**
 * A template as the recipient sees it: header, limited-time offer banner, body, footer, buttons, carousel
 * cards. Authentication templates get the fixed text the platform writes for them.
 */
export function templateView(
  t: Record<string, unknown>,
  values: TemplateValues,
  quickReply?: QuickReplyTap,
): HTMLElement {
  const body = obj(t['body']);
  const footer = obj(t['footer']);
  const offer = obj(t['limitedTimeOffer']);
  const auth = t['category'] === 'AUTHENTICATION';
  const bodyText = auth
    ? `{{1}} is your verification code.${body['addSecurityRecommendation'] === true ? ' For your security, do not share this code.' : ''}`
    : str(body['text']);
  const footerText = auth
    ? footer['codeExpirationMinutes'] !== undefined
      ? `This code expires in ${str(footer['codeExpirationMinutes'])} minutes.`
      : ''
    : str(footer['text']);
  return h(
    'div',
    { class: 'tpl' },
    headerView(obj(t['header']), values.header),
    offer['text'] !== undefined &&
      h(
        'div',
        { class: 'offer' },
        h('strong', null, str(offer['text'])),
        offer['hasExpiration'] === true && h('span', { class: 'offer-expiry' }, 'Offer ends in 00:59:59'),
      ),
    h('p', { class: 'text' }, fillVariables(bodyText, auth ? ['123456'] : values.body)),
    footerText && h('p', { class: 'tpl-footer' }, footerText),
    buttonsView(list(t['buttons']), values.button, quickReply),
    list(t['carousel']).length > 0 &&
      h(
        'ul',
        { class: 'carousel', attrs: { 'aria-label': 'Carousel cards' } },
        ...list(t['carousel']).map((card, i) => {
          const c = obj(card);
          return h(
            'li',
            { class: 'card', attrs: { 'aria-label': `Card ${i + 1}` } },
            headerView(obj(c['header']), []),
            h(
              'p',
              { class: 'text' },
              fillVariables(str(obj(c['body'])['text']), list(obj(c['body'])['examples'])),
            ),
            buttonsView(list(c['buttons']), (j) => list(obj(list(c['buttons'])[j])['example'])),
          );
        }),
      ),
  );
}

function interactive(m: InboxMessage, i: Record<string, unknown>, actions: Actions): HTMLElement {
  const action = obj(i['action']);
  const header = obj(i['header']);
  const parts: Child[] = [
    header['text'] !== undefined && h('p', { class: 'tpl-header' }, str(header['text'])),
    h('p', { class: 'text' }, str(obj(i['body'])['text'])),
    obj(i['footer'])['text'] !== undefined && h('p', { class: 'tpl-footer' }, str(obj(i['footer'])['text'])),
  ];
  if (i['type'] === 'button') {
    parts.push(
      h(
        'div',
        { class: 'reply-buttons', attrs: { role: 'group', 'aria-label': 'Reply buttons' } },
        ...list(action['buttons']).map((b) => {
          const reply = obj(obj(b)['reply']);
          const id = str(reply['id']);
          const title = str(reply['title']);
          return h(
            'button',
            {
              class: 'reply',
              attrs: {
                type: 'button',
                'data-key': `${m.id}:btn:${id}`,
                title: `Tap as the customer (id ${id})`,
              },
              on: { click: () => actions.button(m, id, title) },
            },
            title,
          );
        }),
      ),
    );
  } else if (i['type'] === 'list') {
    const open = openLists.has(m.id);
    const rows = h(
      'div',
      { class: 'list-rows', attrs: { hidden: open ? undefined : '' } },
      ...list(action['sections']).map((s) =>
        h(
          'fieldset',
          null,
          h('legend', null, str(obj(s)['title'])),
          ...list(obj(s)['rows']).map((r) => {
            const row = obj(r);
            const choice = {
              id: str(row['id']),
              title: str(row['title']),
              ...(row['description'] !== undefined ? { description: str(row['description']) } : {}),
            };
            return h(
              'button',
              {
                class: 'row',
                attrs: { type: 'button', 'data-key': `${m.id}:row:${choice.id}` },
                on: { click: () => actions.row(m, choice) },
              },
              h('span', { class: 'row-title' }, choice.title),
              choice.description !== undefined && h('span', { class: 'row-desc' }, choice.description),
            );
          }),
        ),
      ),
    );
    const toggle = h(
      'button',
      {
        class: 'reply list-open',
        attrs: { type: 'button', 'aria-expanded': String(open), 'data-key': `${m.id}:list` },
        on: {
          click: () => {
            rows.hidden = !rows.hidden;
            toggle.setAttribute('aria-expanded', String(!rows.hidden));
            if (rows.hidden) openLists.delete(m.id);
            else openLists.add(m.id);
          },
        },
      },
      `☰ ${str(action['button'])}`,
    );
    parts.push(toggle, rows);
  }
  return h('div', null, ...parts);
}

const raw = (p: Record<string, unknown>): Child[] => [
  h('pre', { class: 'payload' }, JSON.stringify(p, null, 2)),
];

const mediaId = (o: Record<string, unknown>) => h('div', { class: 'flag' }, `media id ${str(o['id'])}`);

/**
 * How each documented incoming message type shows, keyed by the webhook table's types (`messageSchemas` in
 * src/webhooks/messages/index.ts): a type added there does not compile until it has its view here. A type the
 * table does not know (the `unknown` variant) shows its raw payload.
 */
const INCOMING: {
  readonly [K in KnownMessageType]: (o: Record<string, unknown>, p: Record<string, unknown>) => Child[];
} = {
  text: (o) => [h('p', { class: 'text' }, str(o['body']))],
  image: (o) => {
    const id = str(o['id']);
    const img = h('img', { attrs: { alt: str(o['caption']) || 'Image the customer sent', width: '160' } });
    img.src = `/inbox/media/${encodeURIComponent(id)}`;
    return [media('Image', o, [img, h('div', { class: 'flag' }, `media id ${id}`)])];
  },
  audio: (o) => [media('audio', o, [mediaId(o)])],
  document: (o) => [media('document', o, [mediaId(o)])],
  video: (o) => [media('video', o, [mediaId(o)])],
  sticker: (o) => [media('sticker', o, [mediaId(o)])],
  button: (o) => [
    h('p', { class: 'text' }, `Quick reply: ${str(o['text'])}`),
    h('div', { class: 'flag' }, `payload ${str(o['payload'])}`),
  ],
  location: (o) => [
    h('p', { class: 'text' }, `Location: ${str(o['name']) || 'pin'}`),
    h('div', { class: 'flag' }, `${str(o['latitude'])}, ${str(o['longitude'])} ${str(o['address'])}`),
  ],
  contacts: (_o, p) => [
    h(
      'p',
      { class: 'text' },
      `Contacts: ${list(p['contacts'])
        .map((c) => str(obj(obj(c)['name'])['formatted_name']))
        .join(', ')}`,
    ),
  ],
  interactive: (o) => {
    const kind = str(o['type']);
    const reply = obj(o[kind]);
    return [
      h('p', { class: 'text' }, `${kind === 'list_reply' ? '☰' : '↩'} ${str(reply['title'])}`),
      h('div', { class: 'flag' }, `${kind} · id ${str(reply['id'])}`),
    ];
  },
  reaction: (o) => [
    h('p', { class: 'text reaction' }, str(o['emoji']) || '(reaction removed)'),
    h('div', { class: 'flag' }, `reaction to ${str(o['message_id'])}`),
  ],
  order: (o) => [
    h('p', { class: 'text' }, `Order: ${list(o['product_items']).length} item(s)`),
    h('div', { class: 'flag' }, `catalog ${str(o['catalog_id'])}`),
  ],
};

/**
 * How each outbound message type shows, keyed by the gateway's `OutboundMessage` union: a type the gateway's
 * schema gains does not compile until it has its view here.
 */
const OUTGOING: {
  readonly [K in OutboundMessage['type']]: (
    o: Record<string, unknown>,
    m: InboxMessage,
    templates: readonly InboxTemplate[],
    actions: Actions,
  ) => Child[];
} = {
  text: (o) => [textBody(str(o['body']), o['preview_url'] === undefined ? false : o['preview_url'] === true)],
  image: (o) => [media('Image', o)],
  audio: (o) => [media('Audio', o)],
  document: (o) => [media('Document', o)],
  interactive: (o, m, _templates, actions) => [interactive(m, o, actions)],
  template: (o, m, templates, actions) => [templateSend(o, templates, m, actions)],
};

const isKey = <T extends object>(table: T, key: string): key is Extract<keyof T, string> =>
  Object.hasOwn(table, key);

function incoming(p: Record<string, unknown>): Child[] {
  const type = str(p['type']);
  return isKey(INCOMING, type) ? INCOMING[type](obj(p[type]), p) : raw(p);
}

function outgoing(m: InboxMessage, templates: readonly InboxTemplate[], actions: Actions): Child[] {
  const p = m.payload;
  const type = str(p['type']);
  return isKey(OUTGOING, type) ? OUTGOING[type](obj(p[type]), m, templates, actions) : raw(p);
}

/** One message bubble with its status mark. */
export function messageView(
  m: InboxMessage,
  templates: readonly InboxTemplate[],
  actions: Actions,
  extra: Child[] = [],
): HTMLElement {
  const mark = m.status ? MARKS[m.status] : undefined;
  const time = new Date(m.at).toLocaleTimeString();
  return h(
    'li',
    {
      class: `msg ${m.direction}`,
      attrs: {
        'data-id': m.id,
        'aria-label': `${m.direction === 'out' ? 'Business' : 'Customer'} message at ${time}`,
      },
    },
    ...(m.direction === 'out' ? outgoing(m, templates, actions) : incoming(m.payload)),
    m.error && h('p', { class: 'error', attrs: { role: 'note' } }, m.error),
    h(
      'div',
      { class: 'meta' },
      h('span', null, time),
      mark &&
        h(
          'span',
          { class: `mark mark-${m.status}`, attrs: { 'data-status': m.status, title: `Status: ${mark[1]}` } },
          `${mark[0]} ${mark[1]}`,
        ),
      m.statusArrivals.length > 0 &&
        h(
          'span',
          { class: 'arrivals', attrs: { title: 'Status events in the order they arrived' } },
          `arrived: ${m.statusArrivals.join(' → ')}`,
        ),
      ...extra,
    ),
  );
}
