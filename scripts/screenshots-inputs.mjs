// What each console's README pictures are made from, and the fingerprint of it that
// docs/screenshots/manifest.json records: `npm run screenshots` writes the manifest, and
// scripts/test/screenshots.test.ts fails when a console's inputs no longer match it. Plain Node, so
// both work before anything is built.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const SCREENSHOTS_DIR = join(ROOT, 'docs', 'screenshots');
export const MANIFEST = join(SCREENSHOTS_DIR, 'manifest.json');

/** Each console, the service folder that serves it, and the pictures its state script takes. */
export const CONSOLES = {
  controller: {
    service: 'services/controller',
    pictures: ['controller-desktop.png', 'controller-phone.png'],
  },
  simulator: { service: 'services/simulator', pictures: ['simulator-desktop.png', 'simulator-phone.png'] },
  dashboard: { service: 'services/dashboard', pictures: ['dashboard-desktop.png', 'dashboard-phone.png'] },
};

/** The state script: the browser test that puts the service in its known state and takes the pictures. */
export const STATE_SCRIPT = 'test/e2e/pictures.e2e.test.ts';

/**
 * The files a console's pictures depend on, relative to the repository: its web source (not the
 * built dist), the shared console library's source, the picture helper, and its state script.
 */
export function consoleInputs(name) {
  const c = CONSOLES[name];
  if (!c) throw new Error(`no console named ${name}`);
  const files = [
    ...walk(join(ROOT, c.service, 'web')),
    ...walk(join(ROOT, 'packages', 'ui', 'src')),
    join(ROOT, 'packages', 'ui', 'testing', 'pictures.ts'),
    join(ROOT, c.service, STATE_SCRIPT),
  ];
  return files.map((f) => relative(ROOT, f)).sort();
}

function walk(dir) {
  const out = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name.startsWith('.') || entry.name === 'node_modules' || entry.name === 'dist') continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...walk(path));
    else if (entry.isFile()) out.push(path);
  }
  return out;
}

export function sha256(data) {
  return createHash('sha256').update(data).digest('hex');
}

/** One hash over every input's path and content: any file added, removed, renamed or edited changes it. */
export function inputsHash(name) {
  const h = createHash('sha256');
  for (const rel of consoleInputs(name)) {
    const path = join(ROOT, rel);
    const content =
      existsSync(path) && statSync(path).isFile() ? readFileSync(path) : Buffer.from('(missing)');
    h.update(`${rel}\0${sha256(content)}\n`);
  }
  return h.digest('hex');
}

export function readManifest() {
  if (!existsSync(MANIFEST)) return { consoles: {} };
  return JSON.parse(readFileSync(MANIFEST, 'utf8'));
}
