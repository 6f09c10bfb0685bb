import { defineConfig } from 'tsup';

export default defineConfig([
  {
    entry: {
      index: 'src/index.ts',
      templates: 'src/templates/index.ts',
      webhooks: 'src/webhooks/index.ts',
      testing: 'src/testing/index.ts',
      redis: 'src/redis/index.ts',
      schemas: 'src/schemas.ts',
      conversations: 'src/conversations/index.ts',
      'durable-objects': 'src/durable-objects/index.ts',
    },
    format: ['esm', 'cjs'],
    // `@internal` declarations (the transport, the token manager, the resource constructors, ...) stay out of the
    // published types: only the public API is typed for users. `npm run check:package` holds it.
    dts: { compilerOptions: { stripInternal: true } },
    sourcemap: true,
    clean: false,
    target: 'node20',
    splitting: true,
    treeshake: true,
    // zod/mini is bundled into the portable entries: loaded from node_modules it is ~99 modules resolved one by
    // one (about 3x the cold import of the whole bundled entry), and a Worker or browser build tree-shakes it to
    // the few KB the webhook schemas use. Classic zod (main entry, CLI) stays a dependency. See docs/benchmarks.md.
    noExternal: [/^zod\/mini$/, /^zod\/v4\/core$/, /^zod\/v4\/locales\/en\.js$/],
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
