// The one zod issue mapping and safe parse live in core/zod.ts; the platform modules import them from here.
export { safeCheck as check, toIssues } from '../core/zod.js';
