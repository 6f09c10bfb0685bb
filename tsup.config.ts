import { defineConfig } from 'tsup';

export default defineConfig([
  {
    entry: {
      index: 'src/index.ts',
      templates: 'src/templates/index.ts',
      webhooks: 'src/webhooks/index.ts',
      testing: 'src/testing/index.ts',
      redis: 'src/redis/index.ts',
    },
    format: ['esm', 'cjs'],
    dts: true,
    sourcemap: true,
    clean: false,
    target: 'node20',
    splitting: true,
    treeshake: true,
  },
  {
    // The command-line tool: ESM only, one file, run by node through the shebang.
    entry: { cli: 'src/cli/bin.ts' },
    format: ['esm'],
    sourcemap: true,
    clean: false,
    target: 'node20',
    splitting: false,
    banner: { js: '#!/usr/bin/env node' },
  },
]);
