/** The inbox's HTTP side: its security headers, its two pages, and how it answers. */
import type { IncomingMessage, ServerResponse } from 'node:http';
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

/** Whether a request is addressed to this machine's own name (see `refuseCrossSite`). */
function allowedHost(header: string | undefined, host: string): boolean {
  if (!header) return false;
  const hostname = header.replace(/:\d+$/, '').replace(/^\[|\]$/g, '');
  return (
    hostname === 'localhost' ||
    hostname === '::1' ||
    /^127\.\d+\.\d+\.\d+$/.test(hostname) ||
    hostname === host
  );
}

/**
 * The `Host` half of `refuseCrossSite`, for the gateway's own routes (a send, a template create, a media download):
 * a `Host` that is not this machine's own name is refused with 421, so a rebinding DNS name cannot make a web page
 * send with the well-known test key. Only for a sandbox bound to a loopback address: one bound to another address
 * (`host: '0.0.0.0'` for a container) is reached by other names on purpose.
 */
export function refuseForeignHost(req: IncomingMessage, host: string): Refusal | undefined {
  if (!allowedHost(host, '')) return undefined;
  return allowedHost(req.headers.host, host)
    ? undefined
    : [421, 'the sandbox answers only at its loopback address'];
}

/** A refusal: the status and a short reason for the JSON answer. */
export type Refusal = readonly [status: number, error: string];

/**
 * The checks every browser-reachable route of the sandbox (the inbox, `/__sandbox/*`) makes before acting. A page
 * on another site can make the developer's browser send requests here, and a rebinding DNS name can make them
 * same-origin: a `Host` that is not this machine's own name is refused with 421; for a POST, a foreign `Origin`
 * with 403, and a body that is not `application/json` (which a cross-site form or a no-cors fetch can send without
 * the preflight this server never grants) with 415. `undefined`: go ahead.
 */
export function refuseCrossSite(req: IncomingMessage, host: string): Refusal | undefined {
  const foreign = refuseForeignHost(req, host);
  if (foreign) return foreign;
  if (req.method !== 'POST') return undefined;
  const origin = req.headers.origin;
  if (origin !== undefined && origin !== `http://${req.headers.host}`) {
    return [403, 'cross-origin requests are refused'];
  }
  if (!req.headers['content-type']?.startsWith('application/json')) return [415, 'send application/json'];
  return undefined;
}
