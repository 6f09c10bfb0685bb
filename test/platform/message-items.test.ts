import { HttpResponse, http } from 'msw';
import { describe, expect, it } from 'vitest';
import { MessageValidationError } from '../../src/core/errors.js';
import { type MessageItem, PlatformClient, validateMessageItems } from '../../src/platform/index.js';
import { useMswServer } from '../helpers/msw.js';

const PLATFORM = 'https://platform.test';
const CONV = '3f2b8c1e-4d5a-4b6c-9e7f-0a1b2c3d4e5f';

const server = useMswServer();

function issuesOf(item: unknown) {
  return validateMessageItems([item]).issues;
}

function expectValid(item: unknown) {
  expect(issuesOf(item)).toEqual([]);
}

/** Asserts exactly one issue, at `path` (relative to the item), and returns it. */
function expectIssue(item: unknown, path: (string | number)[], code?: string) {
  const issues = issuesOf(item);
  expect(issues.map((i) => i.path)).toEqual([[0, ...path]]);
  if (code) expect(issues[0]?.code).toBe(code);
  return issues[0]!;
}

const button = (id: string, title: string) => ({ type: 'reply', content: { id, title } });
const buttons = (items: unknown[], extra: Record<string, unknown> = {}) => ({
  type: 'interactive',
  content: 'Pick one',
  data: { type: 'button', action: { items }, ...extra },
});
const row = (id: string, title: string, description?: string) => ({
  id,
  title,
  ...(description === undefined ? {} : { description }),
});
const list = (sections: unknown[], extra: Record<string, unknown> = {}) => ({
  type: 'interactive',
  content: 'Choose a slot',
  data: { type: 'list', action: { button: 'Slots', sections }, ...extra },
});

describe('text, location and media items', () => {
  it('accepts the documented forms', () => {
    expectValid({ type: 'text', content: 'Hello' });
    expectValid({ type: 'text', content: 'Re: order', quote: { quotedContent: 'Where is my order?' } });
    expectValid({ type: 'location', content: 'Our shop', lat: 41.31, lng: 69.24 });
    expectValid({ type: 'location', content: '', lat: -90, lng: 180, address: 'Amir Temur 1', name: 'HQ' });
    expectValid({ type: 'image', content: 'Menu', url: 'https://cdn.example.com/menu.jpg' });
    expectValid({
      type: 'video',
      content: '',
      url: 'http://cdn.example.com/v.mp4',
      quote: { quotedContent: 'x' },
    });
    for (const ext of ['pdf', 'doc', 'docx', 'dot', 'dotx', 'PDF', 'Docx']) {
      expectValid({
        type: 'document',
        content: 'File',
        url: `https://files.example.com/a/report.${ext}?sig=1#p`,
      });
    }
  });

  it('refuses an empty text', () => {
    const issue = expectIssue({ type: 'text', content: '' }, ['content'], 'too_small');
    expect(issue.message).toBe('content is empty');
  });

  it('refuses an unknown type and names the documented ones', () => {
    const issue = expectIssue({ type: 'sticker', content: 'x' }, ['type']);
    expect(issue.message).toContain("'interactive'");
  });

  it('refuses coordinates out of range or not numbers', () => {
    expectIssue({ type: 'location', content: '', lat: 90.01, lng: 0 }, ['lat'], 'too_big');
    expectIssue({ type: 'location', content: '', lat: 0, lng: -180.5 }, ['lng'], 'too_small');
    expectIssue({ type: 'location', content: '', lat: '41.3', lng: 0 }, ['lat'], 'invalid_type');
  });

  it('refuses media URLs that are not http(s)', () => {
    expectIssue({ type: 'image', content: '', url: 'ftp://cdn.example.com/a.jpg' }, ['url']);
    expectIssue({ type: 'video', content: '', url: 'not a url' }, ['url']);
    expectIssue({ type: 'image', content: '' }, ['url'], 'invalid_type');
  });

  it("does not judge a document by its URL's shape (the spec limits the file type; the server judges the file)", () => {
    for (const url of [
      'https://files.example.com/invoices/1042/download',
      'https://files.example.com/get?name=invoice-1042.pdf',
      'https://files.example.com/sheet.xlsx',
    ]) {
      expectValid({ type: 'document', content: '', url });
      expectValid(buttons([button('a', 'A')], { header: { type: 'document', content: url } }));
    }
    // The URL is still checked: an http(s) URL.
    expectIssue({ type: 'document', content: '', url: 'invoice.pdf' }, ['url']);
    expectIssue(
      buttons([button('a', 'A')], { header: { type: 'document', content: 'invoice.pdf' } }),
      ['data', 'header', 'content'],
      'media_url',
    );
  });
});

