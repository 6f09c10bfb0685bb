/**
 * `Content-Disposition` file names as RFC 6266 and RFC 8187 define them, checked on the RFCs' own examples (RFC
 * 6266 §5, RFC 8187 §3.2.3 with `title` read as `filename`) and on cases of the tc2231 test suite the RFCs' author
 * keeps (greenbytes.de/tech/tc2231), plus what a file name must never carry.
 */
import { describe, expect, it } from 'vitest';
import { dispositionFilename } from '../../src/gateway/content-disposition.js';

describe('dispositionFilename: the RFCs’ own examples', () => {
  it.each([
    // RFC 6266 §5
    ['Attachment; filename=example.html', 'example.html'],
    ['INLINE; FILENAME= "an example.html"', 'an example.html'],
    ["attachment; filename*= UTF-8''%e2%82%ac%20rates", '€ rates'],
    [`attachment; filename="EURO rates"; filename*=utf-8''%e2%82%ac%20rates`, '€ rates'],
    // RFC 8187 §3.2.3 (and RFC 5987 §3.2.2), its `title` parameter given as `filename`
    ['attachment; filename=Economy', 'Economy'],
    ['attachment; filename="US-$ rates"', 'US-$ rates'],
    ["attachment; filename*=iso-8859-1'en'%A3%20rates", '£ rates'],
    ["attachment; filename*=UTF-8''%c2%a3%20and%20%e2%82%ac%20rates", '£ and € rates'],
  ])('%s → %s', (header, name) => {
    expect(dispositionFilename(header)).toBe(name);
  });
});

describe('dispositionFilename: RFC 8187 extended values', () => {
  it.each([
    ['a language tag is read and dropped', "attachment; filename*=UTF-8'en'na%C3%AFve.pdf", 'naïve.pdf'],
    ['a region language tag', "attachment; filename*=UTF-8'de-CH'gr%C3%BCezi.txt", 'grüezi.txt'],
    ['the charset in any case', "attachment; filename*=utf-8''foo-%c3%a4.html", 'foo-ä.html'],
    ['ISO-8859-1, byte for character', "attachment; filename*=ISO-8859-1''foo-%E4.html", 'foo-ä.html'],
    [
      'filename* before filename',
      `attachment; filename*=UTF-8''foo-%c3%a4.html; filename="foo-ae.html"`,
      'foo-ä.html',
    ],
    [
      'filename* after filename',
      `attachment; filename="foo-ae.html"; filename*=UTF-8''foo-%c3%a4.html`,
      'foo-ä.html',
    ],
    ['an escaped percent', "attachment; filename*=UTF-8''A-%2541.html", 'A-%41.html'],
  ])('%s', (_, header, name) => {
    expect(dispositionFilename(header)).toBe(name);
  });

  it.each([
    ['an unknown charset', "attachment; filename*=x-unknown''foo.html; filename=plain.html", 'plain.html'],
    ['no charset', "attachment; filename*=''foo-%c3%a4.html; filename=plain.html", 'plain.html'],
    [
      'a quoted ext-value',
      `attachment; filename*="UTF-8''foo-%c3%a4.html"; filename=plain.html`,
      'plain.html',
    ],
    ['a cut escape', "attachment; filename*=UTF-8''foo%; filename=plain.html", 'plain.html'],
    ['a bad escape', "attachment; filename*=UTF-8''foo%zz.html; filename=plain.html", 'plain.html'],
    [
      'bytes that are not UTF-8',
      "attachment; filename*=UTF-8''foo-%E4.html; filename=plain.html",
      'plain.html',
    ],
  ])('filename* with %s is ignored: filename is used', (_, header, name) => {
    expect(dispositionFilename(header)).toBe(name);
  });

  it('a filename* that cannot be read and no filename: no name', () => {
    expect(dispositionFilename("attachment; filename*=x-unknown''foo.html")).toBeUndefined();
  });
});

describe('dispositionFilename: quoted strings and tokens', () => {
  it.each([
    ['escaped quotes', String.raw`attachment; filename="\"quoting\" tested.html"`, '"quoting" tested.html'],
    [
      'a semicolon inside quotes',
      `attachment; filename="Here's a semicolon;.html"`,
      "Here's a semicolon;.html",
    ],
    ['an escape in another parameter', String.raw`attachment; foo="\"\\";filename="foo.html"`, 'foo.html'],
    ['a percent in a plain filename is not decoded', 'attachment; filename="foo-%41.html"', 'foo-%41.html'],
    [
      'RFC 2047 is not decoded',
      'attachment; filename==?ISO-8859-1?Q?foo-=E4.html?=',
      '=?ISO-8859-1?Q?foo-=E4.html?=',
    ],
    ['the first of two filenames', 'attachment; filename="first.html"; filename="second.html"', 'first.html'],
    ['a parameter without a value before it', 'attachment; creation; filename=report.pdf', 'report.pdf'],
  ])('%s', (_, header, name) => {
    expect(dispositionFilename(header)).toBe(name);
  });

  it.each([
    ['no header', undefined],
    ['no filename', 'attachment'],
    ['an unterminated quoted string', 'attachment; filename="foo.html'],
    ['an empty name', 'attachment; filename=""'],
    ['raw UTF-8 bytes (as fetch hands them over: Latin-1)', 'attachment; filename="naÃ¯ve.pdf"'],
    ['a header longer than 2048 characters', `attachment; filename="${'a'.repeat(2100)}.pdf"`],
  ])('%s: no name', (_, header) => {
    expect(dispositionFilename(header)).toBeUndefined();
  });

  it('a raw-byte filename beside a readable filename*: the filename*', () => {
    expect(dispositionFilename(`attachment; filename="naÃ¯ve.pdf"; filename*=UTF-8''na%C3%AFve.pdf`)).toBe(
      'naïve.pdf',
    );
  });
});

describe('dispositionFilename: never a path, never a confusing character', () => {
  it.each([
    ['a Unix path', 'attachment; filename="../../etc/passwd"', 'passwd'],
    ['a Windows path', String.raw`attachment; filename="..\\..\\windows\\win.ini"`, 'win.ini'],
    ['an encoded path', "attachment; filename*=UTF-8''..%2F..%2Fetc%2Fpasswd", 'passwd'],
    ['an encoded backslash', "attachment; filename*=UTF-8''C%3A%5Ctemp%5Cx.exe", 'x.exe'],
    ['a bidi override', "attachment; filename*=UTF-8''invoice%E2%80%AEfdp.exe", 'invoicefdp.exe'],
    ['control characters', "attachment; filename*=UTF-8''a%00b%0A%1Bc.txt", 'abc.txt'],
    ['a C1 control in ISO-8859-1', "attachment; filename*=ISO-8859-1''a%85b.txt", 'ab.txt'],
    ['spaces at the ends', "attachment; filename*=UTF-8''%20%20report.pdf%20", 'report.pdf'],
  ])('%s', (_, header, name) => {
    const got = dispositionFilename(header);
    expect(got).toBe(name);
    expect(got).not.toMatch(/[/\\]/);
  });

  it.each([
    ['a path to a folder', 'attachment; filename="a/b/"'],
    ['..', "attachment; filename*=UTF-8''.."],
    ['.. after a path', "attachment; filename*=UTF-8''a%2F.."],
    ['only control characters', "attachment; filename*=UTF-8''%00%01"],
  ])('%s: no name', (_, header) => {
    expect(dispositionFilename(header)).toBeUndefined();
  });
});
