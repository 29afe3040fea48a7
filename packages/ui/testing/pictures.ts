// The consoles' pictures for the README: each console's pictures test puts its service in a known state
// and calls picture(). In the test suite they land in test-artifacts/pictures/; `npm run screenshots`
// points OUTPOST_PICTURES_DIR at docs/screenshots/ and records them in its manifest.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { ARTIFACTS } from './e2e.js';
import { recompressPng } from './png.js';

/** The two widths the pictures show: a desktop browser and a phone. */
export const PICTURE_DESKTOP = { width: 1280, height: 800 };
export const PICTURE_PHONE = { width: 390, height: 844 };

/**
 * The instant the pictures' browser clock shows (Playwright's fixed clock), so a time the page
 * computes itself reads the same in every picture; values the service sends are what it sends.
 */
export const PICTURE_TIME = new Date('2026-06-01T12:00:00Z');

export function picturesDir(): string {
  return process.env.OUTPOST_PICTURES_DIR || join(ARTIFACTS, 'pictures');
}

/**
 * Writes <dir>/<name>.png: the viewport as the reader first sees it (not the whole scroll height),
 * without the text caret or running animations, so repeated takes of one state match; re-encoded
 * losslessly to about three quarters of Chromium's size, as these are kept in the repository.
 */
export async function picture(page: Page, name: string): Promise<string> {
  const dir = picturesDir();
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `${name}.png`);
  await page.evaluate('document.fonts.ready');
  const png = await page.screenshot({ fullPage: false, animations: 'disabled', caret: 'hide', scale: 'css' });
  writeFileSync(path, recompressPng(png));
  return path;
}
