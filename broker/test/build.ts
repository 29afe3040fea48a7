import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const MAIN = join(root, 'dist', 'main.js');

/** The broker process runs from dist/; rebuild when any source is newer (turbo builds before test anyway). */
export function ensureBuilt(): void {
  const built = existsSync(MAIN) ? statSync(MAIN).mtimeMs : 0;
  const newest = Math.max(
    ...readdirSync(join(root, 'src')).map((f) => statSync(join(root, 'src', f)).mtimeMs),
  );
  if (newest > built)
    execFileSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
}