describe('interactive button form', () => {
  it('accepts 1 to 3 reply buttons, headers of every kind and a footer', () => {
    expectValid(buttons([button('yes', 'Yes')]));
    expectValid(
      buttons([button('a', 'One'), button('b', 'Two'), button('c', 'Three')], {
        header: { type: 'text', content: 'H'.repeat(60) },
        footer: 'F'.repeat(60),
      }),
    );
    for (const type of ['image', 'video'] as const) {
      expectValid(buttons([button('a', 'A')], { header: { type, content: 'https://cdn.example.com/m' } }));
    }
    expectValid(
      buttons([button('a', 'A')], { header: { type: 'document', content: 'https://f.example.com/x.pdf' } }),
    );
  });

  it('counts emoji as one character each (20 emoji fit a title)', () => {
    expectValid(buttons([button('a', '👍'.repeat(20))]));
    expectIssue(
      buttons([button('a', '👍'.repeat(21))]),
      ['data', 'action', 'items', 0, 'content', 'title'],
      'too_big',
    );
  });

  it('refuses no buttons and more than 3', () => {
    expectIssue(buttons([]), ['data', 'action', 'items'], 'too_small');
    const four = [button('a', 'A'), button('b', 'B'), button('c', 'C'), button('d', 'D')];
    expectIssue(buttons(four), ['data', 'action', 'items'], 'too_big');
  });

  it('refuses a button that is not a reply, or lacks id or title', () => {
    expectIssue(buttons([{ type: 'url', content: { id: 'a', title: 'A' } }]), [
      'data',
      'action',
      'items',
      0,
      'type',
    ]);
    expectIssue(buttons([button('', 'A')]), ['data', 'action', 'items', 0, 'content', 'id'], 'too_small');
    expectIssue(buttons([button('a', '')]), ['data', 'action', 'items', 0, 'content', 'title'], 'too_small');
  });

  it('refuses a title over 20 characters', () => {
    const issue = expectIssue(
      buttons([button('a', 'x'.repeat(21))]),
      ['data', 'action', 'items', 0, 'content', 'title'],
      'too_big',
    );
    expect(issue.message).toBe('button title has 21 characters; the maximum is 20');
  });

  it('refuses repeated titles and repeated ids, naming the repeat', () => {
    const titles = expectIssue(
      buttons([button('a', 'Yes'), button('b', 'No'), button('c', 'Yes')]),
      ['data', 'action', 'items', 2, 'content', 'title'],
      'unique',
    );
    expect(titles.message).toContain("'Yes'");
    expectIssue(
      buttons([button('same', 'Yes'), button('same', 'No')]),
      ['data', 'action', 'items', 1, 'content', 'id'],
      'unique',
    );
  });

  it('refuses header content over 60, empty, or a media header without a URL', () => {
    expectIssue(buttons([button('a', 'A')], { header: { type: 'text', content: 'H'.repeat(61) } }), [
      'data',
      'header',
      'content',
    ]);
    expectIssue(buttons([button('a', 'A')], { header: { type: 'text', content: '' } }), [
      'data',
      'header',
      'content',
    ]);
    expectIssue(
      buttons([button('a', 'A')], { header: { type: 'image', content: 'cat.jpg' } }),
      ['data', 'header', 'content'],
      'media_url',
    );
    expectIssue(buttons([button('a', 'A')], { header: { type: 'sticker', content: 'x' } }), [
      'data',
      'header',
      'type',
    ]);
  });

  it('refuses a footer over 60 characters', () => {
    expectIssue(buttons([button('a', 'A')], { footer: 'F'.repeat(61) }), ['data', 'footer'], 'too_big');
  });

  it('refuses an empty body and an unknown interactive type', () => {
    expectIssue({ ...buttons([button('a', 'A')]), content: '' }, ['content'], 'too_small');
    const issue = expectIssue({ type: 'interactive', content: 'x', data: { type: 'carousel' } }, [
      'data',
      'type',
    ]);
    expect(issue.message).toContain("'button' or 'list'");
  });
});

