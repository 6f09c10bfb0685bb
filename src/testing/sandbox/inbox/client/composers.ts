/** The forms that answer as the customer (text, file, location) and the 24-hour window switch. */
import { field, h, submitForm } from './dom.js';
import { reply, say, send, state } from './state.js';

const replyText = h('input', { attrs: { id: 'reply-text', autocomplete: 'off' } });
const fileInput = h('input', { attrs: { id: 'attach', type: 'file' } });
const caption = h('input', { attrs: { id: 'caption', autocomplete: 'off' } });
const lat = h('input', { attrs: { id: 'lat', type: 'number', step: 'any', value: '41.3111' } });
const lng = h('input', { attrs: { id: 'lng', type: 'number', step: 'any', value: '69.2797' } });
const placeName = h('input', { attrs: { id: 'place', value: 'Tashkent' } });

export const composer = submitForm(
  'composer',
  'Answer as the customer',
  () => {
    const text = replyText.value;
    if (!text) return;
    void reply({ kind: 'text', text }, 'Reply sent to the app as a text message.').then(() => {
      replyText.value = '';
    });
  },
  field('reply-text', 'Reply as the customer', replyText),
  h('button', { attrs: { type: 'submit' } }, 'Send reply'),
);

export const attach = submitForm(
  'composer',
  'Send a file as the customer',
  () => {
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
  field('attach', 'File', fileInput),
  field('caption', 'Caption', caption),
  h('button', { attrs: { type: 'submit' } }, 'Send file'),
);

export const locate = submitForm(
  'composer',
  'Send a location as the customer',
  () => {
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
  field('lat', 'Latitude', lat),
  field('lng', 'Longitude', lng),
  field('place', 'Place name', placeName),
  h('button', { attrs: { type: 'submit' } }, 'Send location'),
);

export const windowButton = h('button', {
  attrs: { type: 'button', id: 'window-toggle' },
  on: {
    click: () => {
      if (!state.selected || !state.controls) return;
      const open = state.controls.closedWindows.includes(state.selected);
      void send(
        '/inbox/api/controls',
        { window: { peer: state.selected, open } },
        open ? '24-hour window open.' : '24-hour window closed: non-template sends now get GW_001.',
      );
    },
  },
});

export function renderWindow(): void {
  const closed = state.selected !== undefined && state.controls?.closedWindows.includes(state.selected);
  windowButton.textContent = closed ? 'Open the 24-hour window' : 'Close the 24-hour window';
  windowButton.disabled = state.selected === undefined;
}
