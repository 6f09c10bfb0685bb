import { expect, it } from 'vitest';
import { describeChromium } from '../helpers/chromium.js';
import { inboxHarness } from '../helpers/inbox-browser.js';

/** The template page chooses each template's lifecycle and moves it, each change with its webhook (chromium). */
describeChromium('sandbox template lifecycle from the template page', () => {
  const t = inboxHarness();
  const templateEvent = (event: string) => (e: { kind: string; template?: { event?: string } }) =>
    e.kind === 'template_status' && e.template?.event === event;

  it('submits a template to be REJECTED with a reason, then approves and pauses it from its row', async () => {
    await t.page.goto(`${t.sandbox.url}/templates`);
    await t.page.waitForSelector('body[data-ready]');
    await t.page.getByLabel('Template create request (JSON)').fill(
      JSON.stringify({
        name: 'order_update',
        language: 'en_US',
        category: 'UTILITY',
        body: { text: 'Hi {{1}}, your order shipped.', examples: ['Ali'] },
      }),
    );
    await t.page.getByLabel('After review').selectOption('REJECTED');
    await t.page.getByLabel('Rejection reason').fill('TAG_CONTENT_MISMATCH');
    await t.page.getByRole('button', { name: 'Submit to the sandbox registry' }).click();

    const rejected = await t.appGets(templateEvent('REJECTED'));
    expect(rejected.kind === 'template_status' && rejected.template).toMatchObject({
      message_template_name: 'order_update',
      reason: 'TAG_CONTENT_MISMATCH',
    });
    const row = t.page.getByRole('list', { name: 'Created templates' }).locator('li');
    await row.getByText('REJECTED', { exact: true }).first().waitFor();
    await row.getByText('(TAG_CONTENT_MISMATCH)').waitFor();

    await row.getByRole('button', { name: 'APPROVED order_update en_US' }).click();
    await t.appGets(templateEvent('APPROVED'));
    await row.locator('.template-status', { hasText: 'APPROVED' }).waitFor();
    await row.getByRole('button', { name: 'PAUSED order_update en_US' }).click();
    await t.appGets(templateEvent('PAUSED'));
    await row.locator('.template-status', { hasText: 'PAUSED' }).waitFor();
    expect(t.sandbox.templates.find('order_update', 'en_US')?.status).toBe('PAUSED');
  });
});
