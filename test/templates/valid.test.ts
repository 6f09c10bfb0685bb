import { describe, expect, it } from 'vitest';
import {
  assertValidTemplate,
  type TemplateButton,
  type TemplateCreateRequest,
  validateTemplate,
} from '../../src/templates/index.js';
import { TemplateCreateRequestSchema } from '../../src/templates/schema.js';

const handle = (n: number) => `4::aW1hZ2UvanBlZw==:ARb${n}`;
const card = (format: 'IMAGE' | 'VIDEO', n: number, buttons: TemplateButton[]) => ({
  header: { format, examples: [handle(n)] },
  body: { text: `Card ${n}: {{1}} off today.`, examples: ['20%'] },
  buttons,
});

// One valid template per shape the spec describes. Typed as TemplateCreateRequest, so they also prove the
// inferred types accept every shape.
const valid: Record<string, TemplateCreateRequest> = {
  'UTILITY with text header, variables, footer, URL/PHONE/QUICK_REPLY buttons': {
    name: 'order_shipped',
    language: 'en_US',
    category: 'UTILITY',
    header: { format: 'TEXT', text: 'Order {{1}} is on its way', examples: ['#1234'] },
    body: { text: 'Hi {{1}}, order {{2}} ships today via {{3}}.', examples: ['Ann', '#1234', 'DHL'] },
    footer: { text: 'Reply STOP to unsubscribe' },
    buttons: [
      { type: 'URL', text: 'Track', url: 'https://track.example.com/{{1}}', example: ['1234'] },
      { type: 'PHONE_NUMBER', text: 'Call us', phoneNumber: '+998901234567' },
      { type: 'QUICK_REPLY', text: 'Thanks' },
    ],
    allowCategoryChange: false,
    messageSendTtlSeconds: 3600,
  },
  'MARKETING with image header, copy code and mixed buttons': {
    name: 'spring_sale_2025',
    language: 'de',
    category: 'MARKETING',
    header: { format: 'IMAGE', examples: [handle(1)] },
    body: { text: 'Spring sale: everything {{1}} off.', examples: ['30%'] },
    footer: { text: 'Terms apply' },
    buttons: [
      { type: 'COPY_CODE', example: ['SPRING30'] },
      { type: 'URL', text: 'Shop', url: 'https://shop.example.com' },
      { type: 'QUICK_REPLY', text: 'Stop promos' },
    ],
    allowCategoryChange: true,
    messageSendTtlSeconds: 2_592_000,
  },
  'AUTHENTICATION with an OTP copy-code button': {
    name: 'login_code',
    language: 'en',
    category: 'AUTHENTICATION',
    body: { addSecurityRecommendation: true },
    footer: { codeExpirationMinutes: 10 },
    buttons: [{ type: 'OTP', otpType: 'COPY_CODE', text: 'Copy code' }],
    messageSendTtlSeconds: -1,
  },
  'AUTHENTICATION with a one-tap OTP button': {
    name: 'login_one_tap',
    language: 'fr',
    category: 'AUTHENTICATION',
    body: {},
    footer: { codeExpirationMinutes: 90 },
    buttons: [
      {
        type: 'OTP',
        otpType: 'ONE_TAP',
        text: 'Copy code',
        autofillText: 'Autofill',
        packageName: 'com.example.app',
        signatureHash: 'K8a/AINcGX7',
      },
    ],
    messageSendTtlSeconds: 900,
  },
  'AUTHENTICATION with a zero-tap OTP button': {
    name: 'login_zero_tap',
    language: 'es_MX',
    category: 'AUTHENTICATION',
    body: { addSecurityRecommendation: false },
    buttons: [
      {
        type: 'OTP',
        otpType: 'ZERO_TAP',
        packageName: 'com.example.app',
        signatureHash: 'K8a/AINcGX7',
        zeroTapTermsAccepted: true,
        autofillText: 'a'.repeat(25),
      },
    ],
    messageSendTtlSeconds: 30,
  },
  'carousel of IMAGE cards': {
    name: 'carousel_images',
    language: 'en',
    category: 'MARKETING',
    header: { format: 'NONE' },
    body: { text: 'Our picks for {{1}}.', examples: ['you'] },
    carousel: [
      card('IMAGE', 1, [{ type: 'QUICK_REPLY', text: 'More' }]),
      card('IMAGE', 2, [{ type: 'QUICK_REPLY', text: 'More' }]),
    ],
  },
  'carousel of 10 VIDEO cards with two buttons each': {
    name: 'carousel_videos',
    language: 'pt_BR',
    category: 'MARKETING',
    body: { text: 'Watch these.' },
    carousel: Array.from({ length: 10 }, (_, i) =>
      card('VIDEO', i, [
        { type: 'URL', text: 'Watch', url: 'https://v.example.com/{{1}}', example: [`v${i}`] },
        { type: 'PHONE_NUMBER', text: 'Call', phoneNumber: '15551234567' },
      ]),
    ),
  },
  'limited-time offer with expiration': {
    name: 'flash_sale',
    language: 'en',
    category: 'MARKETING',
    header: { format: 'IMAGE', examples: [handle(3)] },
    body: { text: 'Flash sale: {{1}} off.', examples: ['50%'] },
    buttons: [
      { type: 'COPY_CODE', example: ['FLASH50'] },
      { type: 'URL', text: 'Shop now', url: 'https://shop.example.com/{{1}}', example: ['flash'] },
    ],
    limitedTimeOffer: { text: 'Ends soon!', hasExpiration: true },
  },
  'limited-time offer without expiration': {
    name: 'weekend_offer',
    language: 'en',
    category: 'MARKETING',
    body: { text: 'Weekend offer for members.' },
    buttons: [{ type: 'URL', text: 'See offer', url: 'https://shop.example.com' }],
    limitedTimeOffer: { text: 'x'.repeat(16) },
  },
  'LOCATION header': {
    name: 'store_location',
    language: 'en',
    category: 'UTILITY',
    header: { format: 'LOCATION' },
    body: { text: 'Your pickup point is ready.' },
  },
  'VIDEO and DOCUMENT headers with handles': {
    name: 'invoice_ready',
    language: 'en',
    category: 'UTILITY',
    header: { format: 'DOCUMENT', examples: [handle(4)] },
    body: { text: 'Your invoice is attached.' },
  },
  'VIDEO header with handle': {
    name: 'promo_video',
    language: 'en',
    category: 'MARKETING',
    header: { format: 'VIDEO', examples: [handle(5)] },
    body: { text: 'New season is here.' },
  },
  'the limits exactly: 512-char name, 60 emoji header, 1024-char body, 10 buttons, 25-char button text': {
    name: `a${'b'.repeat(511)}`,
    language: 'zu',
    category: 'MARKETING',
    header: { format: 'TEXT', text: '🎉'.repeat(60) },
    body: { text: 'x'.repeat(1024) },
    footer: { text: 'f'.repeat(60) },
    buttons: Array.from({ length: 10 }, () => ({ type: 'QUICK_REPLY' as const, text: 'q'.repeat(25) })),
    messageSendTtlSeconds: 43_200,
  },
  'a repeated variable needs one example': {
    name: 'repeat_var',
    language: 'en',
    category: 'UTILITY',
    body: { text: 'Hi {{1}}, yes {{1}}, you.', examples: ['Ann'] },
  },
};

describe('valid templates of every shape', () => {
  it.each(Object.entries(valid))('%s', (_, template) => {
    expect(validateTemplate(template)).toEqual({ valid: true, issues: [], template });
    expect(() => assertValidTemplate(template)).not.toThrow();
    // The structural schema agrees: nothing the validator accepts is rejected by the zod schema.
    expect(TemplateCreateRequestSchema.safeParse(template).success).toBe(true);
  });

  it('does not change its input', () => {
    for (const template of Object.values(valid)) {
      const before = structuredClone(template);
      validateTemplate(template);
      expect(template).toEqual(before);
    }
  });

  it('accepts frozen templates', () => {
    const frozen = Object.freeze({
      ...valid['LOCATION header']!,
      body: Object.freeze({ text: 'Frozen body.' }),
    });
    expect(validateTemplate(frozen).valid).toBe(true);
  });
});
