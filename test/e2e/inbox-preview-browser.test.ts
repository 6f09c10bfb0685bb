import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { PublicApiClient } from '../../src/index.js';
import { describeChromium } from '../helpers/chromium.js';
import { DELIVERY_QUESTION, IMAGES, inboxHarness, SCREENSHOTS, TO } from '../helpers/inbox-browser.js';

/** The template preview page, every message type drawn, and planted markup staying text (chromium). */
describeChromium('sandbox template preview and rendering in chromium', () => {
  const t = inboxHarness();

  it('the template preview shows validateTemplate issues live, then submits; the template is approved', async () => {
    await t.page.goto(`${t.sandbox.url}/templates`);
    await t.page.waitForSelector('body[data-ready]');
    const editor = t.page.getByLabel('Template create request (JSON)');
    await editor.fill(
      JSON.stringify(
        {
          name: 'Order Update',
          language: 'en_US',
          category: 'MARKETING',
          header: { format: 'TEXT', text: '{{1}} your order' },
          body: { text: 'Hi {{1}}, your order {{2}} shipped', examples: ['Ali'] },
          limitedTimeOffer: { text: 'Ends soon', hasExpiration: true },
          buttons: [{ type: 'URL', text: 'Track', url: 'http://example.com/track' }],
        },
        null,
        2,
      ),
    );
    const issues = t.page.getByRole('list', { name: 'Validation issues' });
    for (const code of ['WA_TPL_034', 'WA_TPL_008', 'WA_TPL_014']) await issues.getByText(code).waitFor();
    await issues.getByText('name').first().waitFor();
    await t.page.locator('.phone').getByText('Hi Ali, your order {{2}} shipped').waitFor();
    await t.page.locator('.phone .offer').getByText('Ends soon').waitFor();
    expect(await lowContrast(t.page)).toEqual([]);
    if (SCREENSHOTS) {
      mkdirSync(IMAGES, { recursive: true });
      await t.page.screenshot({ path: join(IMAGES, 'template-preview.png') });
    }
    // An issue button takes the keyboard to its field in the JSON.
    await issues.getByRole('button').first().click();
    await expect(t.page.evaluate(() => document.activeElement?.id)).resolves.toBe('template-json');

    await editor.fill(
      JSON.stringify({
        name: 'order_update',
        language: 'en_US',
        category: 'UTILITY',
        body: { text: 'Hi {{1}}, your order {{2}} shipped.', examples: ['Ali', '#1042'] },
        footer: { text: 'Thanks for shopping' },
      }),
    );
    await t.page.getByText('No issues: ready to submit').waitFor();
    await t.page.locator('.phone').getByText('Hi Ali, your order #1042 shipped.').waitFor();
    await t.page.getByRole('button', { name: 'Submit to the sandbox registry' }).click();
    await t.page.locator('#submit-result', { hasText: /order_update \(\d+\): (PENDING|APPROVED)/ }).waitFor();
    await t.page.locator('#submit-result', { hasText: 'APPROVED' }).waitFor();
    const approved = await t.appGets((e) => e.kind === 'template_status');
    expect(approved.kind === 'template_status' && approved.template).toMatchObject({
      event: 'APPROVED',
      message_template_name: 'order_update',
    });
  });

  it('draws each message type as the recipient sees it, with labelled controls (and the docs screenshot)', async () => {
    const api = new PublicApiClient({ secretKey: 'sk_org_sandbox', baseUrl: `${t.sandbox.url}/api/v1` });
    await api.templates.create('app_1', {
      name: 'order_update',
      language: 'en_US',
      category: 'UTILITY',
      header: { format: 'TEXT', text: 'Order {{1}} update', examples: ['#1'] },
      body: { text: 'Hi {{1}}, your order is on its way.', examples: ['Ali'] },
      buttons: [{ type: 'URL', text: 'Track', url: 'https://shop.example.com/t/{{1}}', example: ['1'] }],
    });
    await t.sandbox.idle();
    const sends = [
      { type: 'text', text: { body: 'Track it at https://shop.example.com/o/1042', preview_url: true } },
      { type: 'image', image: { link: 'https://shop.example.com/parcel.jpg', caption: 'Your parcel' } },
      {
        type: 'document',
        document: { link: 'https://shop.example.com/inv.pdf', filename: 'invoice-1042.pdf' },
      },
      { type: 'audio', audio: { link: 'https://shop.example.com/note.ogg' } },
      {
        type: 'template',
        template: {
          name: 'order_update',
          language: { code: 'en_US' },
          components: [
            { type: 'header', parameters: [{ type: 'text', text: '#1042' }] },
            { type: 'body', parameters: [{ type: 'text', text: 'Dilnoza' }] },
            { type: 'button', sub_type: 'url', index: '0', parameters: [{ type: 'text', text: '1042' }] },
          ],
        },
      },
      DELIVERY_QUESTION,
    ] as const;
    const ids: string[] = [];
    for (const s of sends) ids.push((await t.gw.messages.send({ to: TO, ...s } as never)).messageId);
    await t.sandbox.injectMessage({
      from: TO,
      id: 'wamid.IN1',
      timestamp: '1700000000',
      type: 'text',
      text: { body: 'Yes, thank you!' },
    });
    await t.sandbox.idle();
    await t.openInbox();
    const text = async (i: number) => (await t.bubble(ids[i]!).textContent()) ?? '';
    await t.bubble(ids[0]!).locator('.link-preview').waitFor();
    expect(await text(0)).toContain('link preview on (preview_url: true)');
    expect(await text(1)).toMatch(/Image.*parcel\.jpg.*Your parcel/);
    expect(await text(2)).toMatch(/Document.*invoice-1042\.pdf.*inv\.pdf/);
    expect(await text(3)).toMatch(/Audio.*note\.ogg/);
    expect(await text(4)).toMatch(
      /Order #1042 update.*Hi Dilnoza, your order is on its way\..*Track.*\/t\/1042/,
    );
    await expect(t.bubble(ids[5]!).getByRole('button').count()).resolves.toBeGreaterThanOrEqual(2);
    const unlabelled = await t.page.evaluate(() =>
      [...document.querySelectorAll('input, select, textarea')]
        .filter((el) => (el as HTMLInputElement).labels?.length === 0 && !el.getAttribute('aria-label'))
        .map((el) => el.outerHTML),
    );
    expect(unlabelled).toEqual([]);
    const nameless = await t.page.evaluate(
      () =>
        [...document.querySelectorAll('button')].filter(
          (b) => !(b.getAttribute('aria-label') || b.textContent?.trim()),
        ).length,
    );
    expect(nameless).toBe(0);
    expect(await lowContrast(t.page)).toEqual([]);
    if (SCREENSHOTS) {
      mkdirSync(IMAGES, { recursive: true });
      await t.page.getByRole('button', { name: 'Yes', exact: true }).focus();
      await t.page.screenshot({ path: join(IMAGES, 'sandbox-inbox.png') });
    }
  });

  it('shows planted <script>, HTML and javascript: links as inert text', async () => {
    const planted = '<script>window.__xss=1</script><img src=x onerror="window.__xss=2">';
    const { messageId } = await t.gw.messages.send({
      to: TO,
      type: 'text',
      text: { body: planted, preview_url: true },
    });
    await t.gw.messages.send({
      to: TO,
      type: 'interactive',
      interactive: {
        type: 'list',
        body: { text: '<svg onload="window.__xss=3">' },
        action: {
          button: '<b>open</b>',
          sections: [{ title: '<i>s</i>', rows: [{ id: 'r', title: '<img src=x>' }] }],
        },
      },
    });
    // The gateway refuses this one, and the inbox still shows what was tried.
    await fetch(`${t.sandbox.url}/v1/wa/message`, {
      method: 'POST',
      headers: { authorization: 'Bearer sk_test_sandbox', 'content-type': 'application/json' },
      body: JSON.stringify({
        messaging_product: 'whatsapp',
        to: TO,
        type: 'document',
        document: { link: 'javascript:window.__xss=4', filename: '<img src=x onerror="window.__xss=5">' },
      }),
    });
    await t.sandbox.injectMessage({
      from: TO,
      id: 'wamid.XSS',
      timestamp: '1700000000',
      type: 'text',
      text: { body: 'javascript:window.__xss=6 <iframe src="javascript:window.__xss=7"></iframe>' },
    });
    await t.sandbox.idle();
    await t.openInbox();
    await t.bubble(messageId).getByText(planted).waitFor();
    await t.page.getByText('javascript:window.__xss=4').click();
    await t.page.getByRole('button', { name: '<b>open</b>' }).click();
    await t.page.getByText('<img src=x>').waitFor();
    await t.page.getByText('<iframe src="javascript:window.__xss=7"></iframe>', { exact: false }).waitFor();
    const dom = await t.page.evaluate(() => ({
      xss: (window as unknown as { __xss?: number }).__xss,
      scripts: document.querySelectorAll('script').length,
      planted: document.querySelectorAll('img[src="x"], svg, iframe, b, i').length,
      jsLinks: [...document.querySelectorAll('a')].filter((a) => a.protocol === 'javascript:').length,
    }));
    expect(dom).toEqual({ xss: undefined, scripts: 1, planted: 0, jsLinks: 0 });
  });
});

