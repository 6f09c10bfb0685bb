/**
 * The page's only way to make DOM: elements, attributes and text nodes. No HTML string is ever parsed, so a
 * message text like `<script>` stays text; the CSP's Trusted Types rule makes the browser refuse any attempt.
 */
export type Child = Node | string | number | null | undefined | false;

export interface Props {
  class?: string;
  /** Attributes, set with setAttribute (never `href`/`src` from data: use `link`). */
  attrs?: Record<string, string | undefined>;
  on?: { [K in keyof HTMLElementEventMap]?: (event: HTMLElementEventMap[K]) => void };
}

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Props | null = null,
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  if (props?.class) el.className = props.class;
  for (const [name, value] of Object.entries(props?.attrs ?? {}))
    if (value !== undefined) el.setAttribute(name, value);
  for (const [name, listener] of Object.entries(props?.on ?? {}))
    el.addEventListener(name, listener as EventListener);
  append(el, children);
  return el;
}

export function append(el: Node, children: readonly Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    el.appendChild(typeof child === 'object' ? child : document.createTextNode(String(child)));
  }
}

/** Replaces an element's children. */
export function fill(el: Element, ...children: Child[]): void {
  el.replaceChildren();
  append(el, children);
}

/**
 * A link only for http(s) URLs, opening in a new tab without a referrer; anything else (`javascript:`,
 * `data:`, garbage) is shown as plain text.
 */
export function link(url: unknown, text?: string): HTMLElement {
  const s = typeof url === 'string' ? url : '';
  let safe = false;
  try {
    const protocol = new URL(s).protocol;
    safe = protocol === 'https:' || protocol === 'http:';
  } catch {}
  if (!safe) return h('span', { class: 'unsafe-link', attrs: { title: 'not an http(s) link' } }, text ?? s);
  const a = h('a', { attrs: { target: '_blank', rel: 'noopener noreferrer' } }, text ?? s);
  a.href = s;
  return a;
}

export const str = (v: unknown): string => (typeof v === 'string' ? v : v === undefined ? '' : String(v));

export const obj = (v: unknown): Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

export const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);

export async function postJson(path: string, body: unknown): Promise<{ status: number; body: unknown }> {
  const res = await fetch(path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json().catch(() => null) };
}

/** The header both pages share: what this is, where the other page is. */
export function banner(current: 'inbox' | 'templates'): HTMLElement {
  const item = (href: string, label: string, here: boolean) =>
    h('li', null, h('a', { attrs: { href, ...(here ? { 'aria-current': 'page' } : {}) } }, label));
  return h(
    'header',
    { class: 'top' },
    h('h1', null, current === 'inbox' ? 'Sandbox inbox' : 'Template preview'),
    h(
      'nav',
      { attrs: { 'aria-label': 'Sandbox pages' } },
      h(
        'ul',
        null,
        item('/', 'Inbox', current === 'inbox'),
        item('/templates', 'Template preview', current === 'templates'),
      ),
    ),
  );
}

/** A labelled form field. */
export const field = (id: string, label: string, input: HTMLElement) =>
  h('div', { class: 'field' }, h('label', { attrs: { for: id } }, label), input);

/** A labelled form whose submit runs `onSubmit` instead of loading a page. */
export function submitForm(
  cls: string,
  label: string,
  onSubmit: () => void,
  ...children: Child[]
): HTMLFormElement {
  const submit = (e: SubmitEvent) => {
    e.preventDefault();
    onSubmit();
  };
  return h('form', { class: cls, attrs: { 'aria-label': label }, on: { submit } }, ...children);
}
