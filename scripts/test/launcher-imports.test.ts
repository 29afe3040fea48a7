import { readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const src = resolve(dirname(fileURLToPath(import.meta.url)), '..', 'src');

/** Every module start.ts loads at run time, following its own files; `import type` loads nothing. */
function runtimeImports(file: string, seen = new Set<string>()): Set<string> {
  const text = readFileSync(file, 'utf8');
  for (const m of text.matchAll(/^import\s+(?!type\s)[^'"]*?from\s+'([^']+)'|^import\s+'([^']+)'/gm)) {
    const spec = (m[1] ?? m[2]) as string;
    if (spec.startsWith('.')) {
      const path = join(dirname(file), spec.replace(/\.js$/, '.ts'));
      if (!seen.has(path)) {
        seen.add(path);
        runtimeImports(path, seen);
      }
    } else seen.add(spec);
  }
  return seen;
}

describe('the resident launcher', () => {
  // It stays in memory while the stack runs, on Pis with 512 MB: the configuration (zod), the
  // PostgreSQL client and the certificate code are loaded by its one-shot children instead.
  it('loads Node modules, its own files, the runtime lifecycle constant and the secret-file writer only', () => {
    const packages = [...runtimeImports(join(src, 'start.ts'))].filter((s) => !s.startsWith('/'));
    const builtins = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]));
    expect(packages.filter((p) => !builtins.has(p)).sort()).toEqual([
      '@outpost/runtime/lifecycle',
      '@outpost/runtime/private-file',
    ]);
    // The writer itself is Node modules only.
    const writer = runtimeImports(join(src, '..', '..', 'packages', 'runtime', 'src', 'private-file.ts'));
    expect([...writer].filter((p) => !builtins.has(p))).toEqual([]);
  });

  it('never calls fetch: its first use loads the fetch implementation, about 10 MB kept for good', () => {
    const own = [...runtimeImports(join(src, 'start.ts'))].filter((s) => s.startsWith('/'));
    const users = own.filter((f) =>
      /\bfetch\s*\(|\bnew (Request|Response|Headers)\b/.test(readFileSync(f, 'utf8')),
    );
    expect(users).toEqual([]);
  });

  it('reaches zod, pg and drizzle only through the one-shot children', () => {
    const children = ['launch-plan-main.ts', 'db-provision-main.ts', 'pglite-upgrade-main.ts'];
    const heavy = children.flatMap((c) => [...runtimeImports(join(src, c))]);
    expect(heavy).toEqual(expect.arrayContaining(['zod', 'pg', 'drizzle-orm/node-postgres']));
    const resident = runtimeImports(join(src, 'start.ts'));
    for (const c of children) expect(resident.has(join(src, c))).toBe(false);
  });
});
