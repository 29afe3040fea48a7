#!/usr/bin/env node
// `npm run screenshots [console…]`: retakes the README pictures of each console (all three when none is
// named) in its known state, into docs/screenshots/, and records in manifest.json the fingerprint of
// what they were made from (screenshots-inputs.mjs). Each console is its service's own pictures test
// (test/e2e/pictures.e2e.test.ts) run with OUTPOST_PICTURES_DIR set: one browser, one service stack,
// a few seconds each. `npm run screenshots` builds first (its prescreenshots step).
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  CONSOLES,
  inputsHash,
  MANIFEST,
  ROOT,
  readManifest,
  SCREENSHOTS_DIR,
  STATE_SCRIPT,
  sha256,
} from './screenshots-inputs.mjs';

const asked = process.argv.slice(2);
const unknown = asked.filter((n) => !(n in CONSOLES));
if (unknown.length > 0) {
  console.error(
    `outpost: no console named ${unknown.join(', ')} (consoles: ${Object.keys(CONSOLES).join(', ')})`,
  );
  process.exit(2);
}
const names = asked.length > 0 ? asked : Object.keys(CONSOLES);

// The caller's test environment as it is (the controller's suite starts its own embedded PostgreSQL
// when TEST_DATABASE_URL is unset), with the pictures pointed at docs/screenshots/.
const env = { ...process.env, OUTPOST_PICTURES_DIR: SCREENSHOTS_DIR };

const manifest = readManifest();
let failed = 0;
for (const name of names) {
  const { service, pictures } = CONSOLES[name];
  // The inputs as they are when the pictures are taken (an edit during the run makes them stale, as it should).
  const inputs = inputsHash(name);
  console.log(`outpost: taking the ${name} pictures`);
  const began = Date.now();
  const run = spawnSync('npx', ['--no-install', 'vitest', 'run', STATE_SCRIPT], {
    cwd: join(ROOT, service),
    env,
    stdio: 'inherit',
  });
  if (run.status !== 0) {
    console.error(`outpost: the ${name} pictures test failed; its pictures and manifest entry are unchanged`);
    failed++;
    continue;
  }
  // A skipped test (no Chromium) passes too: only pictures written by this run count.
  const old = pictures.filter((f) => {
    const path = join(SCREENSHOTS_DIR, f);
    return !existsSync(path) || statSync(path).mtimeMs < began - 1000;
  });
  if (old.length > 0) {
    console.error(
      `outpost: the ${name} pictures test did not write ${old.join(', ')} (is /usr/bin/chromium there?)`,
    );
    failed++;
    continue;
  }
  const hashes = {};
  for (const file of pictures) hashes[file] = sha256(readFileSync(join(SCREENSHOTS_DIR, file)));
  manifest.consoles[name] = { inputs, pictures: hashes };
}
manifest.consoles = Object.fromEntries(
  Object.entries(manifest.consoles).sort(([a], [b]) => a.localeCompare(b)),
);
writeFileSync(
  MANIFEST,
  `${JSON.stringify(
    {
      about:
        'Written by `npm run screenshots`: per console, a hash of what its pictures are made from and of each picture. scripts/test/screenshots.test.ts checks it.',
      consoles: manifest.consoles,
    },
    null,
    2,
  )}\n`,
);
process.exit(failed > 0 ? 1 : 0);
