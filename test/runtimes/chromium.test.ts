/**
 * A browser form: validateTemplate from the templates entry, bundled with esbuild for the browser (platform
 * `browser`, the `browser` condition), loaded into a blank page of headless chromium and run there. The results
 * must equal Node's.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { bundleFor, type TargetBundle } from '../../bench/bundle-size.js';
import { validateTemplate } from '../../src/templates/index.js';
import { describeChromium, launchChromium } from '../helpers/chromium.js';
import { TEMPLATES } from './deliveries.js';

const app = new URL('./apps/browser-form.ts', import.meta.url).pathname;

describeChromium('browser (headless chromium)', () => {
  let bundle: TargetBundle;
  let browser: Browser;
  beforeAll(async () => {
    [bundle, browser] = await Promise.all([bundleFor(app, 'browser', { minify: true }), launchChromium()]);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
  });

  it('the browser bundle imports no Node built-in', () => {
    expect(bundle.nodeImports).toEqual([]);
  });

  it('runs validateTemplate in the page with the same results as on Node', async () => {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.setContent('<!doctype html><form id="template"></form>');
    await page.addScriptTag({ content: bundle.code, type: 'module' });
    await page.waitForFunction(() => 'waValidateTemplate' in globalThis);
    for (const template of Object.values(TEMPLATES)) {
      const inBrowser = await page.evaluate(
        (t) =>
          (globalThis as unknown as { waValidateTemplate: (x: unknown) => unknown }).waValidateTemplate(t),
        template as unknown,
      );
      expect(inBrowser).toEqual(JSON.parse(JSON.stringify(validateTemplate(template))));
    }
    // Not a Node look-alike: the page has no process or require.
    expect(await page.evaluate(() => typeof (globalThis as { process?: unknown }).process)).toBe('undefined');
    expect(errors).toEqual([]);
    await page.close();
  });
});
