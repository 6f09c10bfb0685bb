import { defineConfig } from 'vitest/config';
import base, { PROOFS } from './vitest.config.js';

/** The system proofs alone (`npm run test:proofs`); CI runs them after `npm test`. */
// One proof at a time: each runs fleets of processes, a cluster or a failover that it measures.
export default defineConfig({ test: { ...base.test, include: [PROOFS], exclude: [], maxWorkers: 1 } });
