import { defineConfig } from 'tsup';

/**
 * The portable entries a cold start imports: each one self-contained file (no shared chunks), since every file
 * an `import()` loads costs about as much as the whole peer's entry (docs/benchmarks.md, issue 35). They load no
 * zod (generated checkers) and share nothing with state: the error classes they repeat are branded, so
 * `instanceof` holds across copies (core/errors.ts).
 */
const PORTABLE = {
  templates: 'src/templates/index.ts',
  webhooks: 'src/webhooks/index.ts',
  conversations: 'src/conversations/index.ts',
};

export default defineConfig([
  {
    entry: {
      index: 'src/index.ts',
      // The portable entries' zod/mini schemas, on their own subpaths: the entries check with generated code and
      // load no zod (docs/benchmarks.md, issue 35).
      'webhooks/schemas': 'src/webhooks/schemas.ts',
      'templates/schemas': 'src/templates/schema.ts',
      testing: 'src/testing/index.ts',
      redis: 'src/redis/index.ts',
      schemas: 'src/schemas.ts',
      'durable-objects': 'src/durable-objects/index.ts',
    },
    format: ['esm', 'cjs'],
    // `@internal` declarations (the transport, the token manager, the resource constructors, ...) stay out of the
    // published types: only the public API is typed for users. `npm run check:package` holds it. The portable
    // entries' types are built here too, so every entry shares one declaration of each type.
    dts: {
      compilerOptions: { stripInternal: true },
      entry: {
        index: 'src/index.ts',
        ...PORTABLE,
        'webhooks/schemas': 'src/webhooks/schemas.ts',
        'templates/schemas': 'src/templates/schema.ts',
        testing: 'src/testing/index.ts',
        redis: 'src/redis/index.ts',
        schemas: 'src/schemas.ts',
        'durable-objects': 'src/durable-objects/index.ts',
      },
    },
    sourcemap: true,
    clean: false,
    target: 'node20',
    splitting: true,
    treeshake: true,
    // zod/mini is bundled into the portable schemas' subpaths (webhooks/schemas, templates/schemas): loaded from
    // node_modules it is ~99 modules resolved one by one, and a Worker or browser build tree-shakes it to the few KB
    // the schemas use. Classic zod (main entry, CLI) stays a dependency. See docs/benchmarks.md.
    noExternal: [/^zod\/mini$/, /^zod\/v4\/core$/, /^zod\/v4\/locales\/en\.js$/],
  },
  {
    entry: PORTABLE,
    format: ['esm', 'cjs'],
    sourcemap: true,
    clean: false,
    target: 'node20',
    splitting: false,
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
