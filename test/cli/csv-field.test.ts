import { describe, expect, it } from 'vitest';
import { csvField } from '../../src/cli/csv-field.js';

describe('csvField', () => {
  it('quotes a comma, a quote or a line break (RFC 4180)', () => {
    expect(csvField('spring, sale')).toBe('"spring, sale"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('a\nb')).toBe('"a\nb"');
    expect(csvField(undefined)).toBe('');
    expect(csvField(true)).toBe('true');
  });

  it('defuses a field a spreadsheet would run as a formula', () => {
    expect(csvField('=HYPERLINK("http://evil.example","x")')).toBe(
      `"'=HYPERLINK(""http://evil.example"",""x"")"`,
    );
    expect(csvField('@SUM(A1)')).toBe("'@SUM(A1)");
    expect(csvField('+cmd|x')).toBe("'+cmd|x");
    expect(csvField('-2+3')).toBe("'-2+3");
    expect(csvField('\tx')).toBe("'\tx");
  });

  it('writes control characters other than tab and line breaks as their code: a terminal reading it obeys none', () => {
    expect(csvField('\u001b]0;PWNED\u0007 title')).toBe('\\u001b]0;PWNED\\u0007 title');
    expect(csvField('a\tb')).toBe('a\tb');
    expect(csvField('a\r\nb\u0000')).toBe('"a\r\nb\\u0000"');
  });

  it('leaves numbers and phone numbers as they are, so a list can be fed back', () => {
    expect(csvField('+15551234567')).toBe('+15551234567');
    expect(csvField('+1 (555) 123-4567')).toBe('+1 (555) 123-4567');
    expect(csvField(-3)).toBe('-3');
    expect(csvField('998900000001')).toBe('998900000001');
  });
});
