import { type Browser, chromium as playwright } from 'playwright-core';
import { describe } from 'vitest';
import { available, chromium } from './system-servers.js';

/** `describe` when Debian's chromium is installed (always in CI), `describe.skip` otherwise. */
export const describeChromium = describe.skipIf(!available(chromium));

/**
 * Headless Debian chromium through playwright-core. The background-networking flags matter here: without them
 * chromium keeps trying hosts this machine cannot reach.
 */
export async function launchChromium(): Promise<Browser> {
  if (!chromium.path) throw new Error(`chromium not found (${chromium.enable})`);
  return playwright.launch({
    executablePath: chromium.path,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
