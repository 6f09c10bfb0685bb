/** The SDK's version, sent in the User-Agent. A test keeps it equal to package.json's. */
export const SDK_VERSION = '0.3.0';

interface RuntimeGlobals {
  Bun?: { version?: string };
  Deno?: { version?: { deno?: string } };
  EdgeRuntime?: unknown;
  process?: { versions?: { node?: string } };
  navigator?: { userAgent?: string };
  document?: unknown;
}

/**
 * The runtime as `name/version`, found from globals only (no `node:` import, so the portable entries stay
 * portable). Bun and Deno are checked before Node because both also expose `process.versions.node`.
 */
export function runtime(g: RuntimeGlobals = globalThis as RuntimeGlobals): string {
  if (typeof g.Bun?.version === 'string') return `bun/${g.Bun.version}`;
  if (typeof g.Deno?.version?.deno === 'string') return `deno/${g.Deno.version.deno}`;
  if (g.navigator?.userAgent === 'Cloudflare-Workers') return 'workerd';
  if (g.EdgeRuntime !== undefined) return 'edge-runtime';
  if (typeof g.process?.versions?.node === 'string') return `node/${g.process.versions.node}`;
  if (g.document !== undefined) return 'browser';
  return 'unknown';
}

/** `wa-gateway-sdk/0.3.0 node/20.20.2`: the SDK, its version and the runtime. */
export function userAgent(): string {
  return `wa-gateway-sdk/${SDK_VERSION} ${runtime()}`;
}
