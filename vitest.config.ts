import { configDefaults, defineConfig } from 'vitest/config';

/** `*.proof.test.ts`: the system proofs (process fleets, clusters, failovers, long runs), run by `npm run test:proofs`. */
export const PROOFS = 'test/**/*.proof.test.ts';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: [...configDefaults.exclude, PROOFS],
    globalSetup: ['test/helpers/global-setup.ts'],
    // Fails a test that makes the SDK print a warning through its default logger (a green run prints none).
    setupFiles: ['test/helpers/no-sdk-warnings.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    pool: 'forks',
    // Vitest's default is one worker less than the cores: on a 2-core machine, one file at a time, while most
    // files spend much of their time waiting on servers, child processes and sockets.
    maxWorkers: 2,
    reporters: ['default'],
  },
});
