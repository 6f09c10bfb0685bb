import { defineConfig } from 'vitest/config';
import base, { PROOFS } from './vitest.config.js';

/** The system proofs alone (`npm run test:proofs`); CI runs them after `npm test`. */
export default defineConfig({ test: { ...base.test, include: [PROOFS], exclude: [] } });
