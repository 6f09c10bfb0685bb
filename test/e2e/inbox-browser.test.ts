import { expect, it } from 'vitest';
import { describeChromium } from '../helpers/chromium.js';
import { DELIVERY_QUESTION, inboxHarness, TO } from '../helpers/inbox-browser.js';

/** A list of two delivery slots behind a "Slots" button. */
const SLOTS_LIST = {
  type: 'interactive',
  interactive: {
    type: 'list',
    body: { text: 'Pick a delivery slot' },
    action: {
      button: 'Slots',
      sections: [
        {
          title: 'Tomorrow',
          rows: [
            { id: 'slot_am', title: 'Morning', description: '9:00 to 12:00' },
            { id: 'slot_pm', title: 'Afternoon' },
          ],
        },
      ],
    },
  },
} as const;

/** A template with two quick-reply buttons. */
const CONFIRM_TEMPLATE = {
  name: 'order_confirm',
  language: 'en_US',
  category: 'UTILITY',
  body: { text: 'Confirm order {{1}}?', examples: ['#1042'] },
  buttons: [
    { type: 'QUICK_REPLY', text: 'Confirm' },
    { type: 'QUICK_REPLY', text: 'Not now' },
  ],
};

/** The sandbox's web inbox in Debian's chromium: conversations, answering as the customer, controls, log. */
describeChromium('sandbox web inbox in chromium', () => {
  const t = inboxHarness();

  it('shows an SDK send and updates its status marks live over server-sent events, with no polling', async () => {
    await t.openInbox();
    const requests: string[] = [];
    t.page.on('request', (r) => requests.push(r.url()));
    const { messageId } = await t.gw.messages.send({
      to: TO,
      type: 'text',
      text: { body: 'Your order shipped' },
    });
    await t.bubble(messageId).getByText('Your order shipped').waitFor();
    await t.bubble(messageId).locator('.mark[data-status="read"]').waitFor();
    await expect(t.bubble(messageId).locator('.arrivals').textContent()).resolves.toContain(
      'sent → delivered → read',
    );
    expect(requests).toEqual([]);
  });

  it('a reply button tapped with the keyboard reaches the app as button_reply with that id', async () => {
    const { messageId } = await t.gw.messages.send({ to: TO, ...DELIVERY_QUESTION });
    await t.openInbox();
    await t.bubble(messageId).getByRole('button', { name: 'No', exact: true }).focus();
    await t.page.keyboard.press('Enter');
    const event = await t.appGets(t.incoming('interactive'));
    expect(event.kind === 'message' && event.message).toMatchObject({
      from: TO,
      type: 'interactive',
      interactive: { type: 'button_reply', button_reply: { id: 'late', title: 'No' } },
    });
    await t.page.locator('li.msg.in').getByText('button_reply · id late').waitFor();
  });

  it('a list row chosen reaches the app as list_reply', async () => {
    const { messageId } = await t.gw.messages.send({ to: TO, ...SLOTS_LIST });
    await t.openInbox();
    await t.bubble(messageId).getByRole('button', { name: '☰ Slots' }).click();
    await t
      .bubble(messageId)
      .getByRole('button', { name: /Morning/ })
      .click();
    const event = await t.appGets(t.incoming('interactive'));
    expect(event.kind === 'message' && event.message).toMatchObject({
      interactive: {
        type: 'list_reply',
        list_reply: { id: 'slot_am', title: 'Morning', description: '9:00 to 12:00' },
      },
    });
  });

  it('a list opened before its status updates arrive stays open through the redraws they cause', async () => {
    // Statuses are held until the list is open: the order of what happens is the test's, not the timers'.
    const release = t.sandbox.holdStatuses();
    const { messageId } = await t.gw.messages.send({ to: TO, ...SLOTS_LIST });
    await t.sandbox.idle(); // sent, delivered and read are due, and held
    await t.openInbox();
    const bubble = t.bubble(messageId);
    await bubble.getByRole('button', { name: '☰ Slots' }).click();
    await bubble.getByRole('button', { name: /Morning/ }).waitFor({ state: 'visible' });
    await release();
    await bubble.locator('.mark[data-status="read"]').waitFor();
    await expect(bubble.locator('.arrivals').textContent()).resolves.toContain('sent → delivered → read');
    expect(await bubble.getByRole('button', { name: '☰ Slots' }).getAttribute('aria-expanded')).toBe('true');
    expect(await bubble.getByRole('button', { name: /Morning/ }).isVisible()).toBe(true);
    // Closed again, it stays closed through the next redraw (a template arriving redraws the whole thread).
    await bubble.getByRole('button', { name: '☰ Slots' }).click();
    t.sandbox.submitTemplate('app_1', JSON.stringify(CONFIRM_TEMPLATE));
    await t.page.locator('.templates li', { hasText: 'order_confirm' }).first().waitFor();
    expect(await bubble.getByRole('button', { name: /Morning/ }).isVisible()).toBe(false);
  });

  it("a template's quick-reply buttons tap as the customer: a button message with the send's payload, else the label", async () => {
    const created = t.sandbox.submitTemplate('app_1', JSON.stringify(CONFIRM_TEMPLATE));
    t.sandbox.templates.approve(created.created!.sourceId);
    const { messageId } = await t.gw.messages.send({
      to: TO,
      type: 'template',
      template: {
        name: 'order_confirm',
        language: { code: 'en_US' },
        components: [
          { type: 'body', parameters: [{ type: 'text', text: '#1042' }] },
          {
            type: 'button',
            sub_type: 'quick_reply',
            index: '0',
            parameters: [{ type: 'text', text: 'CONFIRM_1042' }],
          },
        ],
      },
    });
    await t.openInbox();
    await t.bubble(messageId).getByRole('button', { name: 'Confirm' }).click();
    const confirm = await t.appGets(t.incoming('button'));
    expect(confirm.kind === 'message' && confirm.message).toMatchObject({
      from: TO,
      type: 'button',
      context: { id: messageId },
      button: { payload: 'CONFIRM_1042', text: 'Confirm' },
    });
    // No payload set for the second button: the tap carries its label, as the upstream platform does.
    await t.bubble(messageId).getByRole('button', { name: 'Not now' }).click();
    const later = await t.appGets(
      (e) => e.kind === 'message' && e.message.type === 'button' && e.message.button.text === 'Not now',
    );
    expect(later.kind === 'message' && later.message).toMatchObject({ button: { payload: 'Not now' } });
    await t.page.locator('li.msg.in').getByText('Quick reply: Confirm').waitFor();
  });

  it('a forced failure shows the failed mark and the app gets the failed status with that code', async () => {
    await t.openInbox();
    await t.page.getByLabel('Upstream error code').fill('131049');
    await t.page.getByRole('button', { name: 'Fail next delivery' }).click();
    await t.page.getByText('Armed: next send fails with 131049').waitFor();
    const { messageId } = await t.gw.messages.send({ to: TO, type: 'text', text: { body: 'Doomed' } });
    await t.bubble(messageId).locator('.mark[data-status="failed"]').waitFor();
    await t.bubble(messageId).getByText('131049: Message undeliverable').waitFor();
    const failed = await t.appGets((e) => e.kind === 'status' && e.status.status === 'failed');
    expect(failed.kind === 'status' && failed.status).toMatchObject({
      id: messageId,
      errors: [{ code: 131049 }],
    });
  });

  it('a file, a reaction and a location sent as the customer reach the app; media.download fetches the file', async () => {
    const { messageId } = await t.gw.messages.send({ to: TO, type: 'text', text: { body: 'Send a photo' } });
    await t.openInbox();
    const png = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');
    await t.page
      .getByLabel('File', { exact: true })
      .setInputFiles({ name: 'photo.png', mimeType: 'image/png', buffer: png });
    await t.page.getByLabel('Caption').fill('the parcel');
    await t.page.getByRole('button', { name: 'Send file' }).click();
    const image = await t.appGets(t.incoming('image'));
    if (image.kind !== 'message' || image.message.type !== 'image') throw new Error('not an image');
    expect(image.message.image).toMatchObject({ mime_type: 'image/png', caption: 'the parcel' });
    const file = await t.gw.media.download(image.message.image.id, {
      phoneNumberId: image.metadata?.phone_number_id ?? 'missing',
    });
    expect(file.contentType).toBe('image/png');
    expect(Buffer.from(await file.arrayBuffer())).toEqual(png);

    await t.bubble(messageId).getByRole('button', { name: 'React 👍 as the customer' }).click();
    const reaction = await t.appGets(t.incoming('reaction'));
    expect(reaction.kind === 'message' && reaction.message).toMatchObject({
      reaction: { message_id: messageId, emoji: '👍' },
    });
    await t.page.getByLabel('Place name').fill('Chorsu bazaar');
    await t.page.getByRole('button', { name: 'Send location' }).click();
    const location = await t.appGets(t.incoming('location'));
    expect(location.kind === 'message' && location.message).toMatchObject({
      location: { latitude: 41.3111, longitude: 69.2797, name: 'Chorsu bazaar' },
    });
  });

  it('controls: balance zero gives BILL_001, a lower rate limit RATE_001, a closed window GW_001; the log redelivers', async () => {
    const { messageId } = await t.gw.messages.send({ to: TO, type: 'text', text: { body: 'Hello' } });
    await t.openInbox();
    await t.page.getByRole('button', { name: 'Set balance to 0' }).click();
    await t.page.locator('#balance', { hasText: '0' }).waitFor();
    await expect(t.gw.messages.send({ to: TO, type: 'text', text: { body: 'x' } })).rejects.toMatchObject({
      code: 'BILL_001',
    });
    await t.page.getByRole('button', { name: 'Unlimited' }).click();
    await t.page.locator('#balance', { hasText: 'unlimited' }).waitFor();

    await t.page.getByRole('button', { name: 'Close the 24-hour window' }).click();
    await t.page.getByRole('button', { name: 'Open the 24-hour window' }).waitFor();
    await expect(t.gw.messages.send({ to: TO, type: 'text', text: { body: 'x' } })).rejects.toMatchObject({
      code: 'GW_001',
    });
    await t.page.locator('li.msg .mark[data-status="refused"]').first().waitFor();

    await t.page.getByLabel('Sends per second').fill('1');
    await t.page.getByRole('button', { name: 'Set rate limit' }).click();
    await t.page.getByText('Rate limit 1/s').waitFor();
    const results = await Promise.allSettled(
      [1, 2].map(() => t.gw.messages.send({ to: '998901234599', type: 'text', text: { body: 'burst' } })),
    );
    // At most one of the two fits in the 1 s window (earlier sends may already fill it).
    expect(
      results.map((r) => (r.status === 'rejected' ? (r.reason as { code: string }).code : 'ok')),
    ).toContain('RATE_001');

    // The log: the first event (the sent status of the first send), expanded, then delivered again.
    await t.sandbox.idle();
    const first = t.page.locator('details[data-event="1"]');
    await first.locator('summary').click();
    await first.getByText(messageId).first().waitFor();
    await expect(first.locator('summary').textContent()).resolves.toMatch(
      /status:sent — delivered · HTTP 200/,
    );
    const before = t.sandbox.deliveries.length;
    await t.page.locator('[data-key="redeliver:1"]').click();
    await t.page.locator(`details[data-event="${before + 1}"]`).waitFor({ state: 'attached' });
    await t.sandbox.idle();
    expect(t.sandbox.deliveries.at(-1)).toMatchObject({ label: 'status:sent', outcome: 'delivered' });
  });
});