/**
 * Text whose colour has less than WCAG AA contrast (4.5:1) with the background behind it, composited through
 * translucent ancestors. Returns a description of each offender.
 */
function lowContrast(page: import('playwright-core').Page): Promise<string[]> {
  return page.evaluate(() => {
    const rgba = (c: string) => (c.match(/[\d.]+/g) ?? ['0', '0', '0', '0']).map(Number) as number[];
    const luminance = ([r, g, b]: number[]) => {
      const f = (v: number) => {
        const s = v / 255;
        return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
      };
      return 0.2126 * f(r!) + 0.7152 * f(g!) + 0.0722 * f(b!);
    };
    const background = (el: Element | null): number[] => {
      if (!el) return [255, 255, 255];
      const [r, g, b, a = 1] = rgba(getComputedStyle(el).backgroundColor);
      if (a === 1) return [r!, g!, b!];
      const under = background(el.parentElement);
      return [r!, g!, b!].map((v, i) => v * a + under[i]! * (1 - a));
    };
    const bad: string[] = [];
    for (const el of document.querySelectorAll('body *')) {
      const own = [...el.childNodes].some((n) => n.nodeType === Node.TEXT_NODE && n.textContent?.trim());
      if (!own || (el as HTMLElement).offsetParent === null) continue;
      const fg = luminance(rgba(getComputedStyle(el).color));
      const bg = luminance(background(el));
      const ratio = (Math.max(fg, bg) + 0.05) / (Math.min(fg, bg) + 0.05);
      if (ratio < 4.5)
        bad.push(`${el.tagName}.${el.className} "${el.textContent?.slice(0, 30)}" ${ratio.toFixed(2)}`);
    }
    return bad;
  });
}
