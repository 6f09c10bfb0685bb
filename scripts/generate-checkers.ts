/**
 * `npm run generate`: writes the checkers generated from the zod schemas (`src/**\/*.generated.ts`; see
 * scripts/checkers/generator.ts). `npm run generate -- --check` writes nothing and exits 1 when a committed file is
 * not what the schemas generate today (the build and test/generated/fresh.test.ts run the same comparison).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { generatedFiles } from './checkers/targets.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const check = process.argv.includes('--check');
let stale = 0;
for (const file of await generatedFiles()) {
  const path = `${root}${file.path}`;
  let current: string | undefined;
  try {
    current = readFileSync(path, 'utf8');
  } catch {
    current = undefined;
  }
  if (current === file.text) continue;
  if (check) {
    stale++;
    console.error(
      `${file.path} is stale: the schemas changed since it was generated. Run \`npm run generate\`.`,
    );
  } else {
    writeFileSync(path, file.text);
    console.log(`wrote ${file.path}`);
  }
}
if (stale > 0) process.exit(1);
