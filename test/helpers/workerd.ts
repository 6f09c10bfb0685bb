/**
 * Workers in workerd through miniflare, for the Durable Objects tests and bench: one bundle (esbuild with the
 * workerd conditions, as wrangler builds), served by `isolates` Workers. The first exports and hosts
 * `WaGatewayDurableObject` (bound as `WA_STATE`); the others bind the same class by `scriptName`, so every Worker
 * reaches the same objects while each runs in an isolate of its own. Each Worker has its own socket on 127.0.0.1.
 */
import { createServer } from 'node:net';
import { Miniflare } from 'miniflare';
import { bundleFor, type TargetBundle } from '../../bench/bundle-size.js';

export interface WorkerFleet {
  /** The base URL of each Worker (isolate), in order. */
  urls: string[];
  bundle: TargetBundle;
  dispose(): Promise<void>;
}

export interface FleetOptions {
  /** How many Workers (isolates) serve the bundle. Default 2. */
  isolates?: number;
  /** `false` for key-value-backed objects; default SQLite-backed, what Cloudflare recommends for new classes. */
  sqlite?: boolean;
  /** Text bindings, e.g. the gateway's URL. */
  bindings?: Record<string, string>;
  /** `nodejs_compat` and a 2025 compatibility date: what the main entry (GatewayClient) needs on Workers. */
  nodejsCompat?: boolean;
}

export async function startWorkers(app: string, options: FleetOptions = {}): Promise<WorkerFleet> {
  const bundle = await bundleFor(app, 'workerd');
  const isolates = options.isolates ?? 2;
  const useSQLite = options.sqlite ?? true;
  const compat = options.nodejsCompat
    ? { compatibilityDate: '2025-09-15', compatibilityFlags: ['nodejs_compat'] }
    : { compatibilityDate: '2025-09-15' };
  const mf = new Miniflare({
    host: '127.0.0.1',
    port: 0,
    workers: Array.from({ length: isolates }, (_, i) => ({
      name: `isolate-${i}`,
      modules: true,
      script: bundle.code,
      ...compat,
      bindings: options.bindings ?? {},
      durableObjects: {
        WA_STATE: {
          className: 'WaGatewayDurableObject',
          useSQLite,
          ...(i > 0 ? { scriptName: 'isolate-0' } : {}),
        },
      },
      unsafeDirectSockets: [{ host: '127.0.0.1', port: 0 }],
    })),
  });
  await mf.ready;
  const urls = await Promise.all(
    Array.from({ length: isolates }, async (_, i) => (await mf.unsafeGetDirectURL(`isolate-${i}`)).origin),
  );
  return { urls, bundle, dispose: () => mf.dispose() };
}

/**
 * A port free on 127.0.0.1 now: a fleet that talks to a gateway (the testing kit's sandbox) needs its address before
 * either is started, as each is given the other's.
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
