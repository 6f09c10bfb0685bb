/** Template definitions the template tests share: one with a TEXT header, body variables and both button kinds. */
export const orderShippedDefinition = {
  name: 'order_shipped',
  language: 'en_US',
  category: 'UTILITY',
  header: { format: 'TEXT', text: 'Order {{1}} update', examples: ['#1042'] },
  body: { text: 'Hi {{1}}, order {{2}} is on its way.', examples: ['Ali', '#1042'] },
  buttons: [
    {
      type: 'URL',
      text: 'Track',
      url: 'https://shop.example.com/t/{{1}}',
      example: ['https://shop.example.com/t/1'],
    },
    { type: 'QUICK_REPLY', text: 'Stop updates' },
  ],
} as const;

/** An IMAGE header (its value is a link) and one body variable. */
export const promoDefinition = {
  name: 'promo',
  language: 'en_US',
  category: 'MARKETING',
  header: { format: 'IMAGE', examples: ['4::aW1hZ2U='] },
  body: { text: 'New in: {{1}} this week.', examples: ['shoes'] },
} as const;

/** No variable anywhere: it takes no values. */
export const helloDefinition = {
  name: 'hello',
  language: 'en_US',
  category: 'UTILITY',
  body: { text: 'Hello, we are open.' },
} as const;

/** An AUTHENTICATION (one-time code) template as the create rules want it: no body text, one OTP copy-code button. */
export const loginCodeDefinition = {
  name: 'login_code',
  language: 'en',
  category: 'AUTHENTICATION',
  body: { addSecurityRecommendation: true },
  footer: { codeExpirationMinutes: 10 },
  buttons: [{ type: 'OTP', otpType: 'COPY_CODE', text: 'Copy code' }],
} as const;
