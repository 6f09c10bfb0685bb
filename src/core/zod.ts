/**
 * The zod the portable entries (webhooks, templates) build their schemas with: `zod/mini`, which tree-shakes to
 * the few KB those schemas use (classic zod bundles to ~440 KB minified), with English issue messages.
 *
 * zod/mini ships no messages: without a locale every issue reads "Invalid input". Classic zod installs this same
 * English locale when it is imported; the built package bundles its own copy of zod/mini (tsup.config.ts), so
 * this configures only that copy.
 */
import { config } from 'zod/mini';
import en from 'zod/v4/locales/en.js';

config(en());

// Re-exported name by name (`export *`), not as a namespace object: a bundler can then drop what is unused.
// Import it as `import * as z from '../core/zod.js'`.
export * from 'zod/mini';
