/** The inbox's HTTP side: its security headers, its two pages, and how it answers. */
import type { ServerResponse } from 'node:http';
import type { Asset } from './assets.js';

/**
 * Nothing the page shows is trusted: message texts, links and file names come from the app under test and
 * from whoever posts to the sandbox. The page builds its DOM with textContent only, and this policy makes
 * that a rule the browser enforces: no inline script, no eval, no string-to-HTML sink (Trusted Types), no
 * request anywhere but here.
 */
export const INBOX_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "require-trusted-types-for 'script'",
  "trusted-types 'none'",
].join('; ');

export const SECURITY_HEADERS = {
  'content-security-policy': INBOX_CSP,
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cache-control': 'no-store',
};

const page = (title: string, script: string) =>
  `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<link rel="stylesheet" href="/inbox/inbox.css">
<script type="module" src="/inbox/${script}"></script>
</head>
<body>
<noscript>The sandbox inbox needs JavaScript.</noscript>
</body>
</html>
`;

export const PAGES: Readonly<Record<string, string>> = {
  '/': page('Sandbox inbox · wa-gateway', 'inbox.js'),
  '/templates': page('Template preview · wa-gateway', 'preview.js'),
};

export function answer(res: ServerResponse, status: number, body: unknown): void {
  res
    .writeHead(status, { ...SECURITY_HEADERS, 'content-type': 'application/json' })
    .end(JSON.stringify(body));
}

export function serveAsset(res: ServerResponse, asset: Asset): void {
  res.writeHead(200, { ...SECURITY_HEADERS, 'content-type': asset.contentType }).end(asset.body);
}

/** Whether a request is addressed to this machine's own name (see `handle`). */
export function allowedHost(header: string | undefined, host: string): boolean {
  if (!header) return false;
  const hostname = header.replace(/:\d+$/, '').replace(/^\[|\]$/g, '');
  return (
    hostname === 'localhost' ||
    hostname === '::1' ||
    /^127\.\d+\.\d+\.\d+$/.test(hostname) ||
    hostname === host
  );
}
