// Runs every bench/*.bench.mjs in its own node process, one after another, against dist/.
import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const dir = dirname(fileURLToPath(import.meta.url));
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.bench.mjs'))
  .sort();
for (const f of files) execFileSync(process.execPath, [join(dir, f)], { stdio: 'inherit' });
