import { describe, expect, it } from 'vitest';
import { headerValue, MAX_HEADER_LENGTH } from '../../src/core/headers.js';

describe('headerValue: only plain visible ASCII of a sane length is kept', () => {
  const headers = (value: string) => new Headers({ 'x-request-id': value });

  it('keeps request ids, content types and dates as sent', () => {
    for (const value of ['req-7f3a9c', 'text/html; charset=utf-8', 'Wed, 21 Oct 2015 07:28:00 GMT', ''])
      expect(headerValue(headers(value), 'x-request-id')).toBe(value);
  });

  it('treats as absent a value with a byte beyond ASCII (UTF-8 read as Latin-1), or one too long', () => {
    expect(
      headerValue(headers(Buffer.from('req-é', 'utf8').toString('latin1')), 'x-request-id'),
    ).toBeUndefined();
    expect(headerValue(headers('a'.repeat(MAX_HEADER_LENGTH + 1)), 'x-request-id')).toBeUndefined();
    expect(headerValue(headers('a'.repeat(MAX_HEADER_LENGTH + 1)), 'x-request-id', 1000)).toHaveLength(257);
    expect(headerValue(new Headers(), 'x-request-id')).toBeUndefined();
  });
});
