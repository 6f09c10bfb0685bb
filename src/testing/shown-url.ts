/**
 * A URL as the sandbox and the CLI print it: scheme, host, port and path, never a user name, password, query or
 * fragment (a webhook receiver may take a token in its query, and ioredis reads `?password=`), with
 * ` (query hidden)` when one was left out. `base` resolves a relative URL (a redirect's `Location`).
 *
 * @example
 * shownUrl('http://127.0.0.1:3000/hook?token=abc'); // 'http://127.0.0.1:3000/hook (query hidden)'
 */
export function shownUrl(url: string, base?: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url, base);
  } catch {
    return '(an address that is not a URL)';
  }
  const shown = `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
  return parsed.search ? `${shown} (query hidden)` : shown;
}