describe('interactive list form', () => {
  it('accepts one untitled section and up to 10 titled ones at the limits', () => {
    expectValid(list([{ rows: [row('r1', 'Morning')] }]));
    const sections = Array.from({ length: 10 }, (_, i) => ({
      title: `S${i}`.padEnd(24, '.'),
      rows: [row('i'.repeat(200), 'T'.repeat(24), 'D'.repeat(72))],
    }));
    expectValid(list(sections, { header: { type: 'text', content: 'Pick' }, footer: 'Thanks' }));
  });

  it('refuses a media header: only text headers in the list form', () => {
    const issue = expectIssue(
      list([{ rows: [row('r', 'R')] }], {
        header: { type: 'image', content: 'https://cdn.example.com/a.jpg' },
      }),
      ['data', 'header', 'type'],
    );
    expect(issue.message).toMatch(/list message's header type can only be 'text'/);
  });

  it('refuses an empty button label', () => {
    const item = list([{ rows: [row('r', 'R')] }]);
    (item.data.action as { button: string }).button = '';
    expectIssue(item, ['data', 'action', 'button'], 'too_small');
  });

  it('refuses no sections and more than 10', () => {
    expectIssue(list([]), ['data', 'action', 'sections'], 'too_small');
    const eleven = Array.from({ length: 11 }, (_, i) => ({ title: `S${i}`, rows: [row('r', 'R')] }));
    expectIssue(list(eleven), ['data', 'action', 'sections'], 'too_big');
  });

  it('requires a section title when there is more than one section', () => {
    const issue = expectIssue(
      list([{ title: 'Morning', rows: [row('a', 'A')] }, { rows: [row('b', 'B')] }]),
      ['data', 'action', 'sections', 1, 'title'],
      'required',
    );
    expect(issue.message).toMatch(/more than one section/);
  });

  it('refuses a section title over 24 and row fields over their limits', () => {
    expectIssue(list([{ title: 'S'.repeat(25), rows: [row('r', 'R')] }]), [
      'data',
      'action',
      'sections',
      0,
      'title',
    ]);
    const at = (...p: (string | number)[]) => ['data', 'action', 'sections', 0, 'rows', 0, ...p];
    expectIssue(list([{ rows: [row('i'.repeat(201), 'R')] }]), at('id'), 'too_big');
    expectIssue(list([{ rows: [row('r', 'T'.repeat(25))] }]), at('title'), 'too_big');
    expectIssue(list([{ rows: [row('r', 'R', 'D'.repeat(73))] }]), at('description'), 'too_big');
    expectIssue(list([{ rows: [] }]), ['data', 'action', 'sections', 0, 'rows'], 'too_small');
  });
});

describe('all issues at once', () => {
  it('reports every problem of every item, in order, with exact paths', () => {
    const result = validateMessageItems([
      { type: 'text', content: '' },
      buttons([button('a', 'x'.repeat(21)), button('a', 'B')], { footer: 'F'.repeat(61) }),
      { type: 'document', content: '', url: 'f.example.com/a.pdf' },
    ]);
    expect(result.valid).toBe(false);
    expect(result.issues.map((i) => i.path)).toEqual([
      [0, 'content'],
      [1, 'data', 'footer'],
      [1, 'data', 'action', 'items', 0, 'content', 'title'],
      [1, 'data', 'action', 'items', 1, 'content', 'id'],
      [2, 'url'],
    ]);
  });

  it('refuses an empty list and a non-array', () => {
    expect(validateMessageItems([]).issues[0]?.message).toMatch(/empty/);
    expect(validateMessageItems('hello').valid).toBe(false);
    expect(validateMessageItems([null]).issues[0]?.path).toEqual([0]);
  });
});

describe('messages.send validates before any request', () => {
  it('throws MessageValidationError with body paths and sends nothing', async () => {
    let requests = 0;
    server.use(
      http.post(`${PLATFORM}/v2/messages/`, () => {
        requests++;
        return HttpResponse.json({ detail: 'ok' });
      }),
    );
    const c = new PlatformClient({ platformUrl: PLATFORM, streamUrl: PLATFORM, token: 'tok-abcdef123456' });
    const error = (await c.messages
      .send('not-a-uuid', [
        { type: 'text', content: '' },
        { type: 'image', content: '', url: 'x' } as MessageItem,
      ])
      .catch((e: unknown) => e)) as MessageValidationError;
    expect(error).toBeInstanceOf(MessageValidationError);
    expect(error.issues.map((i) => i.path)).toEqual([
      ['uuid'],
      ['messages', 0, 'content'],
      ['messages', 1, 'url'],
    ]);
    expect(error.message).toMatch(/^Invalid messages: uuid: /);
    expect(requests).toBe(0);

    await expect(c.messages.send(CONV, [{ type: 'text', content: 'fine' }])).resolves.toEqual({
      detail: 'ok',
    });
    expect(requests).toBe(1);
  });

  /** A client whose sends the platform answers `ok`, and the body of the last one it got. */
  function recordedSends() {
    const seen: { body?: unknown } = {};
    server.use(
      http.post(`${PLATFORM}/v2/messages/`, async ({ request }) => {
        seen.body = await request.json();
        return HttpResponse.json({ detail: 'ok' });
      }),
    );
    const c = new PlatformClient({ platformUrl: PLATFORM, streamUrl: PLATFORM, token: 'tok-abcdef123456' });
    return { c, seen };
  }

  it('sends a document from a download endpoint, whose URL path has no file extension', async () => {
    const { c, seen } = recordedSends();
    const item = {
      type: 'document',
      content: 'Invoice',
      url: 'https://files.example.com/invoices/1042/download',
    };
    await c.messages.send(CONV, [item as MessageItem]);
    expect(seen.body).toEqual({ uuid: CONV, messages: [item] });
  });

  it('sends fields the spec does not list as given', async () => {
    const { c, seen } = recordedSends();
    const item = { type: 'text', content: 'hi', preview: true } as MessageItem;
    await c.messages.send(CONV, [item]);
    expect(seen.body).toEqual({ uuid: CONV, messages: [{ type: 'text', content: 'hi', preview: true }] });
  });
});
