/**
 * The conversation platform inside the sandbox: the framework-free `PlatformSimulator`, served below the sandbox's
 * own address, so one `startSandbox()` (or `wa-gateway sandbox`) answers the gateway, the public API and the
 * platform.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { PlatformSimulator } from '../platform/simulator.js';

/** A sandbox's platform: the simulator and the base URL requests are resolved against. */
export interface PlatformMount {
  simulator: PlatformSimulator;
  base: string;
}

/** Where the platform is served below the sandbox's address: `{platform_url}` and `{stream_url}`. */
export const PLATFORM_PATH = '/platform';
export const STREAM_PATH = '/platform-stream';

const HOP_HEADERS = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive']);

/** Whether a request path is one the platform mount answers. */
export function isPlatformPath(pathname: string): boolean {
  return [PLATFORM_PATH, STREAM_PATH].some((base) => pathname === base || pathname.startsWith(`${base}/`));
}

/**
 * Answers a platform request through the simulator: the Node request becomes a Fetch `Request`, and the
 * simulator's `Response` is written back, its body streamed (a stream answer can hold 100,000 records).
 */
export async function answerPlatform(
  { simulator, base }: PlatformMount,
  req: IncomingMessage,
  res: ServerResponse,
  body: string,
): Promise<void> {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    // The connection's own headers describe the hop to the sandbox, not the request the simulator answers.
    if (HOP_HEADERS.has(name)) continue;
    if (typeof value === 'string') headers.set(name, value);
    else if (Array.isArray(value)) for (const v of value) headers.append(name, v);
  }
  const method = (req.method ?? 'GET').toUpperCase();
  const request = new Request(new URL(req.url ?? '/', base), {
    method,
    headers,
    ...(method === 'GET' || method === 'HEAD' ? {} : { body }),
  });
  const response = await simulator.handle(request);
  if (!response) {
    res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ detail: 'Not found.' }));
    return;
  }
  res.writeHead(response.status, Object.fromEntries(response.headers));
  if (!response.body) {
    res.end();
    return;
  }
  const reader = response.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (!res.write(value)) await drainedOrClosed(res);
    if (res.destroyed) {
      // The reader went away: stop the simulator's stream too.
      await reader.cancel();
      return;
    }
  }
  res.end();
}

function drainedOrClosed(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.once('drain', done);
    res.once('close', done);
  });
}
