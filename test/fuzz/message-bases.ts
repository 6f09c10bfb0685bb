/**
 * One valid outbound message of each shape `messages.send` takes, each using every field its type has (template
 * parameters of every type, buttons of both sub-types, a list with two sections): the bases that the one-rule
 * and single-mutation tests break one thing at a time. Each is valid as written (the tests check it).
 */

export const TO = '998901234567';

export const textBase = {
  to: TO,
  type: 'text',
  text: { body: 'Hello', preview_url: true },
};

export const imageBase = {
  to: TO,
  type: 'image',
  image: { link: 'https://cdn.example.com/a.jpg', caption: 'A photo' },
};

export const audioBase = {
  to: TO,
  type: 'audio',
  audio: { link: 'https://cdn.example.com/a.ogg' },
};

export const documentBase = {
  to: TO,
  type: 'document',
  document: { link: 'https://cdn.example.com/a.pdf', caption: 'Invoice', filename: 'a.pdf' },
};

export const templateBase = {
  to: TO,
  type: 'template',
  template: {
    name: 'order_update',
    language: { code: 'en' },
    components: [
      {
        type: 'header',
        parameters: [{ type: 'image', image: { link: 'https://cdn.example.com/h.jpg' } }],
      },
      {
        type: 'body',
        parameters: [
          { type: 'text', text: 'Aziza' },
          { type: 'currency', currency: { fallback_value: '$10', code: 'USD', amount_1000: 10000 } },
          { type: 'date_time', date_time: { fallback_value: 'May 1' } },
          { type: 'document', document: { link: 'https://cdn.example.com/d.pdf' } },
          { type: 'video', video: { link: 'https://cdn.example.com/v.mp4' } },
        ],
      },
      { type: 'button', sub_type: 'url', index: '0', parameters: [{ type: 'text', text: 'ABC' }] },
      { type: 'button', sub_type: 'quick_reply', index: 1, parameters: [] },
    ],
  },
};

export const buttonsBase = {
  to: TO,
  type: 'interactive',
  interactive: {
    type: 'button',
    body: { text: 'Pick one' },
    action: {
      buttons: [
        { type: 'reply', reply: { id: 'yes', title: 'Yes' } },
        { type: 'reply', reply: { id: 'no', title: 'No' } },
        { type: 'reply', reply: { id: 'later', title: 'Later' } },
      ],
    },
  },
};

export const listBase = {
  to: TO,
  type: 'interactive',
  interactive: {
    type: 'list',
    body: { text: 'Menu' },
    action: {
      button: 'Open',
      sections: [
        {
          title: 'Drinks',
          rows: [
            { id: 'tea', title: 'Tea', description: 'Green or black' },
            { id: 'coffee', title: 'Coffee' },
          ],
        },
        { title: 'Food', rows: [{ id: 'plov', title: 'Plov' }] },
      ],
    },
  },
};

/** Two buttons: one more may repeat an id without also breaking the count. */
export const twoButtonsBase = {
  ...buttonsBase,
  interactive: {
    ...buttonsBase.interactive,
    action: { buttons: buttonsBase.interactive.action.buttons.slice(0, 2) },
  },
};

/** The bases by name, in the order of the schema's message types. */
export const MESSAGE_BASES = {
  text: textBase,
  image: imageBase,
  audio: audioBase,
  document: documentBase,
  template: templateBase,
  'interactive button': buttonsBase,
  'interactive list': listBase,
} as const;
