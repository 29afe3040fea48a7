#!/usr/bin/env node
// Runs before `npm start`, `npm test` and `npm run bench`: installs dependencies when the lockfile
// changed since the last install, then builds what is out of date. Plain Node: nothing is installed yet.
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

function run(cmd, args) {
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', env: process.env });
  if (r.status !== 0) {
    console.error(`outpost: '${cmd} ${args.join(' ')}' failed (exit ${r.status ?? r.signal})`);
    process.exit(r.status ?? 1);
  }
}

const marker = join(root, 'node_modules', '.package-lock.json');
const lock = join(root, 'package-lock.json');
const stale = !existsSync(marker) || (existsSync(lock) && statSync(lock).mtimeMs > statSync(marker).mtimeMs);
if (stale) {
  console.log('outpost: installing dependencies…');
  // `npm install` rather than `npm ci`: it follows the lockfile yet tolerates optional platform packages
  // that a lockfile written on another platform may lack.
  run(npm, ['install', '--no-audit', '--no-fund']);
}
run(join(root, 'node_modules', '.bin', 'turbo'), ['run', 'build', '--output-logs=errors-only']);
