import { describe, expect, it } from 'vitest';
import { charCount, isHttpUrl } from '../../src/core/text.js';
import { validateMessage, validateMessageItems } from '../../src/index.js';

// One definition of "an http(s) URL" serves the gateway's media links and the platform's media items. The two
// used to disagree; these inputs pin the stricter reading (the one that refuses what either refused).
const DISAGREED = [
  'http://.example.com/a.jpg', // the platform accepted it (the URL parser does)
  'http://$abc.example.com/a.jpg', // the platform accepted it
  'http:/files.example.com/a.jpg', // the platform accepted it: the parser repairs the missing slash
  'http:\\\\files.example.com\\a.jpg', // the platform accepted it: the parser reads \ as /
  'http:///files.example.com/a.jpg', // the platform accepted it
  'http://files.example.com:99999/a.jpg', // the gateway accepted it: no such port
  'http://%zz/a.jpg', // the gateway accepted it: not a host
  'http://a|b.example.com/a.jpg', // the gateway accepted it
  'http://1.2.3.4.5/a.jpg', // the gateway accepted it: not an IPv4 address
];

const ACCEPTED = [
  'https://files.example.com/a.jpg',
  'HTTP://FILES.EXAMPLE.COM/A.JPG',
  'http://127.0.0.1:8080/a.jpg',
  'http://[::1]/a.jpg',
  'https://cdn.example.com/a.jpg?sig=abc#x',
];

const REFUSED = [
  ...DISAGREED,
  '',
  'ftp://files.example.com/a.jpg',
  'https://files.example.com/a b.jpg',
  'a.jpg',
];

describe('isHttpUrl: one definition for the gateway and the platform', () => {
  it.each(ACCEPTED)('accepts %s', (url) => {
    expect(isHttpUrl(url)).toBe(true);
    expect(validateMessageItems([{ type: 'image', content: '', url }]).valid).toBe(true);
    expect(validateMessage({ to: '998901234567', type: 'image', image: { link: url } }).valid).toBe(true);
  });

  it.each(REFUSED)('refuses %j, on both sides', (url) => {
    expect(isHttpUrl(url)).toBe(false);
    expect(validateMessageItems([{ type: 'image', content: '', url }]).valid).toBe(false);
    expect(validateMessage({ to: '998901234567', type: 'image', image: { link: url } }).valid).toBe(false);
  });
});

describe('charCount: one code-point count for the platform and the templates', () => {
  it.each([
    ['', 0],
    ['héllo 😀', 7],
    ['\ud83d', 1], // a lone high surrogate counts once
    ['\ude00x', 2], // a lone low surrogate counts once
    ['\ude00\ud83d', 2], // reversed pair: two lone surrogates
    ['😀😀', 2],
  ])('%j has %i code points', (s, n) => {
    expect(charCount(s)).toBe(n);
    expect(charCount(s)).toBe([...s].length);
  });

  it('a button title of 20 emoji fits the platform limit of 20 characters', () => {
    const title = '😀'.repeat(20);
    const item = {
      type: 'interactive',
      content: 'Pick one',
      data: { type: 'button', action: { items: [{ type: 'reply', content: { id: 'a', title } }] } },
    };
    expect(validateMessageItems([item]).valid).toBe(true);
    expect(
      validateMessageItems([
        {
          ...item,
          data: {
            ...item.data,
            action: { items: [{ type: 'reply', content: { id: 'a', title: `${title}x` } }] },
          },
        },
      ]).valid,
    ).toBe(false);
  });
});
