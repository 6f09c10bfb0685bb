/**
 * `npm run build`, after tsup: the sandbox inbox's page files (script, style) into dist/inbox/, where the
 * packaged sandbox reads them (see src/testing/sandbox/inbox/assets.ts).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { INBOX_ASSET_FILES } from '../src/testing/sandbox/inbox/assets.js';
import { bundleInboxAssets } from '../src/testing/sandbox/inbox/bundle.js';

const files = await bundleInboxAssets();
const out = join('dist', 'inbox');
mkdirSync(out, { recursive: true });
for (const name of Object.keys(INBOX_ASSET_FILES)) {
  const body = files[name];
  if (body === undefined) throw new Error(`the inbox bundle has no ${name}`);
  writeFileSync(join(out, name), body);
  console.log(`dist/inbox/${name}  ${body.length} B, ${gzipSync(body).length} B gzipped`);
}
