/**
 * The CLI bundled as the package ships it (esbuild, one ESM file, as tsup builds dist/cli.js) into `outfile`, with
 * the optional peers left to the user's install: a test runs it in a folder with only what a user would have.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('../..', import.meta.url));

export async function bundleCli(outfile: string): Promise<void> {
  await build({
    entryPoints: [join(root, 'src/cli/bin.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile,
    logLevel: 'silent',
    // What the package's bundle leaves to the user's install: the optional peers.
    external: ['ioredis', 'msw', 'bullmq', '@opentelemetry/api'],
  });
}
